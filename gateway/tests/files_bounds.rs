//! The file store's bounds (§13): unfinished uploads are limited in number
//! and age, uploads stop at the disk quota, and the gateway keeps serving.

use std::time::Duration;

use serde_json::json;

use crate::files::stored_files;
use crate::support::files::{begin, chunk, CHUNK};
use crate::support::Gateway;
use aria_gateway::FileLimits;

fn temp_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("files/tmp")).map_or(0, |d| d.count())
}

#[tokio::test]
async fn a_thousand_uploads_begun_and_never_finished_stay_bounded() {
    let gw = Gateway::start_with(1, |c| {
        c.frames_per_sec = 100_000;
        c.frame_burst = 100_000;
    })
    .await;
    let mut client = gw.client().await;
    let bytes = vec![b'u'; 4096];
    for i in 0..1000 {
        let id = format!("left-{i}");
        client.send(begin(&id, "a.txt", "text/plain", &bytes)).await;
        assert_eq!(client.upload_reply(&id).await["offset"], 0);
        // Chunks have a rate limit of their own: keep to it.
        let ack = client.chunk_within_limit(&id, 0, &bytes[..1024]).await;
        assert_eq!(ack["offset"], 1024, "{i}: {ack}");
    }
    // The last one is still there, its first chunk in.
    client
        .send(begin("left-999", "a.txt", "text/plain", &bytes))
        .await;
    let resumed = client
        .until(|f| {
            f["upload_id"] == "left-999" && f["type"] == "file.accept" && f["offset"] == 1024
        })
        .await;
    assert!(!resumed.is_empty());
    let max = FileLimits::default().max_uploads;
    assert!(
        temp_files(gw.dir.path()) <= max,
        "{} temp files",
        temp_files(gw.dir.path())
    );
    // The first ones made room: their chunks find nothing.
    let gone = client
        .chunk_within_limit("left-0", 1024, &bytes[1024..2048])
        .await;
    assert_eq!(gone["code"], "not_found", "{gone}");
    // And the gateway serves as before (once the chunk bucket has refilled).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stored = client
        .upload("fine", "fine.txt", "text/plain", b"still here\n")
        .await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    client.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(client.recv_type("pong").await["t"], 1);
}

#[tokio::test]
async fn the_quota_stops_an_upload_midway_and_frees_its_bytes() {
    let gw = Gateway::start_with(1, |c| {
        c.files.quota_bytes = 3 * CHUNK as u64;
    })
    .await;
    let mut client = gw.client().await;
    let big: Vec<u8> = (0..5 * CHUNK).map(|i| b'a' + (i % 26) as u8).collect();
    let refused = client.upload("big", "big.txt", "text/plain", &big).await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(
        (refused["code"].clone(), refused["upload_id"].clone()),
        (json!("too_large"), json!("big"))
    );
    assert!(refused["message"]
        .as_str()
        .is_some_and(|m| m.contains("storage is full")));
    assert_eq!(temp_files(gw.dir.path()), 0, "the partial bytes are gone");
    assert!(stored_files(gw.dir.path()).is_empty());
    // Its bytes were given back: a file that fits is stored.
    let small = vec![b's'; 2 * CHUNK];
    let stored = client
        .upload("small", "small.txt", "text/plain", &small)
        .await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    // And the quota counts stored files.
    let more = vec![b'm'; 2 * CHUNK];
    let refused = client.upload("more", "more.txt", "text/plain", &more).await;
    assert_eq!(refused["code"], "too_large", "{refused}");
}

#[tokio::test]
async fn an_upload_untouched_past_its_expiry_is_removed() {
    let gw = Gateway::start_with(1, |c| {
        c.files.upload_expiry = Duration::from_millis(300);
    })
    .await;
    let mut client = gw.client().await;
    let bytes = vec![b'e'; 2 * CHUNK];
    client
        .send(begin("old", "old.txt", "text/plain", &bytes))
        .await;
    client.upload_reply("old").await;
    client.send_text(chunk("old", 0, &bytes[..CHUNK])).await;
    assert_eq!(client.upload_reply("old").await["offset"], CHUNK);
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Beginning another upload sweeps expired ones.
    client
        .send(begin("new", "new.txt", "text/plain", &bytes))
        .await;
    client.upload_reply("new").await;
    client.send_text(chunk("old", CHUNK, &bytes[CHUNK..])).await;
    assert_eq!(client.upload_reply("old").await["code"], "not_found");
    assert_eq!(temp_files(gw.dir.path()), 1, "only the new upload's file");
}

#[tokio::test]
async fn a_device_that_does_not_read_its_file_data_is_told_to_wait() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    // 80 chunks: one file.get queues more frames than a second may wait behind.
    let big: Vec<u8> = (0..80 * CHUNK).map(|i| b'a' + (i % 26) as u8).collect();
    let stored = client.upload("big", "big.txt", "text/plain", &big).await;
    let id = stored["file"]["file_id"].clone();
    for request_id in ["first", "second"] {
        client
            .send(json!({"type": "file.get", "request_id": request_id, "file_id": id}))
            .await;
    }
    let refused = client
        .until(|f| f["request_id"] == "second")
        .await
        .pop()
        .expect("reply");
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "rate_limited");
    let (bytes, _) = client
        .read_file(id.as_str().expect("id"), None)
        .await
        .expect("once read");
    assert_eq!(bytes.len(), big.len(), "asked again once the queue drained");
}

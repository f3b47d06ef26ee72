//! Files over a real socket (§13): upload in chunks with acknowledgements,
//! the stored reference, reading back, resume after a reconnect, dedup,
//! and the bytes on disk named by digest only.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::files::{begin, chunk, sha256_hex, CHUNK};
use crate::support::{Client, Gateway};

/// A PNG signature and header claiming `w` × `h`, then `tail` bytes.
pub fn png(w: u32, h: u32, tail: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(w.to_be_bytes());
    b.extend(h.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b.extend((0..tail).map(|i| (i % 251) as u8));
    b
}

/// Every regular file under the store folder, as paths relative to it.
pub fn stored_files(data_dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, root, out);
            } else {
                let rel = path.strip_prefix(root).expect("inside");
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    let root = data_dir.join("files");
    walk(&root, &root, &mut out);
    out.sort();
    out
}

#[tokio::test]
async fn ready_announces_the_limits() {
    let gw = Gateway::start(1).await;
    let client = gw.client().await;
    assert_eq!(
        client.ready["limits"],
        json!({"file_max_bytes": 20 * 1024 * 1024, "files_per_message": 10,
            "file_types": ["image/png", "image/jpeg", "image/gif", "image/webp", "text/plain",
                "application/pdf"]})
    );
}

#[tokio::test]
async fn an_upload_is_acknowledged_chunk_by_chunk_and_stored_by_its_bytes() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let bytes = png(640, 480, 3 * CHUNK);
    client
        .send(begin("u1", "holiday.txt", "text/plain", &bytes))
        .await;
    assert_eq!(
        client.upload_reply("u1").await,
        json!({"type": "file.accept", "upload_id": "u1", "offset": 0})
    );
    let mut acks = Vec::new();
    for start in (0..bytes.len()).step_by(CHUNK) {
        let end = (start + CHUNK).min(bytes.len());
        client
            .send_text(chunk("u1", start, &bytes[start..end]))
            .await;
        let ack = client.upload_reply("u1").await;
        assert_eq!(ack["type"], "file.accept", "{ack}");
        acks.push(ack["offset"].as_u64().expect("offset"));
    }
    assert_eq!(
        acks.last(),
        Some(&(bytes.len() as u64)),
        "the last ack is the size"
    );
    let stored = client.upload_reply("u1").await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    let file = &stored["file"];
    assert_eq!(file["name"], "holiday.txt");
    assert_eq!(
        file["mime"], "image/png",
        "sniffed, not the declared text/plain"
    );
    assert_eq!(
        (file["width"].clone(), file["height"].clone()),
        (json!(640), json!(480))
    );
    assert_eq!(file["size"], bytes.len());
    assert_eq!(file["sha256"], sha256_hex(&bytes));
    assert!(file["file_id"]
        .as_str()
        .is_some_and(|id| id.starts_with("f_")));

    let digest = sha256_hex(&bytes);
    assert_eq!(
        stored_files(gw.dir.path()),
        [format!("{}/{digest}", &digest[..2])],
        "one file named by its digest, nothing named by the uploader, no leftovers"
    );

    let file_id = file["file_id"].as_str().expect("id");
    let (read, frames) = client.read_file(file_id, None).await.expect("file.data");
    assert_eq!(read, bytes);
    assert_eq!(frames.len(), 4, "262,144 bytes a frame");
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame["offset"], i * CHUNK);
        assert_eq!(frame["size"], bytes.len());
        assert_eq!(frame["mime"], "image/png");
        assert_eq!(frame["last"], i == 3);
    }
    let (tail, _) = client
        .read_file(file_id, Some(CHUNK as u64 * 3))
        .await
        .expect("from an offset");
    assert_eq!(tail, bytes[3 * CHUNK..]);
}

#[tokio::test]
async fn the_same_bytes_are_kept_once_and_answered_at_once() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let bytes = b"the same notes\n".repeat(1000);
    let first = client
        .upload("a", "notes.md", "text/markdown", &bytes)
        .await;
    assert_eq!(first["type"], "file.stored", "{first}");
    client
        .send(begin("b", "copy.txt", "text/plain", &bytes))
        .await;
    let second = client.upload_reply("b").await;
    assert_eq!(
        second["type"], "file.stored",
        "no accept, no bytes: {second}"
    );
    assert_eq!(second["file"]["name"], "copy.txt");
    assert_eq!(second["file"]["mime"], "text/plain");
    assert_ne!(second["file"]["file_id"], first["file"]["file_id"]);
    assert_eq!(
        stored_files(gw.dir.path()).len(),
        1,
        "the bytes are kept once"
    );
    for reply in [&first, &second] {
        let id = reply["file"]["file_id"].as_str().expect("id");
        assert_eq!(client.read_file(id, None).await.expect("read").0, bytes);
    }
}

#[tokio::test]
async fn an_upload_resumes_after_a_reconnect() {
    let gw = Gateway::start(1).await;
    let bytes: Vec<u8> = (0..5 * CHUNK + 100)
        .map(|i| b'a' + (i % 26) as u8)
        .collect();
    let mut first = gw.client().await;
    first
        .send(begin("r1", "long.txt", "text/plain", &bytes))
        .await;
    assert_eq!(first.upload_reply("r1").await["offset"], 0);
    for start in [0, CHUNK] {
        first
            .send_text(chunk("r1", start, &bytes[start..start + CHUNK]))
            .await;
        assert_eq!(first.upload_reply("r1").await["offset"], start + CHUNK);
    }
    drop(first);

    let mut again = gw.client().await;
    again
        .send(begin("r1", "long.txt", "text/plain", &bytes))
        .await;
    let resumed = again.upload_reply("r1").await;
    assert_eq!(
        resumed,
        json!({"type": "file.accept", "upload_id": "r1", "offset": 2 * CHUNK})
    );
    let stored = again.send_from("r1", &bytes, 2 * CHUNK as u64).await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    let id = stored["file"]["file_id"].as_str().expect("id");
    assert_eq!(again.read_file(id, None).await.expect("read").0, bytes);
}

#[tokio::test]
async fn chunks_out_of_order_or_repeated_are_ignored_and_answered_with_the_offset() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let bytes: Vec<u8> = (0..3 * CHUNK).map(|i| b'0' + (i % 10) as u8).collect();
    client
        .send(begin("o1", "digits.txt", "text/plain", &bytes))
        .await;
    client.upload_reply("o1").await;
    // The second chunk first: ignored, offset 0 wanted.
    client
        .send_text(chunk("o1", CHUNK, &bytes[CHUNK..2 * CHUNK]))
        .await;
    assert_eq!(client.upload_reply("o1").await["offset"], 0);
    client.send_text(chunk("o1", 0, &bytes[..CHUNK])).await;
    assert_eq!(client.upload_reply("o1").await["offset"], CHUNK);
    // The first again: ignored.
    client.send_text(chunk("o1", 0, &bytes[..CHUNK])).await;
    assert_eq!(client.upload_reply("o1").await["offset"], CHUNK);
    let stored = client.send_from("o1", &bytes, CHUNK as u64).await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    let id = stored["file"]["file_id"].as_str().expect("id");
    assert_eq!(
        client.read_file(id, None).await.expect("read").0,
        bytes,
        "nothing doubled"
    );
}

#[tokio::test]
async fn unknown_uploads_and_files_are_not_found() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    client.send_text(chunk("nope", 0, b"x")).await;
    let error = client.upload_reply("nope").await;
    assert_eq!(
        (error["type"].clone(), error["code"].clone()),
        (json!("error"), json!("not_found"))
    );
    let error = client
        .read_file("f_nothing", None)
        .await
        .expect_err("no such file");
    assert_eq!(error["code"], "not_found");
    assert_eq!(error["request_id"], "get-f_nothing-None");
}

#[tokio::test]
async fn another_device_cannot_write_into_an_upload() {
    let gw = Gateway::start(1).await;
    let mut owner = gw.client().await;
    let bytes = b"mine".repeat(100);
    owner
        .send(begin("shared-id", "a.txt", "text/plain", &bytes))
        .await;
    owner.upload_reply("shared-id").await;
    let mut other = other_device(&gw).await;
    other.send_text(chunk("shared-id", 0, &bytes)).await;
    assert_eq!(other.upload_reply("shared-id").await["code"], "not_found");
    let stored = owner.send_from("shared-id", &bytes, 0).await;
    assert_eq!(stored["type"], "file.stored");
}

/// A device with its own `device_id`.
pub async fn other_device(gw: &Gateway) -> Client {
    let mut client = Client {
        ws: crate::support::open(&gw.ws_url()).await,
        ready: Value::Null,
    };
    client
        .send(json!({"type": "hello", "device_id": "other-device", "client": "t/0", "protocol": 1}))
        .await;
    client.ready = client.recv_type("ready").await;
    client
}

#[tokio::test]
async fn only_a_device_that_said_hello_reads_or_writes_files() {
    let gw = Gateway::start_with(1, |c| c.token = Some("s3cret".into())).await;
    let mut owner = Client::connect(&gw.ws_url(), Some("s3cret")).await;
    let stored = owner
        .upload("u1", "a.txt", "text/plain", b"private\n")
        .await;
    let file_id = stored["file"]["file_id"].clone();
    let mut stranger = Client {
        ws: crate::support::open(&gw.ws_url()).await,
        ready: Value::Null,
    };
    stranger
        .send(json!({"type": "file.get", "request_id": "r1", "file_id": file_id}))
        .await;
    let refused = stranger.recv().await;
    assert_eq!(refused["code"], "bad_request", "{refused}");
    stranger.send_text(chunk("u1", 0, b"x")).await;
    assert_eq!(stranger.recv().await["code"], "bad_request");
    stranger.send(crate::support::hello(Some("wrong"))).await;
    assert_eq!(stranger.recv().await["code"], "unauthorized");
}

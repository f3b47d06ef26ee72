//! Hostile files (§13): each gets a clear error or a safe result, nothing is
//! executed or served half-written, and the gateway keeps serving.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::files::{png, stored_files};
use crate::support::files::{begin, chunk, sha256_hex, CHUNK};
use crate::support::Gateway;

/// A JPEG start, a comment segment holding `comment`, and a frame header.
fn jpeg_with_comment(comment: &[u8], w: u16, h: u16) -> Vec<u8> {
    let mut b = vec![0xff, 0xd8, 0xff, 0xfe];
    b.extend(
        u16::try_from(comment.len() + 2)
            .expect("short")
            .to_be_bytes(),
    );
    b.extend(comment);
    b.extend([0xff, 0xc0, 0x00, 0x11, 0x08]);
    b.extend(h.to_be_bytes());
    b.extend(w.to_be_bytes());
    b.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]);
    b
}

#[tokio::test]
async fn an_svg_with_a_script_named_png_is_plain_text() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>"#;
    let stored = client.upload("svg", "cat.png", "image/png", svg).await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    assert_eq!(stored["file"]["mime"], "text/plain");
    assert!(stored["file"].get("width").is_none());
    let id = stored["file"]["file_id"].as_str().expect("id");
    let (bytes, frames) = client.read_file(id, None).await.expect("read");
    assert_eq!(bytes, svg, "kept byte for byte, as text");
    assert_eq!(frames[0]["mime"], "text/plain");
    // Declared as what it is, it is accepted as text too.
    let html = b"<!doctype html><script>alert(3)</script>";
    let stored = client.upload("html", "page.html", "text/html", html).await;
    assert_eq!(stored["file"]["mime"], "text/plain");
}

#[tokio::test]
async fn an_html_jpeg_polyglot_is_an_image_or_refused() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let polyglot = jpeg_with_comment(b"<html><script>alert(1)</script></html>", 32, 16);
    let stored = client
        .upload("p1", "pic.html", "text/html", &polyglot)
        .await;
    assert_eq!(stored["file"]["mime"], "image/jpeg", "{stored}");
    assert_eq!(
        (
            stored["file"]["width"].clone(),
            stored["file"]["height"].clone()
        ),
        (json!(32), json!(16))
    );
    let mut html_first = b"<html><img src=x onerror=alert(1)>".to_vec();
    html_first.extend(jpeg_with_comment(b"", 16, 16));
    let refused = client
        .upload("p2", "pic.jpg", "image/jpeg", &html_first)
        .await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "unsupported");
    assert_eq!(
        stored_files(gw.dir.path()).len(),
        1,
        "only the JPEG is kept"
    );
}

#[tokio::test]
async fn a_png_claiming_fifty_thousand_pixels_square_costs_nothing() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let bomb = png(50_000, 50_000, 64);
    let start = Instant::now();
    let stored = client.upload("bomb", "bomb.png", "image/png", &bomb).await;
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(stored["file"]["mime"], "image/png", "{stored}");
    assert_eq!(
        stored["file"]["width"], 50_000,
        "read from the header, never decoded"
    );
    assert_eq!(stored["file"]["height"], 50_000);
}

#[tokio::test]
async fn a_twenty_mib_text_on_one_line_is_stored_and_one_byte_more_is_refused() {
    let gw = Gateway::start_with(1, |c| c.frames_per_sec = 1000).await;
    let mut client = gw.client().await;
    let line = vec![b'x'; 20 * 1024 * 1024];
    let stored = client
        .upload("line", "one-line.txt", "text/plain", &line)
        .await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    assert_eq!(stored["file"]["mime"], "text/plain");
    assert_eq!(stored["file"]["size"], line.len());
    let mut over = line;
    over.push(b'x');
    client
        .send(begin("over", "more.txt", "text/plain", &over))
        .await;
    let refused = client.upload_reply("over").await;
    assert_eq!(
        (refused["type"].clone(), refused["code"].clone()),
        (json!("error"), json!("too_large"))
    );
}

#[tokio::test]
async fn bad_names_are_cleaned_and_never_reach_the_disk() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let long = format!("{}.txt", "n".repeat(500));
    let cases = [
        ("../../../etc/passwd", "passwd"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("nul\0byte.txt", "nulbyte.txt"),
        ("invoice\u{202e}fdp.exe", "invoicefdp.exe"),
        ("..", "file"),
    ];
    for (i, (name, cleaned)) in cases.iter().enumerate() {
        let bytes = format!("file {i}\n");
        let stored = client
            .upload(&format!("n{i}"), name, "text/plain", bytes.as_bytes())
            .await;
        assert_eq!(stored["file"]["name"], *cleaned, "{name:?}: {stored}");
    }
    let stored = client
        .upload("long", &long, "text/plain", b"long name\n")
        .await;
    let kept = stored["file"]["name"].as_str().expect("name");
    assert_eq!(kept.chars().count(), 200);
    assert!(kept.ends_with("….txt"), "{kept}");
    assert!(
        stored_files(gw.dir.path()).iter().all(|f| f.len() == 67),
        "only digests on disk: {:?}",
        stored_files(gw.dir.path())
    );
    assert!(!gw.dir.path().join("etc").exists());
}

#[tokio::test]
async fn a_wrong_sha256_is_refused_and_the_upload_starts_over() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let bytes = b"what was sent\n".repeat(100);
    let mut lying = begin("w1", "a.txt", "text/plain", &bytes);
    lying["sha256"] = json!(sha256_hex(b"something else"));
    client.send(lying).await;
    client.upload_reply("w1").await;
    client.send_text(chunk("w1", 0, &bytes)).await;
    assert_eq!(
        client.upload_reply("w1").await["offset"],
        bytes.len(),
        "all bytes in"
    );
    let error = client.upload_reply("w1").await;
    assert_eq!(
        (error["code"].clone(), error["upload_id"].clone()),
        (json!("bad_request"), json!("w1"))
    );
    // It starts over: offset 0 is wanted again, and nothing was stored.
    client
        .send_text(chunk("w1", bytes.len() / 2, &bytes[..10]))
        .await;
    assert_eq!(client.upload_reply("w1").await["offset"], 0);
    assert!(stored_files(gw.dir.path())
        .iter()
        .all(|f| f.starts_with("tmp")));
    // A digest that is not one is refused at once.
    let mut malformed = begin("w2", "a.txt", "text/plain", &bytes);
    malformed["sha256"] = json!("ZZ");
    client.send(malformed).await;
    assert_eq!(client.upload_reply("w2").await["code"], "bad_request");
}

#[tokio::test]
async fn a_chunk_past_the_size_is_refused_and_the_upload_goes_on() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let bytes = b"0123456789".repeat(10);
    client
        .send(begin("s1", "a.txt", "text/plain", &bytes))
        .await;
    client.upload_reply("s1").await;
    let mut longer = bytes.clone();
    longer.extend(b"overflow");
    client.send_text(chunk("s1", 0, &longer)).await;
    let error = client.upload_reply("s1").await;
    assert_eq!(
        (error["code"].clone(), error["upload_id"].clone()),
        (json!("bad_request"), json!("s1"))
    );
    client
        .send(json!({"type": "file.chunk", "upload_id": "s1", "offset": 0, "data": "!!not base64"}))
        .await;
    assert_eq!(client.upload_reply("s1").await["code"], "bad_request");
    let oversized = vec![b'a'; CHUNK + 1];
    client.send_text(chunk("s1", 0, &oversized)).await;
    assert_eq!(client.upload_reply("s1").await["code"], "bad_request");
    let stored = client.send_from("s1", &bytes, 0).await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
}

#[tokio::test]
async fn types_not_taken_are_refused_at_begin_or_after_the_bytes() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    client
        .send(begin("v1", "film.mp4", "video/mp4", b"....ftypmp42"))
        .await;
    assert_eq!(client.upload_reply("v1").await["code"], "unsupported");
    let zip = b"PK\x03\x04\x14\0\0\0\x08\0binary\0\x01\x02".to_vec();
    let refused = client.upload("z1", "notes.txt", "text/plain", &zip).await;
    assert_eq!(
        (refused["code"].clone(), refused["upload_id"].clone()),
        (json!("unsupported"), json!("z1"))
    );
    client.send_text(chunk("z1", 0, &zip)).await;
    assert_eq!(
        client.upload_reply("z1").await["code"],
        "not_found",
        "the upload was dropped"
    );
    assert!(
        stored_files(gw.dir.path()).is_empty(),
        "nothing kept, nothing half-written"
    );
    let pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";
    let stored = client.upload("pdf", "paper.pdf", "", pdf).await;
    assert_eq!(stored["file"]["mime"], "application/pdf", "{stored}");
}

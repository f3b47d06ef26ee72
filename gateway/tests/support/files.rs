//! A device's side of §13: uploads with a window of unacknowledged chunks,
//! and reading a file back.

use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::Client;

pub const CHUNK: usize = 262_144;
const WINDOW: u64 = 4;

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub fn unb64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64")
}

pub fn begin(upload_id: &str, name: &str, mime: &str, bytes: &[u8]) -> Value {
    json!({"type": "file.begin", "upload_id": upload_id, "name": name, "mime": mime,
        "size": bytes.len(), "sha256": sha256_hex(bytes)})
}

/// A `file.chunk` in the field order the client's protocol crate writes
/// (`type` first). Written by hand: base64 needs no JSON escaping, and the
/// escaping loop of this debug build would otherwise be what the upload
/// bench measures (a browser's client is a release build).
pub fn chunk(upload_id: &str, offset: usize, bytes: &[u8]) -> String {
    format!(
        r#"{{"type":"file.chunk","upload_id":{},"offset":{offset},"data":"{}"}}"#,
        json!(upload_id),
        b64(bytes)
    )
}

/// Whether `frame` is an answer about the upload `upload_id`.
pub fn about(frame: &Value, upload_id: &str) -> bool {
    frame["upload_id"] == upload_id
        && matches!(
            frame["type"].as_str(),
            Some("file.accept" | "file.stored" | "error")
        )
}

impl Client {
    /// The next answer about `upload_id`.
    pub async fn upload_reply(&mut self, upload_id: &str) -> Value {
        self.until(|f| about(f, upload_id))
            .await
            .pop()
            .expect("reply")
    }

    /// Sends one chunk and returns its answer, waiting out the chunk rate
    /// limit (`rate_limited`) as a well-behaved device does.
    pub async fn chunk_within_limit(
        &mut self,
        upload_id: &str,
        offset: usize,
        bytes: &[u8],
    ) -> Value {
        loop {
            self.send_text(chunk(upload_id, offset, bytes)).await;
            let reply = self.upload_reply(upload_id).await;
            if reply["code"] != "rate_limited" {
                return reply;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// Uploads `bytes` whole; returns `file.stored` or the error that ended it.
    pub async fn upload(&mut self, upload_id: &str, name: &str, mime: &str, bytes: &[u8]) -> Value {
        self.send(begin(upload_id, name, mime, bytes)).await;
        let first = self.upload_reply(upload_id).await;
        if first["type"] != "file.accept" {
            return first;
        }
        let from = first["offset"].as_u64().expect("offset");
        self.send_from(upload_id, bytes, from).await
    }

    /// Sends `bytes` from `from` with at most four chunks unacknowledged,
    /// going back to any offset the gateway asks for.
    pub async fn send_from(&mut self, upload_id: &str, bytes: &[u8], from: u64) -> Value {
        let len = bytes.len() as u64;
        let (mut acked, mut sent) = (from, from);
        loop {
            while sent < len && sent - acked < WINDOW * CHUNK as u64 {
                let start = usize::try_from(sent).expect("offset");
                let end = (start + CHUNK).min(bytes.len());
                self.send_text(chunk(upload_id, start, &bytes[start..end]))
                    .await;
                sent = end as u64;
            }
            let reply = self.upload_reply(upload_id).await;
            if reply["type"] != "file.accept" {
                return reply;
            }
            let offset = reply["offset"].as_u64().expect("offset");
            if offset < acked || offset > sent {
                sent = offset;
            }
            acked = offset;
        }
    }

    /// Reads a stored file back with `file.get`: its bytes and every
    /// `file.data` frame (without their data), or the error.
    pub async fn read_file(
        &mut self,
        file_id: &str,
        offset: Option<u64>,
    ) -> Result<(Vec<u8>, Vec<Value>), Value> {
        let request_id = format!("get-{file_id}-{offset:?}");
        let mut get = json!({"type": "file.get", "request_id": request_id, "file_id": file_id});
        if let Some(offset) = offset {
            get["offset"] = json!(offset);
        }
        self.send(get).await;
        let mut bytes = Vec::new();
        let mut frames = Vec::new();
        loop {
            let mut frame = self
                .until(|f| f["request_id"] == request_id)
                .await
                .pop()
                .expect("reply");
            if frame["type"] == "error" {
                return Err(frame);
            }
            bytes.extend(unb64(frame["data"].as_str().expect("data")));
            frame["data"] = json!(null);
            let last = frame["last"] == true;
            frames.push(frame);
            if last {
                return Ok((bytes, frames));
            }
        }
    }
}

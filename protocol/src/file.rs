//! Files (§13): chunked, resumable uploads over the WebSocket, the stored
//! file's reference, and reading a stored file back.

use serde::{Deserialize, Deserializer, Serialize};

/// Most bytes one `file.chunk` or `file.data` carries (before base64).
pub const MAX_CHUNK_BYTES: usize = 262_144;
/// Most `file.chunk` frames a client keeps unacknowledged.
pub const MAX_UNACKED_CHUNKS: usize = 4;

/// A stored file as messages carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    pub file_id: String,
    pub name: String,
    /// The type sniffed from the bytes by the gateway (never the uploader's).
    pub mime: String,
    pub size: u64,
    /// Lowercase hex SHA-256 of the bytes.
    pub sha256: String,
    /// Pixels, for images, from the image header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
}

/// `file.begin` (c→s): starts an upload, or resumes it with the same
/// `upload_id`. `name` and `mime` are what the browser says (hints only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileBegin {
    pub upload_id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
    pub sha256: String,
}

/// `file.accept` (s→c): the end of the bytes the gateway holds, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileAccept {
    pub upload_id: String,
    pub offset: u64,
}

/// `file.chunk` (c→s): standard padded base64 of at most
/// [`MAX_CHUNK_BYTES`] bytes starting at `offset`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChunk {
    pub upload_id: String,
    pub offset: u64,
    pub data: String,
}

/// `file.stored` (s→c): the upload is complete and checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStored {
    pub upload_id: String,
    pub file: FileRef,
}

/// `file.get` (c→s): asks for a stored file's bytes from `offset` on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileGet {
    pub request_id: String,
    pub file_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
}

/// `file.data` (s→c): one chunk of a stored file, to the asking device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileData {
    pub request_id: String,
    pub file_id: String,
    pub offset: u64,
    /// Standard padded base64 of at most [`MAX_CHUNK_BYTES`] bytes.
    pub data: String,
    /// The whole file's size.
    pub size: u64,
    pub mime: String,
    /// Set on the final chunk.
    pub last: bool,
}

/// `ready.limits`: what a gateway with files accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub file_max_bytes: u64,
    pub files_per_message: u32,
    /// Accepted stored types; `text/plain` stands for every text file.
    #[serde(default)]
    pub file_types: Vec<String>,
}

/// Whether `s` is a SHA-256 digest as §13 writes it: 64 lowercase hex digits.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Reads an item's `files` leniently: a reference that does not decode is
/// dropped, so neither the item nor its other files are lost over it.
pub(crate) fn lenient_files<'de, D: Deserializer<'de>>(d: D) -> Result<Box<[FileRef]>, D::Error> {
    let Some(serde_json::Value::Array(values)) = Option::<serde_json::Value>::deserialize(d)?
    else {
        return Ok(Box::default());
    };
    Ok(values
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect())
}

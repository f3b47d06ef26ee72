//! One upload in progress: what the device announced, the bytes received
//! so far (in order, in a file of the temporary area) and their running
//! digest, so a resumed upload goes on where it stopped.

use std::fs::File;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

/// What `file.begin` announced, the name already cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announced {
    pub name: String,
    pub size: u64,
    pub sha256: String,
}

/// The received bytes' file and digest, moved to a blocking task while a
/// chunk is written.
pub struct Part {
    pub file: File,
    pub hasher: Sha256,
}

pub struct Upload {
    pub announced: Announced,
    pub received: u64,
    pub temp: PathBuf,
    /// `None` only while a blocking task holds it, or once closed.
    pub part: Option<Part>,
    /// Set when the upload was dropped (expired, evicted, failed): a chunk
    /// that waited for it finds it gone.
    pub closed: bool,
}

impl Upload {
    pub fn new(announced: Announced, temp: PathBuf, file: File) -> Self {
        Self {
            announced,
            received: 0,
            temp,
            part: Some(Part {
                file,
                hasher: Sha256::new(),
            }),
            closed: false,
        }
    }

    /// Drops the bytes; returns how many there were (to release from the quota).
    pub fn close(&mut self) -> u64 {
        if self.closed {
            return 0;
        }
        self.closed = true;
        self.part = None;
        // Already gone is fine: the temporary area may have been cleared.
        let _ = std::fs::remove_file(&self.temp);
        std::mem::take(&mut self.received)
    }
}

/// Lowercase hex of a finished digest.
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

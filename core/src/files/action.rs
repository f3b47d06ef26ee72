//! What the file logic asks the app to do.

use crate::protocol::{ClientFrame, FileRef};

#[derive(Debug, Clone, PartialEq)]
pub enum FileAction {
    /// Send this frame (dropped when offline: uploads and reads resume on
    /// the next `ready`).
    Send(ClientFrame),
    /// Send the bytes `offset..end` of this upload's file as a `file.chunk`
    /// (the app holds the bytes; see [`crate::files::chunk_frame`]).
    SendChunk {
        upload_id: String,
        offset: u64,
        end: u64,
    },
    /// Call [`crate::files::Files::wake`] with this after `ms` milliseconds.
    Later { ms: u32, wake: Wake },
    /// This upload's progress or state changed: the view reads it again.
    Changed(String),
    /// This upload ended (stored, failed or cancelled): the app may let go
    /// of its bytes.
    Ended(String),
    /// Every file of the waiting message is stored: send it, now and once.
    SendMessage {
        /// The thread it was written in (`None`: the new thread pane).
        channel: Option<String>,
        text: String,
        files: Vec<FileRef>,
    },
    /// A stored file's bytes, read whole with `file.get`.
    Downloaded {
        file_id: String,
        mime: String,
        bytes: Vec<u8>,
    },
    /// A stored file could not be read.
    DownloadFailed { file_id: String, why: String },
}

/// What a timer of [`FileAction::Later`] is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wake {
    /// An upload paused by `rate_limited` goes on.
    Upload(String),
    /// Reads paused by `rate_limited` go on.
    Downloads,
}

//! One upload (§13) as a state machine: its digest, `file.begin`, the
//! window of unacknowledged chunks moved by each `file.accept`, and the
//! end: stored, failed or cancelled. After a lost connection it begins
//! again with the same `upload_id` and goes on from the offset the gateway
//! holds.

use crate::protocol::{
    ClientFrame, ErrorCode, FileBegin, FileRef, MAX_CHUNK_BYTES, MAX_UNACKED_CHUNKS,
};

/// How long an upload waits after `rate_limited` before it goes on.
pub const RATE_LIMIT_PAUSE_MS: u32 = 200;

#[derive(Debug, Clone, PartialEq)]
pub enum UploadState {
    /// The digest is being computed.
    Hashing,
    /// `file.begin` is sent (or waits for the connection); no answer yet.
    Beginning,
    /// Chunks are going out.
    Sending,
    /// Paused by `rate_limited`; goes on when woken.
    Paused,
    Stored(FileRef),
    /// The sentence says why (names the file).
    Failed(String),
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Upload {
    pub upload_id: String,
    /// The browser's name and type (hints for the gateway).
    pub name: String,
    pub mime: String,
    pub size: u64,
    sha256: Option<String>,
    /// The gateway holds the bytes before this offset.
    acked: u64,
    /// Bytes before this offset were sent (or are held).
    sent: u64,
    /// A `not_found` for a chunk already made this upload begin again once.
    restarted: bool,
    pub state: UploadState,
}

/// A range of the file to send as one `file.chunk`.
pub type Range = (u64, u64);

impl Upload {
    pub fn new(upload_id: String, name: String, mime: String, size: u64) -> Self {
        Self {
            upload_id,
            name,
            mime,
            size,
            sha256: None,
            acked: 0,
            sent: 0,
            restarted: false,
            state: UploadState::Hashing,
        }
    }

    /// Bytes the gateway holds.
    pub fn acked(&self) -> u64 {
        self.acked
    }

    /// Whether it has ended (its bytes are no longer needed).
    /// Chunks are out that the gateway has not acknowledged yet.
    pub fn has_unacknowledged(&self) -> bool {
        self.state == UploadState::Sending && self.sent > self.acked
    }

    pub fn is_over(&self) -> bool {
        matches!(
            self.state,
            UploadState::Stored(_) | UploadState::Failed(_) | UploadState::Cancelled
        )
    }

    pub fn stored(&self) -> Option<&FileRef> {
        match &self.state {
            UploadState::Stored(f) => Some(f),
            _ => None,
        }
    }

    /// The digest is known: the `file.begin` to send.
    pub fn hashed(&mut self, sha256: String) -> Option<ClientFrame> {
        if self.state != UploadState::Hashing {
            return None;
        }
        self.sha256 = Some(sha256);
        self.state = UploadState::Beginning;
        self.begin_frame()
    }

    /// The digest could not be computed (the file could not be read).
    pub fn unreadable(&mut self, why: &str) {
        if !self.is_over() {
            self.state = UploadState::Failed(format!("{}: {why}", self.shown_name()));
        }
    }

    /// `file.begin` again, for a new connection: the gateway answers with
    /// the offset it holds. `None` while hashing or once over.
    pub fn resume(&mut self) -> Option<ClientFrame> {
        if self.is_over() || self.state == UploadState::Hashing {
            return None;
        }
        self.state = UploadState::Beginning;
        self.sent = self.acked;
        self.begin_frame()
    }

    fn begin_frame(&self) -> Option<ClientFrame> {
        Some(ClientFrame::FileBegin(FileBegin {
            upload_id: self.upload_id.clone(),
            name: self.name.clone(),
            mime: self.mime.clone(),
            size: self.size,
            sha256: self.sha256.clone()?,
        }))
    }

    /// `file.accept {offset}`: the chunks to send now, keeping at most
    /// [`MAX_UNACKED_CHUNKS`] unacknowledged. An offset behind what was
    /// acknowledged or past what was sent is where the gateway wants the
    /// bytes from: sending goes back (or on) to it.
    pub fn on_accept(&mut self, offset: u64) -> Vec<Range> {
        if self.is_over() || self.state == UploadState::Hashing {
            return Vec::new();
        }
        let offset = offset.min(self.size);
        if offset < self.acked || offset > self.sent {
            self.sent = offset;
        }
        self.acked = offset;
        if self.state == UploadState::Paused {
            return Vec::new();
        }
        self.state = UploadState::Sending;
        self.fill_window()
    }

    fn fill_window(&mut self) -> Vec<Range> {
        let chunk = MAX_CHUNK_BYTES as u64;
        let window = chunk * MAX_UNACKED_CHUNKS as u64;
        let mut out = Vec::new();
        while self.sent < self.size && self.sent - self.acked < window {
            let end = (self.sent + chunk).min(self.size);
            out.push((self.sent, end));
            self.sent = end;
        }
        out
    }

    /// `file.stored`: done.
    pub fn on_stored(&mut self, file: FileRef) {
        if matches!(self.state, UploadState::Cancelled | UploadState::Failed(_)) {
            return;
        }
        self.acked = self.size;
        self.sent = self.size;
        self.state = UploadState::Stored(file);
    }

    /// `error {upload_id}`. Returns what to do next.
    pub fn on_error(&mut self, code: ErrorCode, message: &str) -> AfterError {
        if self.is_over() {
            return AfterError::Nothing;
        }
        match code {
            ErrorCode::RateLimited => {
                // The chunk was dropped, and those after it will be
                // answered with its offset: go back to it after a pause.
                self.state = UploadState::Paused;
                self.sent = self.acked;
                AfterError::Later(RATE_LIMIT_PAUSE_MS)
            }
            // The gateway no longer knows the upload (dropped while this
            // device was away): it starts over, once.
            ErrorCode::NotFound if !self.restarted => {
                self.restarted = true;
                self.acked = 0;
                match self.resume() {
                    Some(begin) => AfterError::Send(begin),
                    None => AfterError::Nothing,
                }
            }
            code => {
                self.state = UploadState::Failed(self.failure(code, message));
                AfterError::Nothing
            }
        }
    }

    /// A paused upload goes on from what the gateway holds.
    pub fn wake(&mut self) -> Vec<Range> {
        if self.state != UploadState::Paused {
            return Vec::new();
        }
        self.state = UploadState::Sending;
        self.sent = self.acked;
        self.fill_window()
    }

    pub fn cancel(&mut self) {
        if !self.is_over() {
            self.state = UploadState::Cancelled;
        }
    }

    fn shown_name(&self) -> String {
        super::display::safe_name(&self.name)
    }

    fn failure(&self, code: ErrorCode, message: &str) -> String {
        let name = self.shown_name();
        let why = match code {
            ErrorCode::TooLarge => "too large for the gateway",
            ErrorCode::Unsupported => "the gateway does not take this type of file",
            ErrorCode::BadRequest => "the gateway refused it",
            _ => "the upload failed",
        };
        // The gateway's sentence is data: shown as text, kept short.
        let detail: String = message
            .chars()
            .filter(|c| !c.is_control())
            .take(160)
            .collect();
        if detail.trim().is_empty() {
            format!("{name}: {why}.")
        } else {
            format!("{name}: {why} ({}).", detail.trim())
        }
    }
}

/// What an error leaves an upload to do.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterError {
    Nothing,
    Send(ClientFrame),
    /// Wake it after this many milliseconds.
    Later(u32),
}

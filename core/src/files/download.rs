//! Reading stored files back (`file.get` → `file.data` chunks), a few at a
//! time: a thread of many images asks for each once it is on screen, and
//! the gateway answers `rate_limited` to a device that asks too fast. A read
//! cut by a lost connection goes on from the bytes it has.

use std::collections::VecDeque;

use super::action::{FileAction, Wake};
use super::wire::decode_data;
use crate::protocol::{ClientFrame, ErrorCode, FileData, FileGet};

/// Reads in flight at once.
const MAX_ACTIVE: usize = 2;
/// How long reads wait after `rate_limited`.
const RATE_LIMIT_PAUSE_MS: u32 = 500;
/// Reads started between pauses of [`WINDOW_MS`]: at most ten a second on
/// average. A fast scroll through a thread of images mounts one thumbnail
/// after another and each read is a frame; unpaced they spent the whole of
/// the connection's frame budget (the reference gateway's is 20 a second),
/// and a page of history asked meanwhile was refused.
const READS_PER_WINDOW: u32 = 10;
const WINDOW_MS: u32 = 1000;
/// Most bytes one read may gather, whatever the gateway says: more than
/// any file a gateway takes by §13's default, and a bound on memory.
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug)]
struct Read {
    request_id: String,
    file_id: String,
    bytes: Vec<u8>,
    /// Sent and not answered on this connection.
    asked: bool,
}

#[derive(Debug, Default)]
pub struct Downloads {
    active: Vec<Read>,
    queue: VecDeque<String>,
    next_id: u64,
    online: bool,
    paused: bool,
    /// Reads started since the last pause.
    started: u32,
}

impl Downloads {
    pub fn new(online: bool) -> Self {
        Self {
            online,
            ..Self::default()
        }
    }

    /// Asks for a stored file's bytes (once, however often it is asked).
    pub fn want(&mut self, file_id: &str) -> Vec<FileAction> {
        let known = self.active.iter().any(|r| r.file_id == file_id)
            || self.queue.iter().any(|q| q == file_id);
        if !known {
            self.queue.push_back(file_id.to_string());
        }
        self.start()
    }

    /// No longer needed (its row left the screen before it came).
    pub fn forget(&mut self, file_id: &str) {
        self.queue.retain(|q| q != file_id);
    }

    /// Whether this `request_id` is one of these reads.
    pub fn owns(&self, request_id: &str) -> bool {
        self.active.iter().any(|r| r.request_id == request_id)
    }

    pub fn online(&mut self) -> Vec<FileAction> {
        self.online = true;
        self.paused = false;
        for r in &mut self.active {
            r.asked = false;
        }
        self.start()
    }

    pub fn connection_lost(&mut self) {
        self.online = false;
        for r in &mut self.active {
            r.asked = false;
        }
    }

    pub fn wake(&mut self) -> Vec<FileAction> {
        self.paused = false;
        self.started = 0;
        self.start()
    }

    /// Sends the reads that may go now: those cut by a lost connection
    /// (from the bytes they hold), then new ones up to [`MAX_ACTIVE`] and
    /// [`READS_PER_WINDOW`].
    fn start(&mut self) -> Vec<FileAction> {
        if !self.online || self.paused {
            return Vec::new();
        }
        let mut out = Vec::new();
        while self.active.len() < MAX_ACTIVE && !self.queue.is_empty() {
            if self.started >= READS_PER_WINDOW {
                // The rest wait for the next window (re-asks still go).
                self.paused = true;
                out.push(FileAction::Later {
                    ms: WINDOW_MS,
                    wake: Wake::Downloads,
                });
                break;
            }
            let Some(file_id) = self.queue.pop_front() else {
                break;
            };
            self.started += 1;
            let request_id = self.new_request_id();
            self.active.push(Read {
                request_id,
                file_id,
                bytes: Vec::new(),
                asked: false,
            });
        }
        for r in self.active.iter_mut().filter(|r| !r.asked) {
            r.asked = true;
            out.push(FileAction::Send(ClientFrame::FileGet(FileGet {
                request_id: r.request_id.clone(),
                file_id: r.file_id.clone(),
                offset: (!r.bytes.is_empty()).then_some(r.bytes.len() as u64),
            })));
        }
        out
    }

    /// One `file.data` chunk. A chunk that is not where the read stands,
    /// not base64, or past the file's size fails the read.
    pub fn on_data(&mut self, d: FileData) -> Vec<FileAction> {
        let Some(i) = self
            .active
            .iter()
            .position(|r| r.request_id == d.request_id)
        else {
            return Vec::new();
        };
        let read = &mut self.active[i];
        let fits = d.file_id == read.file_id
            && d.offset == read.bytes.len() as u64
            && d.size <= MAX_READ_BYTES;
        let bytes = decode_data(&d.data).filter(|_| fits);
        let mut out = Vec::new();
        match bytes {
            Some(b) if read.bytes.len() as u64 + b.len() as u64 <= d.size => {
                read.bytes.extend(b);
                if d.last {
                    let read = self.active.remove(i);
                    if read.bytes.len() as u64 == d.size {
                        out.push(FileAction::Downloaded {
                            file_id: read.file_id,
                            mime: d.mime,
                            bytes: read.bytes,
                        });
                    } else {
                        out.push(failed(read.file_id, "the file came back incomplete"));
                    }
                }
            }
            _ => {
                let read = self.active.remove(i);
                out.push(failed(
                    read.file_id,
                    "the gateway sent bytes that do not fit",
                ));
            }
        }
        out.extend(self.start());
        out
    }

    /// `error {request_id}` for one of these reads.
    pub fn on_error(&mut self, request_id: &str, code: ErrorCode) -> Vec<FileAction> {
        let Some(i) = self.active.iter().position(|r| r.request_id == request_id) else {
            return Vec::new();
        };
        if code == ErrorCode::RateLimited {
            self.active[i].asked = false;
            self.paused = true;
            return vec![FileAction::Later {
                ms: RATE_LIMIT_PAUSE_MS,
                wake: Wake::Downloads,
            }];
        }
        let read = self.active.remove(i);
        let why = if code == ErrorCode::NotFound {
            "the gateway no longer has this file"
        } else {
            "the gateway could not send this file"
        };
        let mut out = vec![failed(read.file_id, why)];
        out.extend(self.start());
        out
    }

    fn new_request_id(&mut self) -> String {
        self.next_id += 1;
        format!("fg{}", self.next_id)
    }

    /// `rate_limited` that names no request: a gateway may refuse any frame
    /// over its limit without saying which (§7 makes `request_id`
    /// optional). A read that has had no answer may be the one refused and
    /// would wait for ever: each is asked again after the pause under a new
    /// `request_id`, so a late answer to the old one is left alone.
    pub fn on_unnamed_rate_limit(&mut self) -> Vec<FileAction> {
        let unanswered: Vec<usize> = (0..self.active.len())
            .filter(|&i| self.active[i].asked && self.active[i].bytes.is_empty())
            .collect();
        if unanswered.is_empty() {
            return Vec::new();
        }
        for i in unanswered {
            self.active[i].request_id = self.new_request_id();
            self.active[i].asked = false;
        }
        self.paused = true;
        vec![FileAction::Later {
            ms: RATE_LIMIT_PAUSE_MS,
            wake: Wake::Downloads,
        }]
    }
}

fn failed(file_id: String, why: &str) -> FileAction {
    FileAction::DownloadFailed {
        file_id,
        why: why.to_string(),
    }
}

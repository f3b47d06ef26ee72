//! [`Files`]: the uploads of the message being written, the reads of
//! stored files, the gateway's limits, and the message that waits for its
//! files. [`Files::route`] keeps the frames about files and hands every
//! other frame on to the store.

use super::action::{FileAction, Wake};
use super::download::Downloads;
use super::upload::{AfterError, Range, Upload, UploadState};
use crate::protocol::{ErrorCode, ErrorFrame, FileRef, Limits, ServerFrame};

#[derive(Debug, Default)]
pub struct Files {
    uploads: Vec<Upload>,
    downloads: Downloads,
    /// The last `ready.limits` (`None`: the gateway takes no files, or has
    /// not said yet).
    limits: Option<Limits>,
    online: bool,
    waiting: Option<Waiting>,
}

/// A message sent while its files were still uploading.
#[derive(Debug)]
struct Waiting {
    channel: Option<String>,
    text: String,
    upload_ids: Vec<String>,
}

/// An upload as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub name: String,
    pub mime: String,
    pub size: u64,
    /// Bytes the gateway holds.
    pub done: u64,
    pub state: UploadState,
}

impl Files {
    /// Files for a connection that is `online` with these `limits` (made
    /// when first needed, after `ready`).
    pub fn new(limits: Option<Limits>, online: bool) -> Self {
        Self {
            limits,
            online,
            downloads: Downloads::new(online),
            ..Self::default()
        }
    }

    pub fn limits(&self) -> Option<&Limits> {
        self.limits.as_ref()
    }

    /// Whether one more file may be attached to the `attached` ones.
    pub fn check(&self, attached: usize, name: &str, mime: &str, size: u64) -> Result<(), String> {
        super::limits::check(self.limits.as_ref(), attached, name, mime, size)
    }

    /// A new upload; its digest comes with [`Files::hashed`].
    pub fn add(&mut self, upload_id: String, name: String, mime: String, size: u64) {
        self.uploads.push(Upload::new(upload_id, name, mime, size));
    }

    pub fn progress(&self, upload_id: &str) -> Option<Progress> {
        self.find(upload_id).map(|u| Progress {
            name: u.name.clone(),
            mime: u.mime.clone(),
            size: u.size,
            done: u.acked(),
            state: u.state.clone(),
        })
    }

    /// Whether a message waits for its files.
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    pub fn hashed(&mut self, upload_id: &str, sha256: String) -> Vec<FileAction> {
        let online = self.online;
        let Some(u) = self.find_mut(upload_id) else {
            return Vec::new();
        };
        let begin = u.hashed(sha256);
        let mut out = vec![FileAction::Changed(upload_id.to_string())];
        if let (true, Some(begin)) = (online, begin) {
            out.push(FileAction::Send(begin));
        }
        out
    }

    /// The file could not be read or hashed.
    pub fn unreadable(&mut self, upload_id: &str, why: &str) -> Vec<FileAction> {
        if let Some(u) = self.find_mut(upload_id) {
            u.unreadable(why);
        }
        self.ended(upload_id)
    }

    /// The user took the file off the message (cancelling its upload).
    pub fn remove(&mut self, upload_id: &str) -> Vec<FileAction> {
        if let Some(u) = self.find_mut(upload_id) {
            u.cancel();
        }
        self.uploads.retain(|u| u.upload_id != upload_id);
        if let Some(w) = &mut self.waiting {
            w.upload_ids.retain(|id| id != upload_id);
        }
        let mut out = vec![
            FileAction::Changed(upload_id.to_string()),
            FileAction::Ended(upload_id.to_string()),
        ];
        out.extend(self.release_waiting());
        out
    }

    /// Sends `text` with these uploads' files once all are stored: at once
    /// if they are, else when the last one is (exactly once). An upload
    /// that failed or is unknown holds the message, with a sentence.
    pub fn send_when_stored(
        &mut self,
        channel: Option<String>,
        text: String,
        upload_ids: Vec<String>,
    ) -> Result<Vec<FileAction>, String> {
        for id in &upload_ids {
            match self.find(id) {
                Some(u) if !matches!(u.state, UploadState::Failed(_) | UploadState::Cancelled) => {}
                Some(u) => {
                    return Err(format!(
                        "{} was not uploaded: remove it to send the message.",
                        super::display::safe_name(&u.name)
                    ))
                }
                None => return Err("A file of the message is gone: attach it again.".into()),
            }
        }
        self.waiting = Some(Waiting {
            channel,
            text,
            upload_ids,
        });
        Ok(self.release_waiting())
    }

    /// The message waiting for its files: its thread and text.
    pub fn waiting(&self) -> Option<(Option<&str>, &str)> {
        self.waiting
            .as_ref()
            .map(|w| (w.channel.as_deref(), w.text.as_str()))
    }

    /// The waiting message goes back to being a draft.
    pub fn hold_send(&mut self) {
        self.waiting = None;
    }

    /// Takes the frames about files: the actions they lead to, and the
    /// frame back when the store should see it too (`ready`, every frame
    /// that is not about files).
    pub fn route(&mut self, frame: ServerFrame) -> (Vec<FileAction>, Option<ServerFrame>) {
        use ServerFrame as F;
        match frame {
            F::Ready(r) => {
                self.limits = r.limits.clone();
                (self.connected(), Some(F::Ready(r)))
            }
            F::FileAccept(a) => (self.on_accept(&a.upload_id, a.offset), None),
            F::FileStored(s) => (self.on_stored(&s.upload_id, s.file), None),
            F::FileData(d) => (self.downloads.on_data(d), None),
            F::Error(e) if self.owns_error(&e) => (self.on_error(e), None),
            F::Error(e) if is_unnamed_rate_limit(&e) => {
                (self.on_unnamed_rate_limit(), Some(F::Error(e)))
            }
            frame => (Vec::new(), Some(frame)),
        }
    }

    pub fn connection_lost(&mut self) {
        self.online = false;
        self.downloads.connection_lost();
    }

    /// Asks for a stored file's bytes ([`FileAction::Downloaded`] later).
    pub fn want(&mut self, file_id: &str) -> Vec<FileAction> {
        self.downloads.want(file_id)
    }

    pub fn forget(&mut self, file_id: &str) {
        self.downloads.forget(file_id);
    }

    pub fn wake(&mut self, wake: Wake) -> Vec<FileAction> {
        match wake {
            Wake::Downloads => self.downloads.wake(),
            Wake::Upload(id) => match self.find_mut(&id) {
                Some(u) => {
                    let ranges = u.wake();
                    chunks(&id, ranges)
                }
                None => Vec::new(),
            },
        }
    }

    // ----- frames -----

    /// A new connection: every unfinished upload begins again (the gateway
    /// answers the offset it holds), and cut reads go on.
    fn connected(&mut self) -> Vec<FileAction> {
        self.online = true;
        let mut out: Vec<FileAction> = self
            .uploads
            .iter_mut()
            .filter_map(|u| u.resume())
            .map(FileAction::Send)
            .collect();
        out.extend(self.downloads.online());
        out
    }

    fn on_accept(&mut self, upload_id: &str, offset: u64) -> Vec<FileAction> {
        let Some(u) = self.find_mut(upload_id) else {
            return Vec::new();
        };
        let ranges = u.on_accept(offset);
        let mut out = chunks(upload_id, ranges);
        out.push(FileAction::Changed(upload_id.to_string()));
        out
    }

    fn on_stored(&mut self, upload_id: &str, file: FileRef) -> Vec<FileAction> {
        match self.find_mut(upload_id) {
            Some(u) => u.on_stored(file),
            None => return Vec::new(),
        }
        let mut out = self.ended(upload_id);
        out.extend(self.release_waiting());
        out
    }

    fn owns_error(&self, e: &ErrorFrame) -> bool {
        e.upload_id
            .as_deref()
            .is_some_and(|id| self.find(id).is_some())
            || e.request_id
                .as_deref()
                .is_some_and(|id| self.downloads.owns(id))
    }

    fn on_error(&mut self, e: ErrorFrame) -> Vec<FileAction> {
        if let Some(id) = e.request_id.as_deref().filter(|id| self.downloads.owns(id)) {
            return self.downloads.on_error(id, e.code);
        }
        match e.upload_id {
            Some(id) => self.upload_error(id, e.code, &e.message),
            None => Vec::new(),
        }
    }

    fn upload_error(&mut self, id: String, code: ErrorCode, message: &str) -> Vec<FileAction> {
        let online = self.online;
        let Some(u) = self.find_mut(&id) else {
            return Vec::new();
        };
        match u.on_error(code, message) {
            AfterError::Nothing => self.ended(&id),
            AfterError::Send(begin) => {
                let mut out = vec![FileAction::Changed(id)];
                if online {
                    out.push(FileAction::Send(begin));
                }
                out
            }
            AfterError::Later(ms) => vec![
                FileAction::Changed(id.clone()),
                FileAction::Later {
                    ms,
                    wake: Wake::Upload(id),
                },
            ],
        }
    }

    /// A `rate_limited` naming nothing may be any frame: unanswered reads
    /// are asked again, and uploads with chunks in flight go back to what
    /// the gateway acknowledged (a chunk it has already is answered with
    /// the offset it wants, §13), each after a pause.
    fn on_unnamed_rate_limit(&mut self) -> Vec<FileAction> {
        let mut out = self.downloads.on_unnamed_rate_limit();
        let in_flight: Vec<String> = self
            .uploads
            .iter()
            .filter(|u| u.has_unacknowledged())
            .map(|u| u.upload_id.clone())
            .collect();
        for id in in_flight {
            out.extend(self.upload_error(id, ErrorCode::RateLimited, ""));
        }
        out
    }

    // ----- helpers -----

    fn find(&self, upload_id: &str) -> Option<&Upload> {
        self.uploads.iter().find(|u| u.upload_id == upload_id)
    }

    fn find_mut(&mut self, upload_id: &str) -> Option<&mut Upload> {
        self.uploads.iter_mut().find(|u| u.upload_id == upload_id)
    }

    /// An upload changed and may have ended; a failed one holds the
    /// waiting message (the draft stays for the user to fix).
    fn ended(&mut self, upload_id: &str) -> Vec<FileAction> {
        let mut out = vec![FileAction::Changed(upload_id.to_string())];
        let Some(u) = self.find(upload_id) else {
            return out;
        };
        if u.is_over() {
            out.push(FileAction::Ended(upload_id.to_string()));
        }
        let failed = matches!(u.state, UploadState::Failed(_));
        let waits_for_it = self
            .waiting
            .as_ref()
            .is_some_and(|w| w.upload_ids.iter().any(|id| id == upload_id));
        if failed && waits_for_it {
            self.waiting = None;
        }
        out
    }

    /// Sends the waiting message if all its files are stored, and takes
    /// its uploads off the list.
    fn release_waiting(&mut self) -> Vec<FileAction> {
        let Some(w) = &self.waiting else {
            return Vec::new();
        };
        let files: Option<Vec<FileRef>> = w
            .upload_ids
            .iter()
            .map(|id| self.find(id).and_then(Upload::stored).cloned())
            .collect();
        let Some(files) = files else {
            return Vec::new();
        };
        if files.is_empty() && w.text.trim().is_empty() {
            self.waiting = None;
            return Vec::new();
        }
        let Some(w) = self.waiting.take() else {
            return Vec::new();
        };
        self.uploads
            .retain(|u| !w.upload_ids.contains(&u.upload_id));
        vec![FileAction::SendMessage {
            channel: w.channel,
            text: w.text,
            files,
        }]
    }
}

fn chunks(upload_id: &str, ranges: Vec<Range>) -> Vec<FileAction> {
    ranges
        .into_iter()
        .map(|(offset, end)| FileAction::SendChunk {
            upload_id: upload_id.to_string(),
            offset,
            end,
        })
        .collect()
}

/// `rate_limited` naming no request, upload, message, thread or search.
fn is_unnamed_rate_limit(e: &ErrorFrame) -> bool {
    e.code == ErrorCode::RateLimited
        && e.request_id.is_none()
        && e.query.is_none()
        && e.upload_id.is_none()
        && e.client_msg_id.is_none()
        && e.channel_id.is_none()
}

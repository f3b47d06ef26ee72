//! Files (§13) in the runtime: frames about files taken before the store
//! sees them, attaching (limits first, then the bytes read and hashed off
//! the main thread), chunks sent from the bytes kept, the message sent once
//! its files are stored, and stored files read for the components that show
//! them (one `blob:` URL per file, revoked when the last one goes).

use std::time::Duration;

use leptos::prelude::*;

use super::Runtime;
use crate::files::{chunk_frame, is_raster_image, FileAction};
use crate::protocol::ServerFrame;
use crate::ui::browser;
use crate::ui::browser::upload_outbox::KeptFile;
use crate::ui::browser::{blob_url, digest, file_reader};
use crate::ui::wiring::files::{Chip, FilesCore, Shown};

impl Runtime {
    /// Takes the frames about files (once files are in use; `ready`'s
    /// limits always): the frame back when the store should see it.
    pub(super) fn files_first(&self, frame: ServerFrame) -> Option<ServerFrame> {
        use ServerFrame as F;
        let about_files = match &frame {
            F::Ready(r) => {
                let limits = r.limits.clone();
                self.files_core.update_value(|c| c.limits = limits);
                true
            }
            F::FileAccept(_) | F::FileStored(_) | F::FileData(_) => true,
            F::Error(e) => e.upload_id.is_some() || e.request_id.is_some(),
            _ => false,
        };
        if !about_files || self.files_core.with_value(|c| c.files.is_none()) {
            return Some(frame);
        }
        self.route_files(frame)
    }

    /// [`Runtime::files_first`] once files are in use. Not inlined, so that
    /// a first visit (which has no files) runs none of it: the profile that
    /// decides the first load (docs/build.md) leaves it deferred.
    #[inline(never)]
    fn route_files(&self, frame: ServerFrame) -> Option<ServerFrame> {
        let mut frame = Some(frame);
        let actions = self
            .files_core
            .try_update_value(|c| {
                let files = c.files.as_mut()?;
                let (actions, back) = files.route(frame.take()?);
                frame = back;
                Some(actions)
            })
            .flatten()
            .unwrap_or_default();
        if !actions.is_empty() {
            self.run_files(actions);
        }
        frame
    }

    pub(super) fn files_lost(&self) {
        self.files_core.update_value(|c| {
            if let Some(files) = c.files.as_mut() {
                files.connection_lost();
            }
        });
    }

    /// Attaches picked, pasted or dropped files to the draft: each checked
    /// against the gateway's limits, then read and hashed, then uploaded.
    pub fn attach(&self, picked: Vec<web_sys::File>) {
        if picked.is_empty() {
            return;
        }
        if self.files.waiting.get_untracked() {
            self.files.refused.set(vec![
                "The message is being sent: attach more files to the next one.".into(),
            ]);
            return;
        }
        let online = self.is_online();
        let mut refused = Vec::new();
        for file in picked {
            let (name, mime, size) = (file.name(), file.type_(), file.size() as u64);
            let attached = self.files.chips.with_untracked(Vec::len);
            let checked = self
                .files_core
                .try_update_value(|c| c.files(online).check(attached, &name, &mime, size));
            match checked {
                Some(Ok(())) => {}
                Some(Err(why)) => {
                    refused.push(why);
                    continue;
                }
                None => continue,
            }
            let id = browser::random_id("u_");
            let thumb = if is_raster_image(&mime) {
                blob_url::file_url(&file)
            } else {
                None
            };
            self.files_core.update_value(|c| {
                c.files(online)
                    .add(id.clone(), name.clone(), mime.clone(), size)
            });
            let kept = (name.clone(), mime.clone(), size);
            self.files.chips.update(|c| {
                c.push(Chip {
                    upload_id: id.clone(),
                    name,
                    size,
                    done: 0,
                    state: crate::files::UploadState::Hashing,
                    thumb,
                })
            });
            let rt = *self;
            leptos::task::spawn_local(async move {
                let read = file_reader::read_all(&file).await;
                let hashed = match read {
                    Ok(bytes) => digest::sha256_hex(&file, &bytes)
                        .await
                        .map(|hex| (bytes, hex)),
                    Err(why) => Err(why),
                };
                let online = rt.is_online();
                let mut keep = None;
                let actions = rt
                    .files_core
                    .try_update_value(|c| match hashed {
                        // Removed while it was being read: nothing to keep.
                        Ok(_) if c.files(online).progress(&id).is_none() => Vec::new(),
                        Ok((bytes, hex)) => {
                            c.bytes.insert(id.clone(), bytes);
                            let (name, mime, size) = kept;
                            keep = Some(KeptFile {
                                upload_id: id.clone(),
                                name,
                                mime,
                                size,
                                sha256: hex,
                                blob: file.clone().into(),
                            });
                            Vec::new()
                        }
                        Err(why) => c.files(online).unreadable(&id, &why),
                    })
                    .unwrap_or_default();
                rt.run_files(actions);
                // The upload begins once the file is kept for a reload.
                if let Some(kept) = keep {
                    let hex = kept.sha256.clone();
                    rt.keep_file(kept, move || rt.file_kept(&id, hex));
                }
            });
        }
        self.files.refused.set(refused);
    }

    /// A hashed file is kept: its upload begins, unless it was taken off
    /// the draft meanwhile.
    fn file_kept(&self, upload_id: &str, sha256: String) {
        let online = self.is_online();
        let actions = self
            .files_core
            .try_update_value(|c| match c.files(online).progress(upload_id) {
                Some(_) => c.files(online).hashed(upload_id, sha256),
                None => Vec::new(),
            })
            .unwrap_or_default();
        self.run_files(actions);
    }

    /// Takes a file off the draft, cancelling its upload.
    pub fn remove_attachment(&self, upload_id: &str) {
        let online = self.is_online();
        let actions = self
            .files_core
            .try_update_value(|c| c.files(online).remove(upload_id))
            .unwrap_or_default();
        self.files.chips.update(|chips| {
            chips.retain(|c| {
                let keep = c.upload_id != upload_id;
                if let (false, Some(url)) = (keep, &c.thumb) {
                    blob_url::revoke(url);
                }
                keep
            })
        });
        self.drop_kept(vec![upload_id.to_string()]);
        self.keep_draft();
        self.run_files(actions);
    }

    /// Sends the draft with its files: at once when they are stored, else
    /// once they are. Returns whether it went without files (then the
    /// composer clears at once; with files, when `files.sent` moves).
    pub fn send_draft(&self, text: &str) -> bool {
        let ids: Vec<String> = self
            .files
            .chips
            .with_untracked(|c| c.iter().map(|c| c.upload_id.clone()).collect());
        if ids.is_empty() {
            self.send_message(text);
            return true;
        }
        let channel = self.view.active.get_untracked();
        self.send_with_attachments(channel, text, ids);
        false
    }

    /// [`Runtime::send_draft`] with files (not inlined, as
    /// [`Runtime::route_files`]).
    #[inline(never)]
    pub(super) fn send_with_attachments(
        &self,
        channel: Option<String>,
        text: &str,
        ids: Vec<String>,
    ) {
        let online = self.is_online();
        let queued = self.files_core.try_update_value(|c| {
            c.files(online)
                .send_when_stored(channel, text.to_string(), ids)
        });
        match queued {
            Some(Ok(actions)) => {
                self.files.refused.set(Vec::new());
                self.files.waiting.set(true);
                self.run_files(actions);
            }
            Some(Err(why)) => self.files.refused.set(vec![why]),
            None => {}
        }
        self.keep_draft();
    }

    /// The message waiting for its files goes back to being a draft.
    pub fn hold_draft(&self) {
        self.files_core.update_value(|c| {
            if let Some(files) = c.files.as_mut() {
                files.hold_send();
            }
        });
        self.files.waiting.set(false);
        self.keep_draft();
    }

    /// A component shows a stored file: its bytes are read once, and the
    /// URL lives until the last component showing it goes.
    pub fn show_file(&self, file_id: &str) {
        let online = self.is_online();
        let actions = self
            .files_core
            .try_update_value(|c| {
                let held = c.holders.entry(file_id.to_string()).or_insert((0, None));
                held.0 += 1;
                if held.0 > 1 {
                    return Vec::new();
                }
                c.files(online).want(file_id)
            })
            .unwrap_or_default();
        self.files.shown.update(|s| {
            s.entry(file_id.to_string()).or_insert(Shown::Loading);
        });
        self.run_files(actions);
    }

    pub fn unshow_file(&self, file_id: &str) {
        let gone = self
            .files_core
            .try_update_value(|c| {
                let held = c.holders.get_mut(file_id)?;
                held.0 = held.0.saturating_sub(1);
                if held.0 > 0 {
                    return None;
                }
                let (_, url) = c.holders.remove(file_id)?;
                if let Some(files) = c.files.as_mut() {
                    files.forget(file_id);
                }
                Some(url)
            })
            .flatten();
        if let Some(url) = gone {
            if let Some(url) = url {
                blob_url::revoke(&url);
            }
            self.files.shown.update(|s| {
                s.remove(file_id);
            });
        }
    }

    /// Saves a stored file (read for it) under its name.
    pub fn save_file(&self, file_id: &str, name: &str) {
        let online = self.is_online();
        let actions = self
            .files_core
            .try_update_value(|c| {
                c.to_save.insert(file_id.to_string(), name.to_string());
                c.files(online).want(file_id)
            })
            .unwrap_or_default();
        self.run_files(actions);
    }

    pub(super) fn is_online(&self) -> bool {
        self.read(|s| s.is_online()).unwrap_or(false)
    }

    pub(super) fn run_files(&self, actions: Vec<FileAction>) {
        for action in actions {
            match action {
                FileAction::Send(frame) => {
                    if let Some(socket) = self.socket() {
                        socket.send(&frame);
                    }
                }
                FileAction::SendChunk {
                    upload_id,
                    offset,
                    end,
                } => {
                    let frame = self.files_core.with_value(|c| {
                        let bytes = c.bytes.get(&upload_id)?;
                        Some(chunk_frame(
                            &upload_id,
                            offset,
                            &file_reader::slice(bytes, offset, end),
                        ))
                    });
                    if let (Some(frame), Some(socket)) = (frame, self.socket()) {
                        socket.send(&frame);
                    }
                }
                FileAction::Later { ms, wake } => {
                    let rt = *self;
                    set_timeout(
                        move || {
                            let actions = rt
                                .files_core
                                .try_update_value(|c| c.files.as_mut().map(|f| f.wake(wake)))
                                .flatten()
                                .unwrap_or_default();
                            rt.run_files(actions);
                        },
                        Duration::from_millis(u64::from(ms)),
                    );
                }
                FileAction::Changed(id) => self.refresh_chip(&id),
                FileAction::Ended(id) => self.files_core.update_value(|c| {
                    c.bytes.remove(&id);
                }),
                FileAction::SendMessage {
                    channel,
                    text,
                    files,
                } => {
                    let id = browser::random_id("k_");
                    let now = browser::now_ms();
                    self.act(|s| s.send_with_files(channel, &text, files, id, now));
                    let mut sent = Vec::new();
                    self.files.chips.update(|chips| {
                        for chip in chips.drain(..) {
                            if let Some(url) = chip.thumb {
                                blob_url::revoke(&url);
                            }
                            sent.push(chip.upload_id);
                        }
                    });
                    self.drop_kept(sent);
                    self.keep_draft();
                    self.files.sent.update(|n| *n += 1);
                }
                FileAction::Downloaded {
                    file_id,
                    mime,
                    bytes,
                } => self.file_arrived(file_id, &mime, &bytes),
                FileAction::DownloadFailed { file_id, why } => {
                    self.files_core.update_value(|c| {
                        c.to_save.remove(&file_id);
                    });
                    self.files.shown.update(|s| {
                        if let Some(shown) = s.get_mut(&file_id) {
                            *shown = Shown::Failed(why);
                        }
                    });
                }
            }
        }
        let waiting = self
            .files_core
            .with_value(|c| c.files.as_ref().is_some_and(|f| f.is_waiting()));
        if self.files.waiting.get_untracked() != waiting {
            self.files.waiting.set(waiting);
        }
    }

    fn refresh_chip(&self, upload_id: &str) {
        let Some(p) = self
            .files_core
            .with_value(|c| c.files.as_ref().and_then(|f| f.progress(upload_id)))
        else {
            return;
        };
        self.files.chips.update(|chips| {
            if let Some(chip) = chips.iter_mut().find(|c| c.upload_id == upload_id) {
                chip.done = p.done;
                chip.state = p.state;
            }
        });
    }

    /// A stored file's bytes came: saved if asked, shown if a component
    /// holds it and it is a raster image; else let go.
    fn file_arrived(&self, file_id: String, mime: &str, bytes: &[u8]) {
        let (save_as, held) = self.files_core.with_value(|c: &FilesCore| {
            (
                c.to_save.get(&file_id).cloned(),
                c.holders
                    .get(&file_id)
                    .is_some_and(|h| h.0 > 0 && h.1.is_none()),
            )
        });
        if let Some(name) = save_as {
            self.files_core.update_value(|c| {
                c.to_save.remove(&file_id);
            });
            blob_url::save(bytes, &crate::files::safe_name(&name));
        }
        if !held {
            return;
        }
        let shown = if is_raster_image(mime) {
            match blob_url::object_url(bytes, mime) {
                Some(url) => {
                    self.files_core.update_value(|c| {
                        if let Some(h) = c.holders.get_mut(&file_id) {
                            h.1 = Some(url.clone());
                        }
                    });
                    Shown::Url(url)
                }
                None => Shown::Failed("the image could not be shown".into()),
            }
        } else {
            Shown::Failed("not an image".into())
        };
        self.files.shown.update(|s| {
            s.insert(file_id, shown);
        });
    }
}

//! The draft's files across a reload: each file kept in IndexedDB once
//! hashed, the draft (which uploads, and the message waiting for them) in
//! localStorage, and both read back at start. A visit that never attached
//! a file finds no draft and runs none of this.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;

use super::Runtime;
use crate::files::{is_raster_image, KeptDraft, KeptMessage, UploadState};
use crate::ui::browser;
use crate::ui::browser::file_reader;
use crate::ui::browser::upload_outbox::{self, KeptFile};
use crate::ui::wiring::files::Chip;

const DRAFT_KEY: &str = "aria.upload-draft";
/// Longest an upload waits for its file to be kept.
const KEEP_WAIT: Duration = Duration::from_secs(2);

impl Runtime {
    /// Puts back the draft's files kept before a reload, if there are any.
    pub(super) fn restore_kept_files(&self) {
        if let Some(text) = browser::load(DRAFT_KEY).filter(|t| !t.is_empty()) {
            self.restore_draft(&text);
        }
    }

    /// Not inlined: see [`Runtime::route_files`].
    #[inline(never)]
    fn restore_draft(&self, text: &str) {
        let draft = KeptDraft::from_json(text);
        if draft.is_empty() {
            return;
        }
        let rt = *self;
        upload_outbox::get(draft.upload_ids.clone(), move |files| {
            for file in files {
                rt.restore_file(file);
            }
            // A message that waited goes once its files are stored; if one
            // is gone it stays a draft, saying so.
            if let Some(KeptMessage { channel, text }) = draft.waiting {
                rt.send_with_attachments(channel, &text, draft.upload_ids);
            }
            rt.keep_draft();
        });
    }

    fn restore_file(&self, kept: KeptFile) {
        let online = self.is_online();
        let KeptFile {
            upload_id: id,
            name,
            mime,
            size,
            sha256,
            blob,
        } = kept;
        let thumb = if is_raster_image(&mime) {
            web_sys::Url::create_object_url_with_blob(&blob).ok()
        } else {
            None
        };
        self.files_core.update_value(|c| {
            c.files(online)
                .add(id.clone(), name.clone(), mime.clone(), size)
        });
        self.files.chips.update(|c| {
            c.push(Chip {
                upload_id: id.clone(),
                name,
                size,
                done: 0,
                state: UploadState::Hashing,
                thumb,
            })
        });
        let rt = *self;
        leptos::task::spawn_local(async move {
            let read = file_reader::read_all(&blob).await;
            let online = rt.is_online();
            let actions = rt
                .files_core
                .try_update_value(|c| match read {
                    Ok(_) if c.files(online).progress(&id).is_none() => Vec::new(),
                    Ok(bytes) => {
                        c.bytes.insert(id.clone(), bytes);
                        c.files(online).hashed(&id, sha256)
                    }
                    Err(why) => c.files(online).unreadable(&id, &why),
                })
                .unwrap_or_default();
            rt.run_files(actions);
        });
    }

    /// Keeps a hashed file's bytes for a reload, then calls `then` (which
    /// begins its upload): a reload once bytes are on their way finds the
    /// file kept. IndexedDB may never answer (its opening blocked by another
    /// tab), so `then` runs after [`KEEP_WAIT`] at the latest.
    pub(super) fn keep_file(&self, file: KeptFile, then: impl FnOnce() + 'static) {
        let then = Rc::new(Cell::new(Some(then)));
        let kept = Rc::clone(&then);
        upload_outbox::put(&file, move || kept.take().map_or((), |f| f()));
        set_timeout(move || then.take().map_or((), |f| f()), KEEP_WAIT);
        self.keep_draft();
    }

    /// Lets go of kept files (sent, or taken off the draft).
    pub(super) fn drop_kept(&self, upload_ids: Vec<String>) {
        upload_outbox::delete(upload_ids);
    }

    /// Writes which uploads the draft has and the message waiting for them.
    pub(super) fn keep_draft(&self) {
        let upload_ids: Vec<String> = self
            .files
            .chips
            .with_untracked(|c| c.iter().map(|c| c.upload_id.clone()).collect());
        let waiting = self.files_core.with_value(|c| {
            c.files.as_ref().and_then(|f| {
                f.waiting().map(|(channel, text)| KeptMessage {
                    channel: channel.map(str::to_string),
                    text: text.to_string(),
                })
            })
        });
        let draft = KeptDraft {
            upload_ids,
            waiting,
        };
        let text = if draft.is_empty() {
            String::new()
        } else {
            draft.to_json()
        };
        browser::save(DRAFT_KEY, &text);
    }
}

//! The app's side of files (§13): what the components read (the draft's
//! attachments, the `blob:` URLs of stored files on screen) and what the
//! runtime keeps out of sight (the core's [`Files`], made on first use so a
//! visit without files runs none of it, the bytes of uploads in progress,
//! who holds each URL).

use std::collections::HashMap;

use leptos::prelude::*;

use crate::files::{Files, UploadState};
use crate::protocol::Limits;

/// One file attached to the message being written.
#[derive(Debug, Clone, PartialEq)]
pub struct Chip {
    pub upload_id: String,
    pub name: String,
    pub size: u64,
    /// Bytes the gateway holds.
    pub done: u64,
    pub state: UploadState,
    /// A `blob:` URL of the picked image, for its thumbnail.
    pub thumb: Option<String>,
}

/// A stored file's bytes as the page has them.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    Loading,
    /// A `blob:` URL of the bytes, typed with their raster type.
    Url(String),
    Failed(String),
}

/// The signals the components read.
#[derive(Clone, Copy)]
pub struct FilesView {
    /// The draft's attachments, in the order attached.
    pub chips: RwSignal<Vec<Chip>>,
    /// The message was sent and waits for its files.
    pub waiting: RwSignal<bool>,
    /// Counts messages sent with files (the composer clears its draft).
    pub sent: RwSignal<u64>,
    /// Why the last files offered were not attached (limits), as sentences.
    pub refused: RwSignal<Vec<String>>,
    /// Stored files on screen, by `file_id`.
    pub shown: RwSignal<HashMap<String, Shown>>,
}

impl FilesView {
    pub fn new() -> Self {
        Self {
            chips: RwSignal::new(Vec::new()),
            waiting: RwSignal::new(false),
            sent: RwSignal::new(0),
            refused: RwSignal::new(Vec::new()),
            shown: RwSignal::new(HashMap::new()),
        }
    }
}

/// What the runtime keeps for files.
#[derive(Default)]
pub struct FilesCore {
    /// `None` until a file is attached or shown.
    pub files: Option<Files>,
    /// The last `ready.limits`, for a [`Files`] made later.
    pub limits: Option<Limits>,
    /// The bytes of each upload in progress.
    pub bytes: HashMap<String, js_sys::Uint8Array>,
    /// How many components show each stored file, and its URL once read.
    pub holders: HashMap<String, (u32, Option<String>)>,
    /// Files to save once read, with the name to save them under.
    pub to_save: HashMap<String, String>,
}

impl FilesCore {
    /// The core's `Files`, made on first use.
    pub fn files(&mut self, online: bool) -> &mut Files {
        let limits = &self.limits;
        self.files
            .get_or_insert_with(|| Files::new(limits.clone(), online))
    }
}

//! Adapters over browser APIs, one kind each: storage, location and the
//! hash route, focus, clipboard, downloads, time, idle work, theme, the
//! console, IndexedDB, notifications, files (reading them, their digest,
//! `blob:` URLs), the boot hand-over, and the loaders
//! of the lazily loaded parts (markdown module, highlighter worker,
//! diagram renderer frame) with what they do to rendered markdown (code
//! filling, formula copying, diagrams). Failures (no window, storage disabled, a part that
//! does not load) degrade quietly: the app runs without the feature.

pub(crate) mod blob_url;
pub(crate) mod boot;
mod clipboard;
pub(crate) mod code_fill;
pub(crate) mod code_highlight;
mod console;
mod diagram_frame;
pub(crate) mod diagrams;
pub(crate) mod digest;
mod download;
pub(crate) mod file_reader;
mod focus;
mod idle;
mod location;
pub(crate) mod markdown_module;
pub(crate) mod math_copy;
pub(crate) mod notifications;
pub(crate) mod offline_db;
mod storage;
mod theme;
mod time;
pub(crate) mod upload_outbox;

pub use clipboard::copy_to_clipboard;
pub use console::log_warning;
pub use download::{download, save_blob, FileParts};
pub use focus::{composer, focused, refocus};
pub use idle::{lay_out_once, when_idle};
pub use location::{
    channel_href, hash_target, is_framed, location, push_item_hash, query_param, render_mode,
    replace_hash,
};
pub use storage::{device_id, load, random_id, save};
pub use theme::apply_theme;
pub use time::{now_ms, utc_offset_minutes};

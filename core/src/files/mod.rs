//! Files (§13) on the client's side, without a browser: uploads as state
//! machines with a window of unacknowledged chunks, reading stored files
//! back, the checks against `ready.limits`, the message that waits for its
//! files, and how a file's name, size and type are shown.
//!
//! [`Files::route`] takes the frames that are about files before the store
//! sees them, as the exporter does for its pages; what it decides comes back
//! as [`FileAction`]s for the app to carry out (it holds the bytes).

mod action;
mod digest;
mod display;
mod download;
mod draft;
mod limits;
mod router;
mod upload;
mod wire;

#[cfg(test)]
mod download_tests;
#[cfg(test)]
mod router_tests;
#[cfg(test)]
mod upload_tests;

pub use action::{FileAction, Wake};
pub use digest::Sha256Stream;
pub use display::{is_raster_image, percent, safe_name, size_label, thumb_size, type_label};
pub use download::Downloads;
pub use draft::{KeptDraft, KeptMessage};
pub use limits::check as check_limits;
pub use router::{Files, Progress};
pub use upload::{Upload, UploadState};
pub use wire::{chunk_frame, decode_data};

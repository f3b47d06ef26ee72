//! Wire types of the aria gateway WebSocket protocol, version 1.
//!
//! `docs/protocol.md` is the contract; this crate is its Rust form, shared by
//! the browser client and the reference gateway so both sides agree by
//! construction. Decoding is tolerant: unknown frame types and unknown fields
//! are ignored, a malformed frame becomes a [`DecodeError`], never a panic.

mod approval;
mod branch;
mod client;
mod error_code;
mod file;
mod plan;
mod preview;
mod scan;
mod search;
mod server;
mod tool;

pub use approval::*;
pub use branch::{Branch, BranchCause, BranchSelect, BranchSwitched, MessageEdit, TurnRegenerate};
pub use client::*;
pub use error_code::ErrorCode;
pub use file::{
    is_sha256_hex, FileAccept, FileBegin, FileChunk, FileData, FileGet, FileRef, FileStored,
    Limits, MAX_CHUNK_BYTES, MAX_UNACKED_CHUNKS,
};
pub use plan::{LoggedPlan, Plan, PlanItem, PlanStatus};
pub use preview::{cut_at_word, thread_preview, PREVIEW_CHARS};
pub use search::*;
pub use server::*;
pub use tool::*;

/// The protocol version spoken by this crate (`hello.protocol`, `ready.protocol`).
pub const PROTOCOL_VERSION: u32 = 1;
/// Close code sent after `error {code:"unauthorized"}`.
pub const CLOSE_UNAUTHORIZED: u16 = 4401;
/// Close code sent after `error {code:"unsupported_protocol"}`.
pub const CLOSE_UNSUPPORTED_PROTOCOL: u16 = 4400;
/// Largest frame a gateway has to accept or send (§8).
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;
/// Largest `history.get` page (§6).
pub const MAX_HISTORY_LIMIT: u32 = 200;
/// `history.get` page size when `limit` is absent (§6).
pub const DEFAULT_HISTORY_LIMIT: u32 = 50;
/// Longest message text in bytes after trimming (§4).
pub const MAX_TEXT_BYTES: usize = 65536;
/// Longest channel title in characters after trimming (§3).
pub const MAX_TITLE_CHARS: usize = 120;

/// Why a text frame could not be turned into a known frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The frame's `type`, when it had a readable one.
    pub frame_type: Option<String>,
    /// What was wrong, as serde_json reports it.
    pub reason: String,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.frame_type {
            Some(t) => write!(f, "malformed `{t}` frame: {}", self.reason),
            None => write!(f, "malformed frame: {}", self.reason),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes one text frame with tolerant rules: an unknown `type` decodes to
/// the `Unknown` variant of `T`; anything else that does not fit is an error.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    serde_json::from_str(text).map_err(|e| DecodeError {
        frame_type: frame_type(text).ok().map(String::from),
        reason: e.to_string(),
    })
}

/// The `type` of a frame (borrowed from `text` unless it has escapes).
pub(crate) fn frame_type(text: &str) -> Result<std::borrow::Cow<'_, str>, DecodeError> {
    // Most frames: found by a scan that builds nothing. Escaped strings or
    // anything unusual take the full parse, which also names the error.
    if let Some(t) = scan::top_level_type(text) {
        return Ok(std::borrow::Cow::Borrowed(t));
    }
    #[derive(serde::Deserialize)]
    struct Typed<'a> {
        #[serde(rename = "type", borrow)]
        frame_type: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Typed>(text)
        .map(|t| t.frame_type)
        .map_err(|e| DecodeError {
            frame_type: None,
            reason: e.to_string(),
        })
}

/// Checks that a frame of a type this side does not know is JSON at all
/// (its type may have been read without parsing the rest).
pub(crate) fn unknown<T>(text: &str, unknown: T) -> Result<T, DecodeError> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map(|_| unknown)
        .map_err(|e| DecodeError {
            frame_type: None,
            reason: e.to_string(),
        })
}

/// The fields of a frame whose `type` is already known, as `T`.
///
/// Never inlined: one function per frame type (rather than all of them in
/// `decode`) lets the client's build leave the decoders of frames that a
/// first visit does not receive out of its first load.
#[inline(never)]
pub(crate) fn body<T: serde::de::DeserializeOwned>(
    text: &str,
    frame_type: &str,
) -> Result<T, DecodeError> {
    serde_json::from_str(text).map_err(|e| DecodeError {
        frame_type: Some(frame_type.to_string()),
        reason: e.to_string(),
    })
}

/// Encodes a frame as the JSON text of one WebSocket text frame.
pub fn encode<T: serde::Serialize>(frame: &T) -> String {
    // Serializing these plain data types cannot fail: every map key is a string.
    serde_json::to_string(frame).unwrap_or_else(|_| String::from("{}"))
}

/// Trims a title and checks the 1..=120 character rule of §3.
pub fn valid_title(title: &str) -> Option<&str> {
    let t = title.trim();
    let n = t.chars().count();
    (1..=MAX_TITLE_CHARS).contains(&n).then_some(t)
}

#[cfg(test)]
mod branch_tests;
#[cfg(test)]
mod file_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tolerance_tests;

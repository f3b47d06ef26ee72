//! The text of a sent or edited message (§4): trimmed, 1..=65536 bytes.
//! A leaf, so that sending and editing both use it.

use aria_protocol::{ErrorCode, MAX_TEXT_BYTES};

/// The trimmed text of a message (§4: 1..=65536 bytes), or the error's
/// code and sentence.
pub(crate) fn checked_text(text: &str) -> Result<String, (ErrorCode, &'static str)> {
    let text = text.trim();
    if text.is_empty() {
        return Err((ErrorCode::BadRequest, "The message is empty."));
    }
    if text.len() > MAX_TEXT_BYTES {
        return Err((ErrorCode::TooLarge, "The message is longer than 64 KiB."));
    }
    Ok(text.to_string())
}

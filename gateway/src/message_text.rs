//! The text of a sent or edited message (§4): trimmed, 1..=65536 bytes, or
//! empty when the message carries files (§13); and the user message item
//! it becomes. A leaf, so that sending and editing both use it.

use aria_protocol::{ErrorCode, FileRef, MessageItem, Role, MAX_TEXT_BYTES};

use crate::clock::now_ms;
use crate::ids;

/// A new user message with a gateway-made id, ready to log (`seq` and the
/// tree's place are the store's to set).
pub(crate) fn user_message(
    text: String,
    files: Box<[FileRef]>,
    client_msg_id: String,
) -> MessageItem {
    MessageItem {
        seq: 0,
        message_id: ids::message_id(),
        role: Role::User,
        text,
        reasoning: None,
        model: None,
        tokens: None,
        ts: now_ms(),
        turn_id: None,
        client_msg_id: Some(client_msg_id),
        branch: None,
        files,
    }
}

/// The trimmed text of a message with `files` files (§4: 1..=65536 bytes;
/// §13: empty is fine with files), or the error's code and sentence.
pub(crate) fn checked_text(text: &str, files: usize) -> Result<String, (ErrorCode, &'static str)> {
    let text = text.trim();
    if text.is_empty() && files == 0 {
        return Err((ErrorCode::BadRequest, "The message is empty."));
    }
    if text.len() > MAX_TEXT_BYTES {
        return Err((ErrorCode::TooLarge, "The message is longer than 64 KiB."));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_fine_only_with_files() {
        assert_eq!(
            checked_text("  ", 0).map_err(|e| e.0),
            Err(ErrorCode::BadRequest)
        );
        assert_eq!(checked_text("  ", 1), Ok(String::new()));
        assert_eq!(checked_text(" hi ", 0), Ok("hi".to_string()));
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        assert_eq!(
            checked_text(&long, 1).map_err(|e| e.0),
            Err(ErrorCode::TooLarge)
        );
    }
}

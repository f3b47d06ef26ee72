//! The text of a sent or edited message (§4): trimmed, 1..=65536 bytes,
//! and the user message item it becomes. A leaf, so that sending and
//! editing both use it.

use aria_protocol::{ErrorCode, MessageItem, Role, MAX_TEXT_BYTES};

use crate::clock::now_ms;
use crate::ids;

/// A new user message with a gateway-made id, ready to log (`seq` and the
/// tree's place are the store's to set).
pub(crate) fn user_message(text: String, client_msg_id: String) -> MessageItem {
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
    }
}

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

//! The thread's active path as the plugin asks for it when Hermes's
//! session must be put on a turn its turn log never recorded (one answered
//! before the plugin kept turns): what the user wrote in each turn, oldest
//! first, each cut short (the plugin only matches them against the
//! session's own messages).

use aria_protocol::{HistoryItem, Role};

use crate::agent::{Turn, TurnError};

/// Logged items read for the path (messages, tool cards, notes).
const PATH_ITEMS: u32 = 4000;
/// Characters of each user message sent.
const USER_CHARS: usize = 200;

/// The user messages of the path before the turn answering `text`, and
/// whether they start at the thread's first (else older ones were left).
pub async fn users(turn: &Turn, text: &str) -> Result<(Vec<String>, bool), TurnError> {
    let history = turn.history(PATH_ITEMS).await?;
    let from_start = history.len() < PATH_ITEMS as usize;
    let mut texts: Vec<&str> = history
        .iter()
        .filter_map(|item| match item {
            HistoryItem::Message(m) if m.role == Role::User => Some(m.text.as_str()),
            _ => None,
        })
        .collect();
    // The message being answered is not yet in Hermes's session.
    if texts.last() == Some(&text) {
        texts.pop();
    }
    let users = texts
        .into_iter()
        .map(|t| t.chars().take(USER_CHARS).collect())
        .collect();
    Ok((users, from_start))
}

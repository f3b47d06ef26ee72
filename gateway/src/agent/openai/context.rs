//! The `messages` of a Chat Completions request, made from the channel's
//! logged messages: bounded, in the shape chat templates accept.

use aria_protocol::{HistoryItem, MessageItem, Role};
use serde_json::{json, Value};

/// Logged items read for context; the messages among them are then bounded
/// by [`MAX_MESSAGES`] and a character budget.
pub const HISTORY_ITEMS: u32 = 200;
/// Most messages sent as context, whatever their size.
pub const MAX_MESSAGES: usize = 40;

/// The conversation ending with the user's `text`, oldest first, at most
/// [`MAX_MESSAGES`] messages and `max_chars` characters (the message being
/// answered is always sent whole).
///
/// Only user and assistant messages count: tool cards and commentary are
/// the gateway's narration (and the `openai` agent's error notes), not
/// something the model said. Consecutive messages of one role are merged and
/// the context starts with a user message, since many chat templates
/// (llama.cpp's Jinja ones among them) refuse anything else.
pub fn messages(history: &[HistoryItem], text: &str, max_chars: usize) -> Vec<Value> {
    let logged: Vec<&MessageItem> = history
        .iter()
        .filter_map(|item| match item {
            HistoryItem::Message(m) if m.role != Role::Other && !m.text.trim().is_empty() => {
                Some(m)
            }
            _ => None,
        })
        .collect();
    let earlier = before_current(&logged, text);

    let mut kept: Vec<(Role, &str)> = vec![(Role::User, text)];
    let mut chars = text.chars().count();
    for message in earlier.iter().rev() {
        let size = message.text.chars().count();
        if kept.len() >= MAX_MESSAGES || chars + size > max_chars {
            break;
        }
        chars += size;
        kept.push((message.role, message.text.as_str()));
    }
    kept.reverse();

    let mut merged: Vec<(Role, String)> = Vec::new();
    for (role, text) in kept {
        match merged.last_mut() {
            Some((last, joined)) if *last == role => {
                joined.push_str("\n\n");
                joined.push_str(text);
            }
            _ => merged.push((role, text.to_string())),
        }
    }
    let first_user = merged
        .iter()
        .position(|(role, _)| *role == Role::User)
        .unwrap_or(0);
    merged
        .into_iter()
        .skip(first_user)
        .map(|(role, content)| {
            let role = if role == Role::User {
                "user"
            } else {
                "assistant"
            };
            json!({"role": role, "content": content})
        })
        .collect()
}

/// The logged messages that come before the one being answered, in the
/// order the model should see them. That message is the last user message
/// with its text. User messages logged after it were sent while earlier
/// turns ran and wait for later turns: they are left out. Assistant
/// messages logged after it answer those earlier turns: they come first.
fn before_current<'a>(logged: &[&'a MessageItem], text: &str) -> Vec<&'a MessageItem> {
    let current = logged
        .iter()
        .rposition(|m| m.role == Role::User && m.text == text);
    match current {
        Some(i) => logged[..i]
            .iter()
            .chain(logged[i + 1..].iter().filter(|m| m.role != Role::User))
            .copied()
            .collect(),
        // Not in the log (it should be): answer it after everything logged.
        None => logged.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aria_protocol::CommentaryItem;

    fn msg(role: Role, text: &str) -> HistoryItem {
        HistoryItem::Message(MessageItem {
            seq: 0,
            message_id: String::new(),
            role,
            text: text.into(),
            reasoning: None,
            model: None,
            tokens: None,
            ts: 0,
            turn_id: None,
            client_msg_id: None,
            branch: None,
        })
    }

    fn user(text: &str) -> HistoryItem {
        msg(Role::User, text)
    }

    fn bot(text: &str) -> HistoryItem {
        msg(Role::Assistant, text)
    }

    fn pairs(messages: &[Value]) -> Vec<(String, String)> {
        messages
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap_or("?").to_string(),
                    m["content"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect()
    }

    fn p(role: &str, content: &str) -> (String, String) {
        (role.to_string(), content.to_string())
    }

    #[test]
    fn conversation_ends_with_the_message_answered() {
        let commentary = HistoryItem::Commentary(CommentaryItem {
            seq: 0,
            message_id: String::new(),
            text: "⚠️ The model server failed".into(),
            ts: 0,
            turn_id: None,
            branch: None,
        });
        let history = [user("hi"), bot("hello"), commentary, user("how are you?")];
        assert_eq!(
            pairs(&messages(&history, "how are you?", 1000)),
            [
                p("user", "hi"),
                p("assistant", "hello"),
                p("user", "how are you?")
            ]
        );
    }

    #[test]
    fn queued_messages_are_put_in_turn_order() {
        // "c" and "d" were sent while the turn answering "b" ran: the log
        // has them before B. Answering "c", the model sees b, B, c.
        let history = [
            user("a"),
            bot("A"),
            user("b"),
            user("c"),
            user("d"),
            bot("B"),
        ];
        assert_eq!(
            pairs(&messages(&history, "c", 1000)),
            [
                p("user", "a"),
                p("assistant", "A"),
                p("user", "b"),
                p("assistant", "B"),
                p("user", "c")
            ]
        );
        // A message whose turn failed without an answer merges with the next.
        let history = [user("a"), user("b")];
        assert_eq!(pairs(&messages(&history, "b", 1000)), [p("user", "a\n\nb")]);
    }

    #[test]
    fn context_is_bounded_and_starts_with_a_user() {
        let history = [user("old question"), bot("0123456789"), user("q")];
        // "q" (1) + "0123456789" (10) fit in 11; the old question does not.
        assert_eq!(
            pairs(&messages(&history, "q", 11)),
            [p("user", "q")],
            "a leading assistant message is dropped"
        );
        let many: Vec<HistoryItem> = (0..100).map(|i| user(&i.to_string())).collect();
        let sent = messages(&many, "99", 100_000);
        assert_eq!(sent.len(), 1, "one merged user message");
        assert_eq!(
            sent[0]["content"].as_str().map(|c| c.split("\n\n").count()),
            Some(MAX_MESSAGES)
        );
    }

    #[test]
    fn the_current_message_is_sent_even_when_too_long() {
        assert_eq!(
            pairs(&messages(&[bot("x")], "a long question", 3)),
            [p("user", "a long question")]
        );
    }
}

//! A whole turn made up in full, for a page to run through a scratch store
//! while it is idle: the user's message sent into a new thread, and an
//! answer that streams. Sending, auto-threading, the echo and decoding and
//! applying a turn's frames are then compiled before the first real turn
//! (the browser compiles each wasm function on its first call, and a page's
//! first turn runs hundreds of them for the first time:
//! `ui/wiring/rehearsal.rs`).

use serde_json::{json, Value};

use super::{Change, Effect, Store};
use crate::protocol::ServerFrame;

const CHANNEL: &str = "rehearsal";
const TURN: &str = "rehearsal-turn";
/// The made-up question, its `client_msg_id` and the id of its echo (the
/// page's rehearsal shows the same question in its bubble).
pub const QUESTION: &str = "A rehearsed question";
pub const CLIENT_MSG: &str = "rehearsal-send";
pub const QUESTION_ID: &str = "rehearsal-question";
/// The id of the made-up answer.
pub const ANSWER_ID: &str = "rehearsal-answer";

/// What the gateway sends before the user's message: `ready`, no threads.
fn opening_frames() -> Vec<Value> {
    vec![
        json!({"type": "ready", "protocol": 1, "server": "rehearsal",
                "device_id": "rehearsal", "channels": []}),
    ]
}

/// What a gateway sends after the user's message, auto-threaded, for an
/// answer that streams `markdown` in `snapshots` growing snapshots (at
/// least one): the new thread, its (empty) history, the echo, `typing`,
/// `message.start`, the `message.update`s, `message.stop`, `typing` off
/// and the thread's better title.
fn turn_frames(markdown: &str, snapshots: usize) -> Vec<Value> {
    let channel = json!({"channel_id": CHANNEL, "title": QUESTION, "created_at": 1,
                         "updated_at": 1, "auto": true, "last_seq": 0});
    let mut frames = vec![
        json!({"type": "channel.created", "channel": channel, "auto": true,
               "client_msg_id": CLIENT_MSG}),
        json!({"type": "history", "channel_id": CHANNEL, "items": [], "has_more": false}),
        json!({"type": "message", "channel_id": CHANNEL, "message_id": QUESTION_ID,
               "seq": 1, "role": "user", "text": QUESTION, "ts": 1,
               "client_msg_id": CLIENT_MSG}),
        json!({"type": "typing", "channel_id": CHANNEL, "on": true}),
        json!({"type": "message.start", "channel_id": CHANNEL, "turn_id": TURN,
               "message_id": ANSWER_ID, "role": "assistant", "ts": 2}),
    ];
    let snapshots = snapshots.max(1);
    for n in 1..=snapshots {
        let end = markdown.floor_char_boundary(markdown.len() * n / snapshots);
        frames.push(
            json!({"type": "message.update", "channel_id": CHANNEL, "turn_id": TURN,
                           "message_id": ANSWER_ID, "text": &markdown[..end]}),
        );
    }
    frames.extend([
        json!({"type": "message.stop", "channel_id": CHANNEL, "turn_id": TURN,
               "message_id": ANSWER_ID, "seq": 2, "final_text": markdown,
               "model": "rehearsal", "tokens": 1, "ts": 3}),
        json!({"type": "typing", "channel_id": CHANNEL, "on": false}),
        json!({"type": "channel.renamed", "channel_id": CHANNEL,
               "title": "Rehearsed", "auto": true}),
    ]);
    frames
}

/// Runs the turn of `markdown` streamed in `snapshots` through a new
/// store the way the composer, the socket handler and the runtime do: the
/// question sent (its frame and the saved pending sends encoded, as the
/// runtime would send and save them), then every frame decoded from its
/// JSON text and applied. `changed` is given the store's changes after
/// each step, as the runtime gives them to the view. Returns the store.
pub fn rehearse(
    markdown: &str,
    snapshots: usize,
    mut changed: impl FnMut(&Store, Vec<Change>),
) -> Store {
    let mut store = Store::new();
    apply_all(&mut store, &opening_frames(), &mut changed);
    let sent = store.send_with_files(None, QUESTION, Vec::new(), CLIENT_MSG.to_string(), 1.0);
    for effect in sent {
        let encoded = match effect {
            Effect::Send(frame) => frame.encode(),
            Effect::PersistPendingSends => {
                serde_json::to_string(store.pending_sends()).unwrap_or_default()
            }
            Effect::Navigate(_) | Effect::Alert(_) => continue,
        };
        drop(std::hint::black_box(encoded));
    }
    let changes = store.take_changes();
    changed(&store, changes);
    apply_all(&mut store, &turn_frames(markdown, snapshots), &mut changed);
    store
}

/// `frames` as JSON text, decoded and applied to `store`, each followed
/// by `changed`; a frame that does not decode is skipped.
fn apply_all(store: &mut Store, frames: &[Value], changed: &mut impl FnMut(&Store, Vec<Change>)) {
    for frame in frames {
        if let Ok(frame) = ServerFrame::decode(&frame.to_string()) {
            store.apply(frame, 0.0);
            let changes = store.take_changes();
            changed(store, changes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{RowBody, SendState};

    const TEXT: &str = "# Títle\n\nSome **bold** text.\n\n```rust\nfn main() {}\n```\n";

    /// The thread's rows as (role, text, finished).
    fn rows(store: &Store) -> Vec<(&'static str, String, bool)> {
        store
            .timeline(CHANNEL)
            .map(|t| {
                t.rows()
                    .filter_map(|r| match &r.body {
                        RowBody::User(u) => {
                            Some(("user", u.text.clone(), u.send == SendState::Delivered))
                        }
                        RowBody::Assistant(a) => Some(("assistant", a.text.clone(), !a.streaming)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn every_frame_decodes() {
        for f in opening_frames().iter().chain(&turn_frames(TEXT, 3)) {
            let text = f.to_string();
            assert!(
                ServerFrame::decode(&text).is_ok(),
                "does not decode: {text}"
            );
        }
    }

    #[test]
    fn the_question_lands_once_in_the_new_thread_and_the_answer_finishes() {
        let mut steps = 0;
        let store = rehearse(TEXT, 3, |_, changes| {
            steps += usize::from(!changes.is_empty())
        });
        assert_eq!(store.active(), Some(CHANNEL));
        // The send, then every frame of both lists, each changed something.
        assert_eq!(
            steps,
            1 + opening_frames().len() + turn_frames(TEXT, 3).len()
        );
        assert_eq!(
            rows(&store),
            vec![
                ("user", QUESTION.to_string(), true),
                ("assistant", TEXT.to_string(), true),
            ]
        );
        assert!(store.pending_sends().is_empty());
        let title = store.channel(CHANNEL).map(|c| c.meta.title.as_str());
        assert_eq!(title, Some("Rehearsed"));
    }

    #[test]
    fn the_snapshots_grow_and_never_cut_a_character() {
        let frames = turn_frames(TEXT, 5);
        let texts: Vec<String> = frames
            .iter()
            .filter_map(|f| match ServerFrame::decode(&f.to_string()) {
                Ok(ServerFrame::MessageUpdate(u)) => Some(u.text),
                _ => None,
            })
            .collect();
        assert_eq!(texts.len(), 5);
        let mut shown = 0;
        for text in &texts {
            assert!(text.len() >= shown && TEXT.starts_with(text.as_str()));
            shown = text.len();
        }
        assert_eq!(texts.last().map(String::as_str), Some(TEXT));
    }

    #[test]
    fn zero_snapshots_still_streams_one() {
        let updates = turn_frames(TEXT, 0)
            .iter()
            .filter(|f| f["type"] == "message.update")
            .count();
        assert_eq!(updates, 1);
    }
}

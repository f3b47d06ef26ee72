//! A streamed answer made up in full, for a page to run through a scratch
//! store while it is idle: decoding and applying a turn's frames is then
//! compiled before the first real answer arrives (the browser compiles each
//! wasm function on its first call; `ui/wiring/rehearsal.rs`).

use serde_json::json;

use super::Store;
use crate::protocol::ServerFrame;

const CHANNEL: &str = "rehearsal";
const TURN: &str = "rehearsal-turn";
const MESSAGE: &str = "rehearsal-answer";

/// The frames a gateway sends for a thread holding one answer that
/// streams `markdown` in `snapshots` growing snapshots (at least one),
/// as JSON text: `ready`, the thread's empty history, `message.start`,
/// the `message.update`s and `message.stop`.
fn rehearsal_frames(markdown: &str, snapshots: usize) -> Vec<String> {
    let mut frames = vec![
        json!({"type": "ready", "protocol": 1, "server": "rehearsal", "device_id": "rehearsal",
               "channels": [{"channel_id": CHANNEL, "title": "Rehearsal", "created_at": 1,
                             "updated_at": 1, "auto": false, "last_seq": 0}]}),
        json!({"type": "history", "channel_id": CHANNEL, "items": [], "has_more": false}),
        json!({"type": "message.start", "channel_id": CHANNEL, "turn_id": TURN,
               "message_id": MESSAGE, "role": "assistant", "ts": 2}),
    ];
    let snapshots = snapshots.max(1);
    for n in 1..=snapshots {
        let end = markdown.floor_char_boundary(markdown.len() * n / snapshots);
        frames.push(
            json!({"type": "message.update", "channel_id": CHANNEL, "turn_id": TURN,
                           "message_id": MESSAGE, "text": &markdown[..end]}),
        );
    }
    frames.push(
        json!({"type": "message.stop", "channel_id": CHANNEL, "turn_id": TURN,
                       "message_id": MESSAGE, "seq": 1, "final_text": markdown,
                       "model": "rehearsal", "tokens": 1, "ts": 3}),
    );
    frames.iter().map(|f| f.to_string()).collect()
}

/// Decodes and applies the frames of `markdown` streamed in `snapshots`
/// to a new store, with the thread open, the way the socket handler and
/// the runtime do, and returns the store.
pub fn rehearse(markdown: &str, snapshots: usize) -> Store {
    apply_all(&rehearsal_frames(markdown, snapshots))
}

/// `frames` applied to a new store; a frame that does not decode is skipped.
fn apply_all(frames: &[String]) -> Store {
    let mut store = Store::new();
    store.open(Some(CHANNEL.to_string()));
    for text in frames {
        if let Ok(frame) = ServerFrame::decode(text) {
            store.apply(frame, 0.0);
            store.take_changes();
        }
    }
    store
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RowBody;

    const TEXT: &str = "# Títle\n\nSome **bold** text.\n\n```rust\nfn main() {}\n```\n";

    fn answers(store: &Store) -> Vec<(String, bool)> {
        store
            .timeline(CHANNEL)
            .map(|t| {
                t.rows()
                    .filter_map(|r| match &r.body {
                        RowBody::Assistant(a) => Some((a.text.clone(), a.streaming)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn every_frame_decodes_and_the_answer_ends_finished_with_the_whole_text() {
        let frames = rehearsal_frames(TEXT, 3);
        assert_eq!(frames.len(), 3 + 3 + 1);
        for f in &frames {
            assert!(ServerFrame::decode(f).is_ok(), "does not decode: {f}");
        }
        assert_eq!(answers(&rehearse(TEXT, 3)), vec![(TEXT.to_string(), false)]);
    }

    #[test]
    fn the_snapshots_grow_and_never_cut_a_character() {
        let frames = rehearsal_frames(TEXT, 5);
        // Stop before `message.stop`: the answer is still streaming, with
        // the last snapshot's text, which is all of it.
        assert_eq!(
            answers(&apply_all(&frames[..frames.len() - 1])),
            vec![(TEXT.to_string(), true)]
        );
        let mut shown = 0;
        for f in &frames[3..frames.len() - 1] {
            let text = match ServerFrame::decode(f) {
                Ok(ServerFrame::MessageUpdate(u)) => u.text,
                other => panic!("not an update: {other:?}"),
            };
            assert!(text.len() >= shown && TEXT.starts_with(&text));
            shown = text.len();
        }
    }

    #[test]
    fn zero_snapshots_still_streams_one() {
        assert_eq!(rehearsal_frames(TEXT, 0).len(), 3 + 1 + 1);
    }
}

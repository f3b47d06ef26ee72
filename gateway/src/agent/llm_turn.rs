//! What the LLM back ends share on the turn side: the streaming bubble fed
//! by deltas, tool-call previews, and showing a failure in the thread.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::sse::SseEvent;
use super::upstream::{cut, EventStream, Failure, Upstream};
use super::{Reply, Turn, TurnError};

/// Servers send a delta per token; clients get a full snapshot at most this
/// often (each `message.update` carries the whole text, so per-token frames
/// would cost quadratic bytes on long answers).
pub const UPDATE_INTERVAL: Duration = Duration::from_millis(50);
/// Longest tool preview made from the arguments.
const PREVIEW_CHARS: usize = 80;

/// The text of the bubble being streamed.
#[derive(Debug, Default)]
pub struct LiveText {
    text: String,
    /// Length of the text last sent in a `message.update`.
    sent: usize,
    last_update: Option<Instant>,
}

impl LiveText {
    /// Appends a delta; sends a snapshot if the last one is old enough.
    pub fn push(&mut self, turn: &mut Turn, delta: &str) -> Result<(), TurnError> {
        self.text.push_str(delta);
        if self.sent == 0 {
            // Answers often open with line breaks (Hermes puts two after a
            // tool call): a bubble starts at its first visible character.
            let blank = self.text.len() - self.text.trim_start().len();
            self.text.drain(..blank);
            if self.text.is_empty() {
                return Ok(());
            }
        }
        if self
            .last_update
            .is_none_or(|at| at.elapsed() >= UPDATE_INTERVAL)
        {
            self.flush(turn)?;
        }
        Ok(())
    }

    /// Sends the text not sent yet, opening the bubble if needed.
    pub fn flush(&mut self, turn: &mut Turn) -> Result<(), TurnError> {
        if self.text.len() != self.sent {
            turn.update(&self.text)?;
            self.sent = self.text.len();
            self.last_update = Some(Instant::now());
        }
        Ok(())
    }

    /// When held-back text should be sent if no delta comes first.
    fn flush_due(&self) -> Option<Instant> {
        let last = self.last_update?;
        (self.text.len() != self.sent).then(|| last + UPDATE_INTERVAL)
    }

    /// Whether a bubble is open on the clients.
    pub fn is_open(&self) -> bool {
        self.sent > 0
    }

    /// The whole text so far (sent or not).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Flushes and ends this bubble: returns its text; the next delta opens
    /// a new one.
    pub fn take(&mut self, turn: &mut Turn) -> Result<String, TurnError> {
        self.flush(turn)?;
        self.sent = 0;
        self.last_update = None;
        Ok(std::mem::take(&mut self.text))
    }
}

/// The next event of `events`. Text held back by the update interval is
/// sent when due even if the server pauses (a burst of tokens, then a tool
/// call being written or run).
pub async fn next_event(
    events: &mut EventStream,
    upstream: &Upstream,
    turn: &mut Turn,
    live: &mut LiveText,
) -> Result<Option<SseEvent>, Failure> {
    loop {
        let Some(due) = live.flush_due() else {
            return events.next(upstream, turn).await;
        };
        let deadline = tokio::time::Instant::from_std(due);
        match tokio::time::timeout_at(deadline, events.next(upstream, turn)).await {
            Ok(next) => return next,
            // Reading a chunk is cancel-safe: nothing received is lost.
            Err(_) => live.flush(turn)?,
        }
    }
}

/// Ends the open bubble with its text, as a final assistant message.
pub async fn stop_bubble(turn: &mut Turn, live: &mut LiveText) -> Result<(), TurnError> {
    if live.is_open() || !live.text().is_empty() {
        let text = live.take(turn)?;
        turn.stop(Reply {
            text,
            ..Reply::default()
        })
        .await?;
    }
    Ok(())
}

/// Shows a failed turn in the thread: the bubble stops with the text it
/// has, then a commentary gives `reason`. Returns the error to end the turn
/// with (the gateway then also sends an `error` frame and `typing` off).
pub async fn show_failure(turn: &mut Turn, live: &mut LiveText, reason: &str) -> TurnError {
    let shown = async {
        stop_bubble(turn, live).await?;
        turn.commentary(&format!("⚠️ {reason}")).await
    };
    match shown.await {
        Ok(()) => TurnError::Failed(reason.to_string()),
        Err(e) => e,
    }
}

/// A one-line preview of tool arguments for servers that give none: the
/// value of a single string argument (a command, a path), else compact JSON.
pub fn preview_of(args: &Value) -> String {
    let line = match args {
        Value::Object(map) if map.len() == 1 => match map.values().next() {
            Some(Value::String(only)) => only.clone(),
            _ => args.to_string(),
        },
        Value::Object(map) if map.is_empty() => String::new(),
        _ => args.to_string(),
    };
    let line: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
    cut(&line, PREVIEW_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn previews_prefer_a_lone_string_argument() {
        assert_eq!(preview_of(&json!({"command": "ls  -la\n"})), "ls -la");
        assert_eq!(preview_of(&json!({})), "");
        let both = preview_of(&json!({"path": "a.rs", "limit": 5}));
        assert!(
            both.starts_with('{') && both.contains(r#""path":"a.rs""#),
            "{both}"
        );
        let long = preview_of(&json!({"q": "x".repeat(200)}));
        assert_eq!(long.chars().count(), PREVIEW_CHARS + 1);
    }
}

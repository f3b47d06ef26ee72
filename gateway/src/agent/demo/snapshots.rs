//! A demo answer streamed as growing snapshots, as an LLM's would be.

use std::time::Duration;

use crate::agent::{Reply, Turn, TurnError};

/// Streams `text` as `count` growing snapshots `interval` apart, then stops
/// with `reply`.
pub async fn stream(
    turn: &mut Turn,
    text: &str,
    count: usize,
    interval: Duration,
    reply: Reply,
) -> Result<(), TurnError> {
    turn.start_message()?;
    for snapshot in snapshots(text, count) {
        turn.pause(interval).await?;
        turn.update(snapshot)?;
    }
    turn.stop(reply).await
}

/// `count` strictly growing prefixes of `text` (fewer if it is shorter),
/// cut on char boundaries, the last being the whole text.
pub fn snapshots(text: &str, count: usize) -> Vec<&str> {
    let count = count.max(1);
    let mut cuts: Vec<&str> = Vec::with_capacity(count);
    for i in 1..=count {
        let mut end = text.len() * i / count;
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if end > 0 && cuts.last().is_none_or(|last| last.len() < end) {
            cuts.push(&text[..end]);
        }
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_grow_and_end_with_the_text() {
        let text = "Hello, wörld! ".repeat(10);
        let cuts = snapshots(&text, 12);
        assert_eq!(cuts.len(), 12);
        assert!(cuts
            .windows(2)
            .all(|w| w[0].len() < w[1].len() && w[1].starts_with(w[0])));
        assert_eq!(cuts.last().copied(), Some(text.as_str()));
    }

    #[test]
    fn short_text_gives_fewer_snapshots() {
        assert_eq!(snapshots("abc", 12), ["a", "ab", "abc"]);
        assert!(snapshots("", 12).is_empty());
        assert_eq!(snapshots("ü", 0), ["ü"]);
    }
}

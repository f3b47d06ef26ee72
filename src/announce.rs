//! What screen readers hear through the page's live regions: a finished
//! answer once (never its tokens), and which rows failed since last time.
//! Pure, so the rules are tested on the host.

use std::collections::HashMap;

/// Longest answer text read out; the rest is in the thread.
const ANSWER_CHARS: usize = 400;

/// The polite announcement of a finished answer, from its text as read
/// (the markdown module's `plain_text`, or the markdown source itself while
/// that module is not loaded): its words, cut at [`ANSWER_CHARS`] with an
/// ellipsis.
pub fn answer(plain: &str) -> String {
    let words: Vec<&str> = plain.split_whitespace().collect();
    if words.is_empty() {
        return "The agent finished.".to_string();
    }
    let flat = words.join(" ");
    let cut: String = flat.chars().take(ANSWER_CHARS).collect();
    let ellipsis = if cut.len() < flat.len() { "…" } else { "" };
    format!("The agent answered: {cut}{ellipsis}")
}

/// Tracks which rows of the open thread have failed, to announce each
/// failure once, when it happens: rows that arrive already failed from
/// history are not news, unless they arrive while a turn runs.
#[derive(Debug, Default)]
pub struct FailureWatch {
    failed: HashMap<String, bool>,
}

impl FailureWatch {
    /// Another thread was opened: what it shows is not news.
    pub fn reset(&mut self) {
        self.failed.clear();
    }

    /// `rows` is every watched row as (key, failed); `live` whether a turn
    /// runs. Returns the keys that failed since the last call, in order.
    pub fn update(&mut self, rows: &[(String, bool)], live: bool) -> Vec<String> {
        let mut news = Vec::new();
        for (key, failed) in rows {
            let before = self.failed.insert(key.clone(), *failed);
            let newly = match before {
                Some(was) => *failed && !was,
                None => *failed && live,
            };
            if newly {
                news.push(key.clone());
            }
        }
        news
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(list: &[(&str, bool)]) -> Vec<(String, bool)> {
        list.iter().map(|(k, f)| (k.to_string(), *f)).collect()
    }

    #[test]
    fn an_answer_is_read_flat_and_cut() {
        let md = "## Hi\n\n  **there**, `code`\n\n| a |\n|---|\n| b |";
        assert_eq!(
            answer(&aria_markdown::plain_text(md)),
            "The agent answered: Hi there, code a b"
        );
        // The markdown module not loaded yet: its source, flattened.
        assert_eq!(
            answer("**there**\n\nnow"),
            "The agent answered: **there** now"
        );
        assert_eq!(answer(" \n"), "The agent finished.");
        let long = "é".repeat(1000);
        let said = answer(&long);
        assert!(said.ends_with('…'));
        assert_eq!(said.chars().filter(|c| *c == 'é').count(), ANSWER_CHARS);
        assert!(!answer(&"a".repeat(ANSWER_CHARS)).ends_with('…'));
    }

    #[test]
    fn a_failure_is_news_once_and_history_is_not() {
        let mut w = FailureWatch::default();
        // Opened a thread whose history has a failed tool: silent.
        assert!(w
            .update(&rows(&[("t1", true), ("t2", false)]), false)
            .is_empty());
        // t2 fails later, t3 arrives failed during a turn.
        assert_eq!(
            w.update(&rows(&[("t1", true), ("t2", true), ("t3", true)]), true),
            ["t2", "t3"]
        );
        // Nothing changed: nothing said again.
        assert!(w
            .update(&rows(&[("t1", true), ("t2", true), ("t3", true)]), true)
            .is_empty());
        w.reset();
        assert!(w.update(&rows(&[("t1", true)]), false).is_empty());
    }
}

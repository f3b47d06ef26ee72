//! What screen readers hear through the page's live regions: a finished
//! answer once (never its tokens), and which rows failed since last time.
//! Pure, so the rules are tested on the host.

use std::collections::HashMap;

/// Longest answer text read out; the rest is in the thread.
const ANSWER_CHARS: usize = 400;
/// How much of an answer's markdown source is read for its announcement:
/// room for [`ANSWER_CHARS`] of words under ordinary markup. Parsing all of
/// a long answer to say its start cost its last frame several ms.
const SOURCE_BYTES: usize = 8 * ANSWER_CHARS;
/// How far past [`SOURCE_BYTES`] the cut looks for a line end.
const LINE_END_SLACK: usize = 1024;

/// The start of an answer's markdown source to read out: its first
/// [`SOURCE_BYTES`], up to the end of that line when it ends soon; and
/// whether that leaves some of the answer out.
pub fn source_start(md: &str) -> (&str, bool) {
    if md.len() <= SOURCE_BYTES {
        return (md, false);
    }
    let mut end = SOURCE_BYTES;
    while !md.is_char_boundary(end) {
        end += 1;
    }
    let rest = &md[end..];
    let window = rest.len().min(LINE_END_SLACK);
    let line_end = rest.as_bytes()[..window].iter().position(|b| *b == b'\n');
    let end = end + line_end.unwrap_or(0);
    (&md[..end], end < md.len())
}

/// The polite announcement of a finished answer, from its text as read
/// (the markdown module's `plain_text` of [`source_start`], or that source
/// itself while the module is not loaded): its words, cut at
/// [`ANSWER_CHARS`], with an ellipsis when cut or when `more` of the
/// answer was left out.
pub fn answer(plain: &str, more: bool) -> String {
    let words: Vec<&str> = plain.split_whitespace().collect();
    if words.is_empty() {
        return "The agent finished.".to_string();
    }
    let flat = words.join(" ");
    let cut: String = flat.chars().take(ANSWER_CHARS).collect();
    let ellipsis = if more || cut.len() < flat.len() {
        "…"
    } else {
        ""
    };
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
            answer(&aria_markdown::plain_text(md), false),
            "The agent answered: Hi there, code a b"
        );
        // The markdown module not loaded yet: its source, flattened.
        assert_eq!(
            answer("**there**\n\nnow", false),
            "The agent answered: **there** now"
        );
        assert_eq!(answer(" \n", false), "The agent finished.");
        let long = "é".repeat(1000);
        let said = answer(&long, false);
        assert!(said.ends_with('…'));
        assert_eq!(said.chars().filter(|c| *c == 'é').count(), ANSWER_CHARS);
        assert!(!answer(&"a".repeat(ANSWER_CHARS), false).ends_with('…'));
        // Short, but the source was cut: more follows.
        assert_eq!(answer("short", true), "The agent answered: short…");
    }

    #[test]
    fn a_long_answer_is_read_from_its_start_only() {
        let short = "## Hi\n\nall of it";
        assert_eq!(source_start(short), (short, false));
        // 100 KiB of markdown: the start, cut at a line end.
        let block = "### Block\n\nLorem **ipsum** dolor `sit` amet.\n\n```text\ncode\n```\n\n";
        let md = block.repeat(100 * 1024 / block.len());
        let (start, more) = source_start(&md);
        assert!(more);
        assert!(start.len() >= SOURCE_BYTES && start.len() <= SOURCE_BYTES + LINE_END_SLACK);
        assert!(md[start.len()..].starts_with('\n'), "cut at a line end");
        // Still enough words for the whole announcement.
        let said = answer(&aria_markdown::plain_text(start), more);
        assert_eq!(said, answer(&aria_markdown::plain_text(&md), false));
        // One line with no end near the cut, in multi-byte text: cut on a
        // char boundary, close to the limit.
        let wide = "é".repeat(SOURCE_BYTES * 2);
        let (start, more) = source_start(&wide);
        assert!(more && start.len() <= SOURCE_BYTES + 1);
        assert!(start.chars().all(|c| c == 'é'));
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

//! The `snippet` of a search hit (§10): plain text of at most
//! [`MAX_SNIPPET_CHARS`] characters around the first match, on one line.

use aria_protocol::MAX_SNIPPET_CHARS;

/// Characters of context kept before the match.
const LEAD_CHARS: usize = 60;
const ELLIPSIS: char = '…';

/// The snippet of `text` around byte offset `at` (a char boundary): up to
/// [`LEAD_CHARS`] before it (from a word start when there is one), runs of
/// whitespace and control characters as one space, `…` where text was cut.
pub fn snippet(text: &str, at: usize) -> String {
    let at = floor_char_boundary(text, at);
    let start = lead_start(text, at);
    let cut_before = start > 0;
    let mut out = String::new();
    let mut count = 0;
    if cut_before {
        out.push(ELLIPSIS);
        count += 1;
    }
    let mut pending_space = false;
    let mut chars = text[start..].chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() || c.is_control() {
            pending_space = count > usize::from(cut_before);
            continue;
        }
        let needed = 1 + usize::from(pending_space);
        // Room for this char, and for a final ellipsis if more follows.
        let more_follows = chars.peek().is_some();
        let reserve = usize::from(more_follows);
        if count + needed + reserve > MAX_SNIPPET_CHARS {
            out.push(ELLIPSIS);
            return out;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
        count += needed;
    }
    out
}

/// Where the snippet starts: [`LEAD_CHARS`] characters before `at`, moved
/// forward to the next word start inside that lead, or the text start.
fn lead_start(text: &str, at: usize) -> usize {
    let before = &text[..at];
    let Some((start, _)) = before.char_indices().rev().nth(LEAD_CHARS - 1) else {
        return 0;
    };
    match text[start..at].find(char::is_whitespace) {
        Some(space) => start + space,
        None => start,
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn short_text_is_whole_on_one_line() {
        assert_eq!(snippet("Hello\n\n  world\t!", 0), "Hello world !");
        assert_eq!(snippet("  lead", 2), "lead");
    }

    #[test]
    fn long_text_is_cut_around_the_match_within_200_chars() {
        let text = format!("{} needle {}", "word ".repeat(100), "tail ".repeat(100));
        let at = text.find("needle").expect("needle");
        let s = snippet(&text, at);
        assert!(chars(&s) <= MAX_SNIPPET_CHARS, "{}", chars(&s));
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("needle"));
        let lead = s.find("needle").expect("needle");
        assert!((40..=70).contains(&chars(&s[..lead])), "{s}");
        // Starts at a word, not in the middle of one.
        assert!(s.starts_with("… word") || s.starts_with("…word"), "{s}");
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é".repeat(500);
        for at in [0, 1, 2, 401, 999, 1000, 5000] {
            let s = snippet(&text, at);
            assert!(chars(&s) <= MAX_SNIPPET_CHARS);
            assert!(s.chars().all(|c| c == 'é' || c == '…'));
        }
        let emoji = "🎉".repeat(300);
        assert_eq!(chars(&snippet(&emoji, 4 * 150)), MAX_SNIPPET_CHARS);
    }

    #[test]
    fn exactly_200_chars_are_not_cut() {
        let text = "x".repeat(MAX_SNIPPET_CHARS);
        assert_eq!(snippet(&text, 0), text);
        let more = "x".repeat(MAX_SNIPPET_CHARS + 1);
        let s = snippet(&more, 0);
        assert_eq!(chars(&s), MAX_SNIPPET_CHARS);
        assert!(s.ends_with('…'));
    }
}

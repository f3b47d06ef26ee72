//! The one rule for a thread's `preview` (§11): the reference gateway
//! stores it with the channel, and the client uses it both for previews it
//! makes from live items and for those a gateway sends, so a preview keeps
//! its shape across reconnects. Applying the rule to its own output changes
//! nothing.

/// Longest preview in characters, the `…` of a cut included.
pub const PREVIEW_CHARS: usize = 120;

/// Marks that open a markdown line (headings, quotes, list items).
const LINE_MARKS: [char; 6] = ['#', '>', '-', '*', '+', ' '];

/// The first line of `text` with words in it, as plain words: list and
/// heading marks trimmed, `**` and backticks dropped, white space collapsed;
/// code fences and table rows skipped; cut before a word to at most
/// [`PREVIEW_CHARS`].
pub fn thread_preview(text: &str) -> String {
    let line = text
        .lines()
        .map(|l| l.trim().trim_start_matches(LINE_MARKS))
        .filter(|l| !l.starts_with("```"))
        .map(plain)
        .find(|l| !l.is_empty() && !l.starts_with('|'))
        .unwrap_or_default();
    cut_at_word(&line, PREVIEW_CHARS)
}

/// `line` without backticks and `**`, its words joined by single spaces.
fn plain(line: &str) -> String {
    // Backticks first: a `*` on each side of one must not become a `**`.
    let mut rest: &str = &line.replace('`', "");
    let mut out = String::with_capacity(rest.len());
    while let Some(at) = rest.find("**") {
        out.push_str(&rest[..at]);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    let words: Vec<&str> = out.split_whitespace().collect();
    words.join(" ").trim_start_matches(LINE_MARKS).to_string()
}

/// Shortens `line` to at most `max` characters (the `…` included), cutting
/// before the word that does not fit; a single over-long word is cut hard.
pub fn cut_at_word(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let budget = max.saturating_sub(1);
    let end = line
        .char_indices()
        .nth(budget)
        .map_or(line.len(), |(i, _)| i);
    let head = &line[..end];
    let next_starts_word = !line[end..].starts_with(char::is_whitespace);
    let words = if next_starts_word {
        head.rfind(char::is_whitespace).map_or(head, |i| &head[..i])
    } else {
        head
    };
    // Trailing separators before the ellipsis read as noise ("Plan: …").
    let trimmed = words.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    let kept = if trimmed.is_empty() { head } else { trimmed };
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_first_line_with_words_as_plain_text() {
        assert_eq!(
            thread_preview("```\ncode\n```\n## **Bold** `title`\nmore"),
            "code"
        );
        assert_eq!(
            thread_preview("\n\n## **Bold** `title`\nmore"),
            "Bold title"
        );
        assert_eq!(
            thread_preview("| a | b |\n- item\tone  two"),
            "item one two"
        );
        assert_eq!(thread_preview("  \n\n"), "");
    }

    #[test]
    fn long_lines_are_cut_before_a_word_within_the_limit() {
        let text = "word ".repeat(40);
        let p = thread_preview(&text);
        assert!(p.chars().count() <= PREVIEW_CHARS);
        assert!(p.ends_with("word…"), "{p}");
        let long = "é".repeat(200);
        assert_eq!(thread_preview(&long).chars().count(), PREVIEW_CHARS);
        assert_eq!(
            thread_preview(&"a".repeat(PREVIEW_CHARS)),
            "a".repeat(PREVIEW_CHARS)
        );
    }

    #[test]
    fn a_cut_drops_trailing_separators() {
        assert_eq!(cut_at_word("Plan: do the thing", 8), "Plan…");
        assert_eq!(cut_at_word("short", 8), "short");
    }

    proptest! {
        #[test]
        fn a_preview_is_its_own_preview(text in "([*`# |>\n\t+-]|a|é|\\*\\*|```){0,300}") {
            let once = thread_preview(&text);
            prop_assert_eq!(thread_preview(&once), once.clone());
            prop_assert!(once.chars().count() <= PREVIEW_CHARS);
            prop_assert!(!once.contains('\n') && !once.contains('`') && !once.contains("**"));
        }
    }
}

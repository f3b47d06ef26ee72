//! Titles derived from a message's text (previews follow the protocol
//! crate's one rule, `aria_protocol::thread_preview`).

use aria_protocol::cut_at_word;

/// Longest derived title, in characters, counting the `…`.
pub const DERIVED_TITLE_CHARS: usize = 48;
/// Title of a thread made without one, or from a text with no words.
pub const DEFAULT_TITLE: &str = "New thread";

/// The instant title of an auto thread (§4): the text's first non-blank line,
/// cut at a word boundary to at most 48 characters including the `…` that
/// marks the cut.
pub fn derive_title(text: &str) -> String {
    let first_line = text.lines().map(str::trim).find(|l| !l.is_empty());
    match first_line {
        Some(line) => cut_at_word(line, DERIVED_TITLE_CHARS),
        None => DEFAULT_TITLE.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_first_line_is_kept_whole() {
        assert_eq!(derive_title("summarize the repo"), "summarize the repo");
        assert_eq!(derive_title("  \n  first line  \nsecond"), "first line");
    }

    #[test]
    fn exactly_48_chars_is_not_cut() {
        let line = "a".repeat(20) + " " + &"b".repeat(27);
        assert_eq!(line.chars().count(), 48);
        assert_eq!(derive_title(&line), line);
    }

    #[test]
    fn long_line_is_cut_at_a_word_boundary_with_ellipsis() {
        let text = "Please summarize the architecture of this repository and list its main modules";
        let title = derive_title(text);
        assert_eq!(title, "Please summarize the architecture of this…");
        assert!(title.chars().count() <= DERIVED_TITLE_CHARS);
    }

    #[test]
    fn cut_keeps_a_word_that_ends_exactly_at_the_budget() {
        // 47 chars of words, then a space: the whole head fits before the "…".
        let head = "word ".repeat(9) + "ab";
        assert_eq!(head.chars().count(), 47);
        let title = derive_title(&(head.clone() + " tail words here"));
        assert_eq!(title, format!("{head}…"));
    }

    #[test]
    fn one_long_word_is_cut_hard() {
        let title = derive_title(&"x".repeat(100));
        assert_eq!(title, "x".repeat(47) + "…");
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let title = derive_title(&"ünïcödé ".repeat(20));
        assert!(title.ends_with('…'));
        assert!(title.chars().count() <= DERIVED_TITLE_CHARS);
    }

    #[test]
    fn trailing_separators_are_dropped_before_the_ellipsis() {
        let text = "Plan for the week: ".to_string() + &"x".repeat(40);
        assert_eq!(derive_title(&text), "Plan for the week…");
    }

    #[test]
    fn blank_text_gets_the_default_title() {
        assert_eq!(derive_title(" \n\t"), DEFAULT_TITLE);
    }
}

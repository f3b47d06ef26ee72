//! Where a snippet contains the words of a query, case-insensitively, as
//! byte ranges on char boundaries (so the view can split the snippet into
//! text nodes and `<mark>`s without ever parsing it).

use std::ops::Range;

/// The query's words: runs of letters and digits, as the gateway's
/// full-text index splits them.
fn words(query: &str) -> Vec<Vec<char>> {
    let mut out: Vec<Vec<char>> = Vec::new();
    for w in query.split(|c: char| !c.is_alphanumeric()) {
        let w: Vec<char> = w.chars().collect();
        if !w.is_empty() && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn same(a: char, b: char) -> bool {
    a == b || a.to_lowercase().eq(b.to_lowercase())
}

/// The byte length of `word` matched at the start of `text`, if it is.
fn match_at(text: &str, word: &[char]) -> Option<usize> {
    let mut chars = text.char_indices();
    for w in word {
        let (_, c) = chars.next()?;
        if !same(c, *w) {
            return None;
        }
    }
    Some(chars.next().map_or(text.len(), |(i, _)| i))
}

/// The ranges of `snippet` to mark for `query`: sorted, not overlapping,
/// adjacent matches merged.
pub fn marks(snippet: &str, query: &str) -> Vec<Range<usize>> {
    let words = words(query);
    let mut out: Vec<Range<usize>> = Vec::new();
    if words.is_empty() {
        return out;
    }
    for (start, _) in snippet.char_indices() {
        let rest = &snippet[start..];
        let Some(len) = words.iter().filter_map(|w| match_at(rest, w)).max() else {
            continue;
        };
        let end = start + len;
        match out.last_mut() {
            Some(last) if start <= last.end => last.end = last.end.max(end),
            _ => out.push(start..end),
        }
    }
    out
}

/// The snippet cut into `(text, marked)` pieces, in order.
pub fn pieces<'a>(snippet: &'a str, query: &str) -> Vec<(&'a str, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    for r in marks(snippet, query) {
        if r.start > at {
            out.push((&snippet[at..r.start], false));
        }
        out.push((&snippet[r.clone()], true));
        at = r.end;
    }
    if at < snippet.len() {
        out.push((&snippet[at..], false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn marks_each_word_case_insensitively() {
        let s = "Summarize the REPO, then the repository";
        assert_eq!(
            pieces(s, "repo summarize"),
            vec![
                ("Summarize", true),
                (" the ", false),
                ("REPO", true),
                (", then the ", false),
                ("repo", true),
                ("sitory", false),
            ]
        );
        assert!(marks(s, "  ").is_empty());
        assert!(marks(s, "zebra").is_empty());
    }

    #[test]
    fn is_unicode_safe() {
        // Multi-byte letters, case pairs of different byte lengths, emoji.
        let s = "Ärger über ÉCOLE — ǅemal 🎉 straße";
        assert_eq!(
            pieces(s, "äRGER école \u{1c6} STRASSE"),
            vec![
                ("Ärger", true),
                (" über ", false),
                ("ÉCOLE", true),
                (" — ", false),
                ("ǅ", true),
                ("emal 🎉 straße", false),
            ]
        );
        assert_eq!(
            pieces("日本語のテキスト", "テキスト"),
            vec![("日本語の", false), ("テキスト", true)]
        );
    }

    #[test]
    fn overlapping_and_adjacent_words_merge() {
        assert_eq!(marks("foobar", "foo oba bar"), vec![0..6]);
        assert_eq!(marks("aaa", "aa"), vec![0..3]);
    }

    #[test]
    fn markup_in_a_snippet_is_just_text() {
        let s = "<img src=x onerror=alert(1)>";
        assert_eq!(
            pieces(s, "img"),
            vec![
                ("<", false),
                ("img", true),
                (" src=x onerror=alert(1)>", false)
            ]
        );
    }

    proptest! {
        #[test]
        fn pieces_rebuild_the_snippet(s in "\\PC{0,60}", q in "\\PC{0,12}") {
            let p = pieces(&s, &q);
            let joined: String = p.iter().map(|(t, _)| *t).collect();
            prop_assert_eq!(joined, s.clone());
            // Every marked piece starts with a word of the query.
            for (text, _) in p.iter().filter(|(_, marked)| *marked) {
                prop_assert!(words(&q).iter().any(|w| match_at(text, w).is_some()), "{text:?}");
            }
        }
    }
}

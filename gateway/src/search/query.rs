//! A user's search query as words (§10): the FTS5 expression that finds
//! candidate items, and the exact check that every hit contains each word.
//!
//! The query is untrusted text. It never reaches FTS5 as syntax: every word
//! becomes a quoted string (quotes doubled), so operators (`AND`, `NEAR`,
//! `*`, `^`), column filters and parentheses are only characters to find.

/// Characters trimmed from both ends of a word: what people type around
/// words (`"quoted"`, `(aside)`, `end.`), not inside them (`c++`, `a_b`).
const WRAPPING: &[char] = &[
    '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', '.', ';', ':', '!', '?',
];

/// Most words the FTS5 expression holds: the longest, which narrow the
/// candidates most. [`Terms::locate`] still checks every word, so a query
/// of a hundred one-letter words costs eight lookups, not a hundred.
const MAX_INDEXED_WORDS: usize = 8;
/// Shortest last word matched as a prefix: a one-letter prefix matches
/// nearly everything and makes FTS5 merge thousands of doclists.
const MIN_PREFIX_CHARS: usize = 2;

/// The words of a query, case-folded, each at most once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    words: Vec<String>,
    /// Index in `words` of the query's last word: the one a user may still
    /// be typing, matched as a prefix. The others match whole tokens, which
    /// FTS5 walks lazily (a prefix has its doclists merged up front).
    last: Option<usize>,
}

impl Terms {
    /// Splits on whitespace and control characters (a NUL never reaches
    /// SQLite), trims wrapping punctuation and folds case.
    pub fn parse(query: &str) -> Self {
        let mut words: Vec<String> = Vec::new();
        let mut last = None;
        for raw in query.split(|c: char| c.is_whitespace() || c.is_control()) {
            let word = raw.trim_matches(WRAPPING).to_lowercase();
            if word.is_empty() {
                continue;
            }
            last = Some(match words.iter().position(|w| *w == word) {
                Some(i) => i,
                None => {
                    words.push(word);
                    words.len() - 1
                }
            });
        }
        Self { words, last }
    }

    /// The FTS5 `MATCH` expression: the words that have a letter or digit
    /// (the tokenizer drops everything else), up to [`MAX_INDEXED_WORDS`],
    /// each as a quoted string, implicitly ANDed; the last word of the query
    /// with a `*` (prefix) when it has [`MIN_PREFIX_CHARS`]. `None` when no
    /// word can be found by the index; then nothing matches.
    pub fn fts_expression(&self) -> Option<String> {
        let mut indexed: Vec<(usize, &String)> = self
            .words
            .iter()
            .enumerate()
            .filter(|(_, w)| w.chars().any(char::is_alphanumeric))
            .collect();
        // Stable: equally long words keep the query's order.
        indexed.sort_by_key(|(_, w)| std::cmp::Reverse(w.chars().count()));
        indexed.truncate(MAX_INDEXED_WORDS);
        let parts: Vec<String> = indexed
            .iter()
            .map(|(i, w)| {
                let prefix = Some(*i) == self.last && w.chars().count() >= MIN_PREFIX_CHARS;
                format!(
                    "\"{}\"{}",
                    w.replace('"', "\"\""),
                    if prefix { "*" } else { "" }
                )
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// Where a hit's snippet starts: the byte offset in `text` (a char
    /// boundary) of the earliest match of any word, when `text` contains
    /// every word case-insensitively; `None` otherwise, and for no words.
    /// The index matches tokens, which is looser (`a_b` is `a` then `b`), so
    /// every candidate it yields is checked with this.
    pub fn locate(&self, text: &str) -> Option<usize> {
        if self.words.is_empty() {
            return None;
        }
        let folded = text.to_lowercase();
        let mut first = usize::MAX;
        for word in &self.words {
            first = first.min(folded.find(word.as_str())?);
        }
        Some(original_offset(text, first))
    }
}

/// Maps a byte offset in `text.to_lowercase()` back to `text`: some
/// characters change length when lowercased (`İ` is 2 bytes, `i̇` 3).
fn original_offset(text: &str, folded_at: usize) -> usize {
    let mut folded = 0;
    for (i, c) in text.char_indices() {
        if folded >= folded_at {
            return i;
        }
        folded += c.to_lowercase().map(char::len_utf8).sum::<usize>();
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &str) -> Vec<String> {
        Terms::parse(q).words
    }

    #[test]
    fn words_are_split_trimmed_folded_and_unique() {
        assert_eq!(words("  Retry  LOOP retry "), ["retry", "loop"]);
        assert_eq!(
            words("\"quoted\" (aside), end."),
            ["quoted", "aside", "end"]
        );
        assert_eq!(words("c++ a_b -v"), ["c++", "a_b", "-v"]);
        assert_eq!(words("a\u{0}b\tc\nd"), ["a", "b", "c", "d"]);
        assert_eq!(words("ÉCOLE Straße"), ["école", "straße"]);
        assert!(words("() \"\" ,").is_empty());
    }

    #[test]
    fn fts_expression_quotes_every_word() {
        let fts = |q: &str| Terms::parse(q).fts_expression();
        // The last word is a prefix, the others whole tokens.
        assert_eq!(fts("retry loop").as_deref(), Some("\"retry\" \"loop\"*"));
        assert_eq!(
            fts("loop retry loop").as_deref(),
            Some("\"retry\" \"loop\"*")
        );
        assert_eq!(
            fts("a\"b OR NEAR(x y) col:z *").as_deref(),
            Some("\"near(x\" \"col:z\" \"a\"\"b\" \"or\" \"y\"")
        );
        // Words without letters or digits cannot be found by the tokenizer.
        assert_eq!(fts("++ 🎉").as_deref(), None);
        // A one-letter last word is a whole token.
        assert_eq!(fts("++ c").as_deref(), Some("\"c\""));
        assert_eq!(fts("col:x").as_deref(), Some("\"col:x\"*"));
    }

    #[test]
    fn long_queries_index_their_eight_longest_words_and_check_all() {
        let query = "a b c d e f g h i j k l m n o p q r s t u v w x y z longest";
        let terms = Terms::parse(query);
        let fts = terms.fts_expression().expect("expression");
        assert_eq!(
            fts,
            "\"longest\"* \"a\" \"b\" \"c\" \"d\" \"e\" \"f\" \"g\""
        );
        assert!(terms.locate("abcdefghijklmnopqrstuvwxy longest").is_none());
        assert!(terms.locate("abcdefghijklmnopqrstuvwxyz longest").is_some());
    }

    #[test]
    fn locate_needs_every_word_case_insensitively() {
        let t = Terms::parse("PARSE_header Error");
        assert_eq!(t.locate("fn parse_header() -> Result<_, ERROR>"), Some(3));
        assert_eq!(t.locate("parse header error"), None);
        assert_eq!(t.locate("parse_header only"), None);
        assert_eq!(Terms::parse("école").locate("L'ÉCOLE est fermée"), Some(2));
        assert_eq!(Terms::parse("()").locate("x"), None);
    }

    #[test]
    fn locate_gives_the_earliest_word_in_the_original_text() {
        let t = Terms::parse("beta alpha");
        assert_eq!(t.locate("x alpha beta"), Some(2));
        assert_eq!(t.locate("x beta alpha"), Some(2));
        // `İ` lowercases to 3 bytes: the offset still points into the original.
        let text = "İİİ needle";
        let at = Terms::parse("needle").locate(text).expect("match");
        assert_eq!(&text[at..], "needle");
    }
}

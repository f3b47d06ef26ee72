//! Where formulas are: which delimiters count, and the currency and shell
//! rule that keeps `$5 and $10` or `$HOME/$USER` text.
//!
//! pulldown-cmark's math extension finds `$…$` and `$$…$$` (never inside
//! code, before emphasis is parsed). It knows nothing of `\(…\)` and
//! `\[…\]`, whose backslashes CommonMark would eat as escapes, so
//! [`prepare`] rewrites each matched pair outside code to `$$…$$` first:
//! the same byte length, so every source range the parser reports is also
//! a range of the text as written, and [`delimiter_at`] reads the real
//! delimiters back from it.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag};

use crate::dialect::options;

/// How a formula was delimited in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Delimiter {
    /// `$…$`: inline, subject to [`single_dollar_is_math`].
    Dollar,
    /// `$$…$$`: display.
    DoubleDollar,
    /// `\(…\)`: inline.
    Paren,
    /// `\[…\]`: display.
    Bracket,
}

impl Delimiter {
    /// Whether the formula is set as a block of its own.
    pub(crate) fn display(self) -> bool {
        matches!(self, Self::DoubleDollar | Self::Bracket)
    }

    /// The opening and closing delimiter as written.
    pub(crate) fn pair(self) -> (&'static str, &'static str) {
        match self {
            Self::Dollar => ("$", "$"),
            Self::DoubleDollar => ("$$", "$$"),
            Self::Paren => ("\\(", "\\)"),
            Self::Bracket => ("\\[", "\\]"),
        }
    }
}

/// The delimiter of the math span that starts at byte `at` of `src` (the
/// text as written).
pub(crate) fn delimiter_at(src: &str, at: usize) -> Delimiter {
    let rest = src.as_bytes().get(at..).unwrap_or_default();
    match rest {
        [b'\\', b'(', ..] => Delimiter::Paren,
        [b'\\', b'[', ..] => Delimiter::Bracket,
        [b'$', b'$', ..] => Delimiter::DoubleDollar,
        _ => Delimiter::Dollar,
    }
}

/// The currency and shell rule for a `$…$` span at `range` of `src` whose
/// formula is `latex`. pulldown-cmark already requires a non-space after
/// the opening `$` and before the closing one; on top of that a span is
/// not math when
/// - its formula starts with a digit (`$5 and $10`, `$5-$10`),
/// - the opening `$` follows a letter or digit (`^foo$|^bar$`, `a$b`),
/// - the closing `$` is followed by a digit, an upper-case letter, `_` or
///   `{` (`$HOME/$USER`, `$PATH:$HOME`, `${x}`): shell variables, while
///   `$n$th` and `$x$-axis` stay math.
pub(crate) fn single_dollar_is_math(src: &str, range: &Range<usize>, latex: &str) -> bool {
    if latex.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let before = src.get(..range.start).and_then(|s| s.chars().next_back());
    if before.is_some_and(char::is_alphanumeric) {
        return false;
    }
    let after = src.get(range.end..).and_then(|s| s.chars().next());
    !after.is_some_and(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || c == '_' || c == '{')
}

/// Whether the text starting at byte `at` of `src` is a delimiter's bracket
/// whose backslash the parser took as an escape: `\(`, `\)`, `\[` or
/// `\]`, the backslash not itself escaped.
pub(crate) fn lost_backslash(src: &str, at: usize) -> bool {
    let bytes = src.as_bytes();
    at > 0
        && matches!(bytes.get(at), Some(b'(' | b')' | b'[' | b']'))
        && bytes[at - 1] == b'\\'
        && !escaped(bytes, at - 1)
}

/// `src` with every `\(…\)` and `\[…\]` pair outside code rewritten to
/// `$$…$$`. A pair closes before the next blank line, and its formula holds
/// no `$` (which would end the parser's span early); an unpaired delimiter
/// is left as it is. Borrowed when there is nothing to rewrite.
pub(crate) fn prepare(src: &str) -> Cow<'_, str> {
    if !src.contains("\\(") && !src.contains("\\[") {
        return Cow::Borrowed(src);
    }
    let code = code_ranges(src);
    let in_code = |at: usize| code.iter().any(|r| r.contains(&at));
    let bytes = src.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while let Some(open) = find_opening(bytes, at) {
        let close = match bytes.get(open + 1) {
            Some(b'(') => b')',
            _ => b']',
        };
        at = open + 2;
        if in_code(open) {
            continue;
        }
        let Some(end) = find_closing(bytes, at, close) else {
            continue;
        };
        if in_code(end) || bytes[at..end].contains(&b'$') {
            continue;
        }
        let out = out.get_or_insert_with(|| bytes.to_vec());
        out[open..open + 2].copy_from_slice(b"$$");
        out[end..end + 2].copy_from_slice(b"$$");
        at = end + 2;
    }
    match out.map(String::from_utf8) {
        // ASCII replaced ASCII: always UTF-8.
        Some(Ok(s)) => Cow::Owned(s),
        _ => Cow::Borrowed(src),
    }
}

/// The next unescaped `\(` or `\[` at or after `from`.
fn find_opening(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' && matches!(bytes[i + 1], b'(' | b'[') && !escaped(bytes, i) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The unescaped `\` + `close` that ends a formula starting at `from`,
/// before any blank line.
fn find_closing(bytes: &[u8], from: usize, close: u8) -> Option<usize> {
    let mut i = from;
    while i + 1 < bytes.len() {
        match bytes[i] {
            b'\n' if blank_line_follows(&bytes[i + 1..]) => return None,
            b'\\' if bytes[i + 1] == close && !escaped(bytes, i) => return Some(i),
            // `\\` is one escaped backslash (a LaTeX line break): skip both.
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Whether the backslash at `i` is itself escaped (an odd run before it).
fn escaped(bytes: &[u8], i: usize) -> bool {
    bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// Whether the line that starts `rest` is blank (or the text ends).
fn blank_line_follows(rest: &[u8]) -> bool {
    let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    rest[..line_end]
        .iter()
        .all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// Source ranges of code spans, code blocks and raw HTML (shown as text),
/// as the parser sees them without math.
fn code_ranges(src: &str) -> Vec<Range<usize>> {
    Parser::new_ext(src, options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Code(_)
            | Event::Html(_)
            | Event::InlineHtml(_)
            | Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => Some(range),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
#[path = "delimiters_tests.rs"]
mod tests;

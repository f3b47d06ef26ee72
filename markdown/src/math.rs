//! Math in markdown: `$…$`, `$$…$$`, `\(…\)` and `\[…\]` become MathML,
//! which the browser lays out natively (no fonts, no script).
//!
//! The rule for a single `$` (prices and shell variables stay text) is in
//! [`delimiters::single_dollar_is_math`]; code spans and code blocks never
//! hold math. While an answer streams, a formula whose closing delimiter
//! has not arrived is plain text: the parser only reports closed ones.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, Options};

/// Delimiters and the currency rule.
mod delimiters;
/// LaTeX → sanitized MathML markup, or the source marked as not rendered.
mod formula;
/// The allow-list the converter's MathML passes through.
mod mathml_sanitize;

use delimiters::{delimiter_at, single_dollar_is_math, Delimiter};

/// Which math is rendered (the reader's settings); by default all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MathOptions {
    /// Off: every delimiter is text.
    pub enabled: bool,
    /// Off: `$…$` is text (`$$…$$`, `\(…\)` and `\[…\]` still render).
    pub single_dollar: bool,
}

impl Default for MathOptions {
    fn default() -> Self {
        Self {
            enabled: true,
            single_dollar: true,
        }
    }
}

impl MathOptions {
    /// The parser options for `base`, with math when enabled.
    pub(crate) fn parser_options(self, base: Options) -> Options {
        if self.enabled {
            base | Options::ENABLE_MATH
        } else {
            base
        }
    }

    /// The text the parser reads for `src` (same length; see
    /// [`delimiters::prepare`]).
    pub(crate) fn prepare(self, src: &str) -> Cow<'_, str> {
        if self.enabled {
            delimiters::prepare(src)
        } else {
            Cow::Borrowed(src)
        }
    }
}

/// The text as written (the parser's ranges index it) and the settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MathSource<'s> {
    pub src: &'s str,
    pub options: MathOptions,
}

/// The event to write for a math span of the parser (`latex` its formula,
/// `range` its source with delimiters): the formula's markup, or, for a
/// `$…$` the rules keep as text, that text.
pub(crate) fn math_event<'a>(latex: CowStr<'a>, range: &Range<usize>, at: MathSource) -> Event<'a> {
    let delimiter = delimiter_at(at.src, range.start);
    if delimiter == Delimiter::Dollar
        && !(at.options.single_dollar && single_dollar_is_math(at.src, range, &latex))
    {
        return Event::Text(format!("${latex}$").into());
    }
    Event::InlineHtml(formula::formula_html(&latex, delimiter).into())
}

/// A text event as written. CommonMark reads `\(` as an escaped `(`; with
/// math on, an unpaired `\(`, `\)`, `\[` or `\]` (a formula still
/// streaming in, or never closed) keeps its backslash, so the LaTeX shows
/// as typed until it renders.
pub(crate) fn text_event<'a>(text: CowStr<'a>, range: &Range<usize>, at: MathSource) -> CowStr<'a> {
    if at.options.enabled && delimiters::lost_backslash(at.src, range.start) {
        return format!("\\{text}").into();
    }
    text
}

#[cfg(test)]
pub(crate) mod tests;

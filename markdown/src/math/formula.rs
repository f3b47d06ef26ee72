//! One formula's HTML: its LaTeX converted to MathML by `math-core`, passed
//! through [`sanitize_mathml`], carrying its LaTeX as `alttext` (read out
//! by screen readers, copied by the UI's copy actions). A formula that does
//! not convert shows its source as code with a small "could not render"
//! mark.

use std::cell::RefCell;
use std::collections::HashMap;

use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

use super::delimiters::Delimiter;
use super::mathml_sanitize::sanitize_mathml;
use crate::escape::escape_into;

/// Longer formulas are not converted (shown as their source): bounds the
/// converter's time on one update.
const MAX_LATEX: usize = 8 * 1024;

/// Conversions kept per thread: a streamed answer's tail is rendered again
/// on every update, and its formulas with it.
const CACHE_ENTRIES: usize = 512;

thread_local! {
    static CONVERTER: Option<LatexToMathML> = LatexToMathML::new(MathCoreConfig::default()).ok();
    static CACHE: RefCell<HashMap<(String, Delimiter), String>> = RefCell::new(HashMap::new());
}

/// The HTML of the formula `latex`, written with `delimiter`.
pub(crate) fn formula_html(latex: &str, delimiter: Delimiter) -> String {
    let display = delimiter.display();
    // By delimiter, not display mode: a failed formula shows its own.
    let key = (latex.to_owned(), delimiter);
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let html = match mathml(latex, display) {
        Some(math) => wrap(&math, display, latex),
        None => failed(latex, delimiter),
    };
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(key, html.clone());
    });
    html
}

/// Sanitized MathML with the LaTeX as `alttext`, or `None` if it does not
/// convert.
fn mathml(latex: &str, display: bool) -> Option<String> {
    if latex.len() > MAX_LATEX || latex.trim().is_empty() {
        return None;
    }
    let mode = if display {
        MathDisplay::Block
    } else {
        MathDisplay::Inline
    };
    let converted = CONVERTER.with(|c| {
        c.as_ref()
            .and_then(|c| c.convert_with_local_state(latex, mode).ok())
    })?;
    let mut alt = String::with_capacity(latex.len() + 12);
    alt.push_str(" alttext=\"");
    escape_into(&mut alt, latex.trim());
    alt.push('"');
    Some(sanitize_mathml(&converted.mathml, &alt))
}

/// Inline MathML in a focusable span (a focused formula's keyboard action
/// copies its LaTeX: `ui/browser/math_copy.rs`); display MathML in a box
/// that scrolls sideways when wider than the answer (focusable, so a
/// keyboard can scroll it and copy it), with a button that copies its
/// LaTeX.
fn wrap(math: &str, display: bool, latex: &str) -> String {
    if !display {
        let mut s = String::with_capacity(math.len() + INLINE_OPEN.len() + 7);
        s.push_str(INLINE_OPEN);
        s.push_str(math);
        s.push_str("</span>");
        return s;
    }
    let mut s = String::with_capacity(math.len() + latex.len() + 300);
    s.push_str("<span class=\"math-display\" tabindex=\"0\">");
    s.push_str(math);
    s.push_str(COPY_LATEX);
    s.push_str("</span>");
    s
}

const INLINE_OPEN: &str = "<span class=\"math-inline\" tabindex=\"0\">";

/// The markup of the UI's copy button (as for code blocks); the markdown
/// view's click handler copies the `alttext` of the `<math>` beside it.
const COPY_LATEX: &str = "<button type=\"button\" class=\"copy-button math-copy\" \
     aria-label=\"Copy LaTeX\"><span class=\"copy-icon\" aria-hidden=\"true\"></span>\
     <span class=\"copy-label\">Copy</span></button>";

/// The formula's source, delimiters and all, as code, marked.
fn failed(latex: &str, delimiter: Delimiter) -> String {
    let (open, close) = delimiter.pair();
    let mut s = String::with_capacity(latex.len() + 120);
    s.push_str("<span class=\"math-failed\"><code>");
    escape_into(&mut s, open);
    escape_into(&mut s, latex);
    escape_into(&mut s, close);
    s.push_str("</code><small class=\"math-failed-mark\">could not render</small></span>");
    s
}

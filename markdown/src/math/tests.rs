//! Math through the whole renderer, on text as models write it.

use crate::render::tests::unsafe_reason;
use crate::{to_html, to_html_with, IncrementalMarkdown, MathOptions};

/// The markup the math renderer writes around and instead of `<math>`.
const WRAPPERS: &[&str] = &[
    "<span class=\"math-inline\" tabindex=\"0\">",
    "<span class=\"math-display\" tabindex=\"0\">",
    "<button type=\"button\" class=\"copy-button math-copy\" aria-label=\"Copy LaTeX\">",
    "<span class=\"math-failed\">",
    "<small class=\"math-failed-mark\">could not render</small>",
];

/// Why `html` would be unsafe, allowing presentation MathML (each
/// `<math>…</math>` checked by [`mathml_problem`]) and the math wrappers;
/// the rest is judged by the renderer's own checker.
pub(crate) fn unsafe_reason_allowing_math(html: &str) -> Option<String> {
    let mut rest = html.to_owned();
    for wrapper in WRAPPERS {
        rest = rest.replace(wrapper, "");
    }
    rest = rest.replace("</button>", "");
    let mut outside = String::new();
    let mut s = rest.as_str();
    while let Some(at) = s.find("<math") {
        outside.push_str(&s[..at]);
        let Some(end) = s[at..].find("</math>") else {
            return Some("unclosed <math>".into());
        };
        let math = &s[at..at + end + "</math>".len()];
        if let Some(why) = mathml_problem(math) {
            return Some(why);
        }
        s = &s[at + math.len()..];
    }
    outside.push_str(s);
    // The renderer's checker bans <button> in general only by attribute:
    // the copy-button markup was removed above, so any other is judged.
    unsafe_reason(&outside)
}

/// Why a piece of MathML would be unsafe: any tag outside presentation
/// MathML, any attribute outside layout ones, a nested `<math>`. The lists
/// are written out again on purpose, apart from the sanitizer's: an oracle
/// that read the sanitizer's own constants would pass whatever was added
/// to them by mistake.
pub(crate) fn mathml_problem(mathml: &str) -> Option<String> {
    const TAGS: &[&str] = &[
        "math",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "mfrac",
        "msqrt",
        "mroot",
        "msub",
        "msup",
        "msubsup",
        "munder",
        "mover",
        "munderover",
        "mmultiscripts",
        "mprescripts",
        "mtable",
        "mtr",
        "mtd",
        "mpadded",
        "mphantom",
        "mstyle",
        "menclose",
        "merror",
        "b",
        "i",
        "em",
        "code",
        "s",
        "u",
    ];
    const ATTRS: &[&str] = &[
        "alttext",
        "display",
        "displaystyle",
        "scriptlevel",
        "mathvariant",
        "dir",
        "form",
        "fence",
        "separator",
        "stretchy",
        "symmetric",
        "largeop",
        "movablelimits",
        "accent",
        "accentunder",
        "lspace",
        "rspace",
        "minsize",
        "maxsize",
        "linethickness",
        "width",
        "height",
        "depth",
        "voffset",
        "notation",
        "columnalign",
        "rowalign",
        "columnspacing",
        "rowspacing",
        "columnlines",
        "rowlines",
        "frame",
        "framespacing",
        "columnspan",
        "rowspan",
    ];
    let lower = mathml.to_ascii_lowercase();
    // No attribute allowed below takes a URL, so a `javascript:` in a
    // value (the LaTeX in `alttext`) is text.
    if lower.matches("<math").count() != 1 {
        return Some(format!("nested math: {mathml}"));
    }
    let mut rest = mathml;
    while let Some(lt) = rest.find('<') {
        let after = &rest[lt + 1..];
        let Some(gt) = after.find('>') else {
            return Some("unterminated tag in MathML".into());
        };
        let tag = after[..gt].trim_start_matches('/').trim_end_matches('/');
        let mut parts = tag.split_whitespace();
        let name = parts.next().unwrap_or_default();
        if !TAGS.contains(&name) {
            return Some(format!("tag <{name}> in MathML"));
        }
        // Values are quoted and hold no `"` (escaped): split on `="…"`.
        let mut attrs = &tag[name.len()..];
        while let Some(eq) = attrs.find("=\"") {
            let key = attrs[..eq].trim();
            if !ATTRS.contains(&key) {
                return Some(format!("attribute {key} on <{name}>"));
            }
            let Some(value_len) = attrs[eq + 2..].find('"') else {
                return Some(format!("unterminated value on <{name}>"));
            };
            let value_end = eq + 2 + value_len;
            attrs = &attrs[value_end + 1..];
        }
        if !attrs.trim().is_empty() {
            return Some(format!("unquoted attribute on <{name}>: {attrs}"));
        }
        rest = &after[gt + 1..];
    }
    None
}

fn formulas(html: &str) -> usize {
    html.matches("<math").count()
}

/// Answers whose dollars are prices or shell variables: no math at all,
/// and every dollar sign still there.
const NOT_MATH: &[&str] = &[
    "The basic plan costs $5 and the pro plan $10 per month.",
    "Prices range from $5-$10, or $15.99 with tax.",
    "It was $1,000,000 in 2020 and $2.5M in 2021.",
    "You'll pay $ 20 for shipping and $ 5 for handling.",
    "Set it with `export PATH=$HOME/bin:$PATH` and reload.",
    "Your home is $HOME/$USER on most systems.",
    "Append to $PATH:$HOME/.local/bin in your profile.",
    "Use ${HOME} or $HOME, not $home$USER.",
    "```sh\necho \"$USER costs $5\"\nfor f in $(ls); do echo $f; done\n```",
    "The regex `^\\d+$` matches digits; so does ^[0-9]+$ here.",
    "Anchors: ^foo$|^bar$ match either word.",
    "Escaped: \\$x\\$ stays text, and so does `\\(code\\)`.",
    "A lone $ sign, and another $ one.",
];

/// (answer, formulas it holds)
const MATH: &[(&str, usize)] = &[
    ("The area is $\\pi r^2$ for a circle.", 1),
    ("Einstein: $E = mc^2$, and $a^2 + b^2 = c^2$.", 2),
    ("the $n$th term and the $x$-axis", 2),
    (
        "Inline \\(\\frac{a}{b}\\) and display:\n\n\\[\n\\int_0^1 x\\,dx = \\tfrac12\n\\]",
        2,
    ),
    ("$$\n\\sum_{k=1}^n k = \\frac{n(n+1)}{2}\n$$", 1),
    (
        "$$\n\\begin{align}\na &= b + c \\\\\nd &= e\n\\end{align}\n$$",
        1,
    ),
    ("\\[\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}\\]", 1),
    ("$$\\begin{equation} f(x) = x^2 \\end{equation}$$", 1),
    ("- item with $x_1 + y_1$ inside\n- and \\(z_{i}\\)", 2),
    ("> quoted $\\alpha$", 1),
    ("It costs $5, where $x$ is the count.", 1),
    ("Sets: \\(\\{x \\mid x > 0\\}\\) and $\\{1,2\\}$", 2),
    (
        "$$f(x) = \\left\\{ \\begin{array}{ll} 1 & x > 0 \\\\ 0 & x \\le 0 \\end{array} \\right.$$",
        1,
    ),
];

#[test]
fn prices_and_shell_stay_text() {
    for md in NOT_MATH {
        let html = to_html(md);
        assert_eq!(formulas(&html), 0, "{md:?} rendered math: {html}");
        assert_eq!(
            html.matches('$').count(),
            md.matches('$').count(),
            "{md:?} lost a dollar: {html}"
        );
    }
}

#[test]
fn formulas_render_as_mathml() {
    for (md, n) in MATH {
        let html = to_html(md);
        assert_eq!(formulas(&html), *n, "{md:?}: {html}");
        assert!(!html.contains("math-failed"), "{md:?}: {html}");
        assert_eq!(unsafe_reason_allowing_math(&html), None, "{md:?}: {html}");
    }
}

#[test]
fn emphasis_markers_inside_a_formula_are_latex() {
    let html = to_html("\\(a_1 + b_1\\) and $x_i * y_i * z$");
    assert_eq!(formulas(&html), 2, "{html}");
    assert!(!html.contains("<em>"), "{html}");
}

#[test]
fn code_is_never_math() {
    for md in [
        "`$x$` and `\\(y\\)`",
        "```\n$$\nx\n$$\n\\[ y \\]\n```",
        "    $x$ indented \\(y\\)",
    ] {
        let html = to_html(md);
        assert_eq!(formulas(&html), 0, "{md:?}: {html}");
        assert!(html.contains('$') || html.contains("\\("), "{md:?}: {html}");
    }
    // The backslashes of a code span stay when math elsewhere is rewritten.
    let html = to_html("`\\(a\\)` then \\(b\\)");
    assert!(html.contains("<code>\\(a\\)</code>"), "{html}");
    assert_eq!(formulas(&html), 1, "{html}");
}

#[test]
fn each_formula_carries_its_latex() {
    let html = to_html("$a < b$ and \\[\\frac{1}{2}\\]");
    assert!(html.contains("alttext=\"a &lt; b\""), "{html}");
    assert!(html.contains("alttext=\"\\frac{1}{2}\""), "{html}");
    assert!(html.contains("class=\"math-display\""), "{html}");
    assert!(
        html.contains("<math alttext=\"\\frac{1}{2}\" display=\"block\">"),
        "{html}"
    );
}

#[test]
fn a_failed_formula_shows_its_source_marked() {
    for md in [
        "$\\frac{1}{$ x",
        "$\\nosuchcommand{x}$",
        "\\(\\begin{foo} x\\)",
    ] {
        let html = to_html(md);
        assert_eq!(unsafe_reason_allowing_math(&html), None, "{md:?}: {html}");
        if html.contains("math-failed") {
            assert!(html.contains("could not render"), "{html}");
            assert!(html.contains("<code>"), "{html}");
        }
    }
    // The same formula with other delimiters shows those.
    let html = to_html("see \\(\\nosuchcommand{x}\\) here");
    assert!(
        html.contains("<code>\\(\\nosuchcommand{x}\\)</code>"),
        "{html}"
    );
    let html = to_html("see $\\nosuchcommand{x}$ here");
    assert!(
        html.contains("<code>$\\nosuchcommand{x}$</code><small class=\"math-failed-mark\">could not render</small>"),
        "{html}"
    );
}

#[test]
fn settings_turn_math_or_single_dollars_off() {
    let md = "$x$ and $$y$$ and \\(z\\)";
    let off = to_html_with(
        md,
        MathOptions {
            enabled: false,
            single_dollar: true,
        },
    );
    assert_eq!(formulas(&off), 0, "{off}");
    let no_single = to_html_with(
        md,
        MathOptions {
            enabled: true,
            single_dollar: false,
        },
    );
    assert_eq!(formulas(&no_single), 2, "{no_single}");
    assert!(no_single.contains("$x$"), "{no_single}");
}

/// A formula split across snapshots: text while open, one formula once
/// closed, and the incremental result equal to a full render each time.
#[test]
fn a_streamed_formula_renders_once_closed() {
    let text = "The sum \\(\\sum_{k=1}^{n} k\\) is known.\n\n\
                $$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\nDone with $x$.\n";
    let close_inline = text.find("\\)").unwrap() + 2;
    let mut renderer = IncrementalMarkdown::new();
    let mut stable_seen: Vec<String> = Vec::new();
    for end in 1..=text.len() {
        let Some(snapshot) = text.get(..end) else {
            continue;
        };
        let delta = renderer.update(snapshot);
        assert_eq!(delta.stable_truncated_to, None, "at {end}");
        stable_seen.extend(delta.stable_appended);
        let full = renderer.full_html();
        assert_eq!(full, to_html(snapshot), "at {end}");
        assert!(
            !full.contains("math-failed"),
            "error shown at {end}: {full}"
        );
        let expected = usize::from(end >= close_inline)
            + usize::from(snapshot.matches("$$").count() >= 2)
            + usize::from(snapshot.ends_with("$x$") || snapshot.contains("$x$."));
        assert_eq!(formulas(&full), expected, "at {end}: {full}");
    }
    // Each completed block was handed over once, formulas and all.
    assert_eq!(stable_seen.concat().matches("<math").count(), 2);
}

#[test]
fn inline_formulas_are_focusable_and_display_boxes_too() {
    let html = to_html("a $x^2$ b\n\n$$y$$");
    assert!(
        html.contains("a <span class=\"math-inline\" tabindex=\"0\"><math alttext=\"x^2\">"),
        "{html}"
    );
    assert!(
        html.contains(
            "<span class=\"math-display\" tabindex=\"0\"><math alttext=\"y\" display=\"block\">"
        ),
        "{html}"
    );
    // A formula that does not convert is code, not a focusable formula.
    assert!(!to_html("$\\nosuchmacro$").contains("math-inline"));
}

#[test]
fn an_unpaired_delimiter_keeps_its_backslash() {
    for (md, text) in [
        ("Let \\(x^2 + y", "<p>Let \\(x^2 + y</p>\n"),
        ("a \\[ b", "<p>a \\[ b</p>\n"),
        ("**a \\(b** c", "<p><strong>a \\(b</strong> c</p>\n"),
        ("closed \\(b\\) then \\]", "<p>closed "),
        // An escaped backslash is one backslash, then a parenthesis.
        ("x \\\\(y", "<p>x \\(y</p>\n"),
    ] {
        assert!(to_html(md).starts_with(text), "{md:?}: {}", to_html(md));
    }
    assert!(to_html("closed \\(b\\) then \\]").ends_with("</math></span> then \\]</p>\n"));
    // Math off: CommonMark's escape.
    let off = MathOptions {
        enabled: false,
        single_dollar: true,
    };
    assert_eq!(to_html_with("a \\(b", off), "<p>a (b</p>\n");
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The converter sees arbitrary LaTeX-like formulas: it must never
        /// panic (a trap would take the whole markdown module down), and
        /// its output stays inside the allow-list.
        #[test]
        fn any_formula_converts_or_fails_safely(
            tokens in proptest::collection::vec(
                prop_oneof![
                    Just("\\frac"), Just("\\sqrt"), Just("{"), Just("}"), Just("^"), Just("_"),
                    Just("\\left("), Just("\\right)"), Just("\\left."), Just("\\right|"),
                    Just("\\begin{align}"), Just("\\end{align}"), Just("\\begin{pmatrix}"),
                    Just("\\end{pmatrix}"), Just("&"), Just("\\\\"), Just("\\text{"),
                    Just("\\mathbb"), Just("\\operatorname"), Just("\\hspace{"), Just("1em"),
                    Just("-3pt"), Just("\\color{"), Just("\\tag{"), Just("\\label{"),
                    Just("\\ref{"), Just("\\def"), Just("\\newcommand{\\x}"), Just("#1"),
                    Just("x"), Just("2"), Just(" "), Just("<"), Just("\""), Just("\\"),
                    Just("é"), Just("\\overbrace"), Just("\\stackrel"), Just("\\not"),
                    Just("\\substack{"), Just("\\limits"), Just("\\sum"), Just("'"),
                ],
                1..30,
            ),
            display in any::<bool>(),
        ) {
            let latex: String = tokens.concat();
            let md = if display {
                format!("$$\n{latex}\n$$")
            } else {
                format!("\\({latex}\\)")
            };
            let html = to_html(&md);
            prop_assert_eq!(unsafe_reason_allowing_math(&html), None, "input {:?}", md);
        }
    }
}

use super::{delimiter_at, prepare, single_dollar_is_math, Delimiter};

fn dollar_span_is_math(src: &str) -> bool {
    let start = src.find('$').unwrap_or(0);
    let end = src[start + 1..]
        .find('$')
        .map_or(src.len(), |e| start + e + 2);
    let latex = &src[start + 1..end - 1];
    single_dollar_is_math(src, &(start..end), latex)
}

#[test]
fn the_currency_and_shell_rule() {
    for math in ["$x$", "a $x$ b", "($x$)", "$n$th", "$x$-axis", "$\\alpha$."] {
        assert!(dollar_span_is_math(math), "{math:?}");
    }
    for text in [
        "$5-$",
        "$1$",
        "a$b$",
        "$HOME/$USER",
        "$PATH:$HOME",
        "$a$_1",
        "$a${x}",
        "$a$2",
    ] {
        assert!(!dollar_span_is_math(text), "{text:?}");
    }
}

#[test]
fn delimiters_are_read_from_the_source() {
    assert_eq!(delimiter_at("x \\(a\\)", 2), Delimiter::Paren);
    assert_eq!(delimiter_at("\\[a\\]", 0), Delimiter::Bracket);
    assert_eq!(delimiter_at("$$a$$", 0), Delimiter::DoubleDollar);
    assert_eq!(delimiter_at("$a$", 0), Delimiter::Dollar);
    assert_eq!(delimiter_at("$", 5), Delimiter::Dollar);
}

#[test]
fn prepare_rewrites_closed_pairs_in_place() {
    assert_eq!(prepare("a \\(x\\) b"), "a $$x$$ b");
    assert_eq!(prepare("\\[\nx \\\\ y\n\\]"), "$$\nx \\\\ y\n$$");
    // Unclosed (still streaming), closed after a blank line, escaped,
    // holding a `$`, or in code: unchanged.
    for same in [
        "a \\(x + ",
        "\\(x\n\ny\\)",
        "\\\\(x\\\\)",
        "\\(a $ b\\)",
        "`\\(x\\)`",
        "```\n\\[x\\]\n```",
        "no math",
    ] {
        assert_eq!(prepare(same), same, "{same:?}");
    }
    let text = "é \\(α\\) `\\(c\\)` \\[β\\]";
    let prepared = prepare(text);
    assert_eq!(prepared.len(), text.len());
    assert_eq!(prepared, "é $$α$$ `\\(c\\)` $$β$$");
}

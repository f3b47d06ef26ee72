//! HTML escaping of text, and reading back exactly what it wrote. A leaf:
//! the renderer and the formula code both use it.

/// Escapes text for an HTML attribute value or element body.
pub fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// The text [`escape_into`] escaped, read back; `None` for any character
/// reference it does not write (or an `&` cut off from its reference).
pub fn unescape(html: &str) -> Option<String> {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let reference = &rest[at..];
        let end = reference.find(';')?;
        out.push(match &reference[..=end] {
            "&amp;" => '&',
            "&lt;" => '<',
            "&gt;" => '>',
            "&quot;" => '"',
            "&#39;" => '\'',
            _ => return None,
        });
        rest = &reference[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{escape_into, unescape};

    #[test]
    fn unescape_reads_back_what_escape_into_wrote_and_nothing_else() {
        let text = "a & b <c> \"d\" 'e' é";
        let mut html = String::new();
        escape_into(&mut html, text);
        assert_eq!(unescape(&html).as_deref(), Some(text));
        assert_eq!(unescape("&copy;"), None);
        assert_eq!(unescape("a &amp"), None);
    }
}

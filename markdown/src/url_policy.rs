//! Which link and image URLs untrusted markdown may carry.
//!
//! Browsers forgive a lot in URLs (leading control characters and spaces are
//! stripped, tabs and newlines anywhere are removed, schemes are
//! case-insensitive), so the check normalizes the same way before it looks at
//! the scheme, and the normalized form is what gets emitted.

/// Schemes a clickable link may use; scheme-less (relative, `#fragment`,
/// `//host`) URLs are allowed too.
const LINK_SCHEMES: &[&str] = &["http", "https", "mailto"];

/// Schemes an image placeholder may offer to load.
const IMAGE_SCHEMES: &[&str] = &["http", "https"];

/// Returns the URL to put in `href`, or `None` when the link must be shown
/// as plain text.
pub fn safe_link_href(dest: &str) -> Option<String> {
    let url = normalize(dest)?;
    match scheme(&url) {
        None => Some(url),
        Some(s) if LINK_SCHEMES.iter().any(|a| s.eq_ignore_ascii_case(a)) => Some(url),
        Some(_) => None,
    }
}

/// Returns the URL to put in an image placeholder's `data-src`, or `None`
/// (only absolute http/https URLs, and `//host` ones, may be loaded).
/// A `//host` URL is given `https:`, so the placeholder always carries an
/// absolute URL (its click handler loads nothing else).
pub fn safe_image_src(dest: &str) -> Option<String> {
    let url = normalize(dest)?;
    match scheme(&url) {
        Some(s) if IMAGE_SCHEMES.iter().any(|a| s.eq_ignore_ascii_case(a)) => Some(url),
        None if url.starts_with("//") || url.starts_with("\\\\") => {
            Some(format!("https://{}", &url[2..]))
        }
        _ => None,
    }
}

/// Strips what a browser strips (leading/trailing C0 controls and spaces,
/// tabs and newlines anywhere); rejects any other control character.
fn normalize(dest: &str) -> Option<String> {
    let trimmed = dest.trim_matches(|c: char| c <= ' ');
    let url: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if url.chars().any(char::is_control) {
        return None;
    }
    Some(url)
}

/// The text before the first `:` when it comes before any `/`, `?`, `#`
/// (i.e. what a URL parser would take as the scheme, valid or not).
fn scheme(url: &str) -> Option<&str> {
    let end = url.find([':', '/', '?', '#', '\\'])?;
    url[end..].starts_with(':').then(|| &url[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_web_mail_relative_and_fragment_links() {
        for ok in [
            "http://example.com",
            "HTTPS://example.com/a?b#c",
            "mailto:a@b.c",
            "/relative/path",
            "relative/path:with-colon",
            "./x",
            "#section",
            "?q=1",
            "//cdn.example.com/x",
            "",
        ] {
            assert_eq!(safe_link_href(ok).as_deref(), Some(ok), "{ok}");
        }
    }

    #[test]
    fn rejects_other_schemes_in_any_disguise() {
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " javascript:alert(1)",
            "\u{1}javascript:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            "java\rscript:alert(1)",
            "javascript\u{200b}:alert(1)",
            "java\u{7f}script:alert(1)",
            "data:text/html,x",
            "vbscript:msgbox(1)",
            "file:///etc/passwd",
            "ftp://x",
            "blob:http://x/1",
            "a:b",
            "\u{fffd}javascript:x",
        ] {
            assert_eq!(safe_link_href(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn normalizes_what_it_emits() {
        assert_eq!(
            safe_link_href("  http://a.b/c\td  ").as_deref(),
            Some("http://a.b/cd")
        );
    }

    #[test]
    fn images_only_over_http() {
        assert!(safe_image_src("https://a.b/i.png").is_some());
        assert!(safe_image_src("http://a.b/i.png").is_some());
        assert_eq!(
            safe_image_src("//a.b/i.png").as_deref(),
            Some("https://a.b/i.png")
        );
        assert_eq!(
            safe_image_src("\\\\a.b/i.png").as_deref(),
            Some("https://a.b/i.png")
        );
        for bad in [
            "data:image/png;base64,AAAA",
            "javascript:alert(1)",
            "/local.png",
            "i.png",
            "#x",
            "mailto:a@b.c",
        ] {
            assert_eq!(safe_image_src(bad), None, "{bad}");
        }
    }
}

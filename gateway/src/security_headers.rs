//! The security headers of every static response: the web client's own
//! Content-Security-Policy (read from the `<meta>` of the served
//! `index.html`, so the page stays its one source of truth) plus what a meta
//! tag cannot say (`frame-ancestors`), and headers against sniffing,
//! referrers, framing and powerful features.
//!
//! One page differs: the diagram renderer ([`DIAGRAM_FRAME`]), which the app
//! itself frames (sandboxed, without same origin) and which runs Mermaid.
//! It gets the policy of its own `<meta>` and may be framed by this origin
//! only.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// Features the client never uses. Notifications, clipboard and fullscreen
/// stay allowed: the app may use them.
const PERMISSIONS_POLICY: &str = "accelerometer=(), camera=(), display-capture=(), \
geolocation=(), gyroscope=(), hid=(), magnetometer=(), microphone=(), midi=(), payment=(), \
serial=(), usb=(), xr-spatial-tracking=()";
const NO_FRAMING: &str = "frame-ancestors 'none'";
/// The diagram renderer's page (scripts/bundle-mermaid).
const DIAGRAM_FRAME: &str = "/mm/frame.html";
const OWN_FRAMING: &str = "frame-ancestors 'self'";
/// The renderer's policy when its page has none: nothing runs.
const NOTHING: &str = "default-src 'none'";

#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    headers: HeaderMap,
    /// For [`DIAGRAM_FRAME`].
    frame: HeaderMap,
}

impl SecurityHeaders {
    /// The headers for the client in `static_dir`, with the CSP of its
    /// `index.html` (read once, at start).
    pub fn for_client(static_dir: &Path) -> Self {
        let page = page_csp(static_dir, "index.html");
        let frame = page_csp(static_dir, DIAGRAM_FRAME.trim_start_matches('/'));
        Self::with_csp(page.as_deref(), frame.as_deref())
    }

    fn with_csp(page_csp: Option<&str>, frame_csp: Option<&str>) -> Self {
        let page = policy(page_csp.unwrap_or_default(), NO_FRAMING);
        let frame = policy(frame_csp.unwrap_or(NOTHING), OWN_FRAMING);
        Self {
            headers: headers(page, NO_FRAMING, "DENY"),
            frame: headers(frame, OWN_FRAMING, "SAMEORIGIN"),
        }
    }
}

/// The policy of the `<meta>` of `dir/name`, if it is there.
fn page_csp(dir: &Path, name: &str) -> Option<String> {
    // No client built (or no renderer): nothing to take a policy from.
    let html = std::fs::read_to_string(dir.join(name)).ok()?;
    let csp = meta_csp(&html);
    if csp.is_none() {
        tracing::warn!("{name} has no Content-Security-Policy meta tag");
    }
    csp
}

/// A meta tag's policy as one header line, with `framing` added.
fn policy(meta_csp: &str, framing: &str) -> String {
    // A header is one line; the meta tag may spread its policy over many.
    let page = meta_csp.split_whitespace().collect::<Vec<_>>().join(" ");
    match page.trim_end_matches(';').trim_end() {
        "" => framing.to_string(),
        c => format!("{c}; {framing}"),
    }
}

fn headers(csp: String, framing: &'static str, frame_options: &'static str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    // A policy with bytes a header cannot carry is left to the meta tag.
    let csp = HeaderValue::from_str(&csp).unwrap_or(HeaderValue::from_static(framing));
    headers.insert(CONTENT_SECURITY_POLICY, csp);
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static(frame_options));
    headers.insert(
        HeaderName::from_static("permissions-policy"),
        HeaderValue::from_static(PERMISSIONS_POLICY),
    );
    headers
}

/// `axum::middleware::from_fn_with_state` adds them to a response.
pub async fn add(
    State(set): State<Arc<SecurityHeaders>>,
    request: Request,
    next: Next,
) -> Response {
    let frame = request.uri().path() == DIAGRAM_FRAME;
    let mut response = next.run(request).await;
    let headers = if frame { &set.frame } else { &set.headers };
    for (name, value) in headers {
        response.headers_mut().insert(name, value.clone());
    }
    response
}

/// The `content` of `<meta http-equiv="Content-Security-Policy">`.
fn meta_csp(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("<meta") {
        let start = from + at + "<meta".len();
        let end = start + lower[start..].find('>')?;
        let attrs = attributes(&html[start..end]);
        let is_csp = attrs.iter().any(|(name, value)| {
            name == "http-equiv" && value.eq_ignore_ascii_case("content-security-policy")
        });
        if is_csp {
            return attrs
                .into_iter()
                .find(|(name, _)| name == "content")
                .map(|(_, value)| value);
        }
        from = end;
    }
    None
}

/// A tag's attributes (quoted or not), names lower-cased, the few entities
/// a policy may contain decoded.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    let mut rest = tag.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_ascii_lowercase();
        rest = rest[name_end..].trim_start();
        let mut value = String::new();
        if let Some(after_eq) = rest.strip_prefix('=') {
            let after_eq = after_eq.trim_start();
            let (raw, tail) = match after_eq.chars().next() {
                Some(q @ ('"' | '\'')) => {
                    let body = &after_eq[1..];
                    let close = body.find(q).unwrap_or(body.len());
                    (&body[..close], body.get(close + 1..).unwrap_or(""))
                }
                _ => {
                    let end = after_eq.find(char::is_whitespace).unwrap_or(after_eq.len());
                    (&after_eq[..end], &after_eq[end..])
                }
            };
            value = decode_entities(raw);
            rest = tail;
        }
        if !name.is_empty() {
            attrs.push((name, value));
        }
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
    }
    attrs
}

fn decode_entities(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

    #[test]
    fn reads_the_policy_of_the_meta_tag() {
        let html = format!(
            "<html><head><meta charset=utf-8><meta name=\"referrer\" content=\"no-referrer\">\
             <META HTTP-EQUIV=\"Content-Security-Policy\" content=\"{POLICY}\"></head></html>"
        );
        assert_eq!(meta_csp(&html).as_deref(), Some(POLICY));
    }

    #[test]
    fn single_quotes_unquoted_and_entities() {
        let html = "<meta content='a &quot;b&quot; &amp; c' http-equiv=content-security-policy>";
        assert_eq!(meta_csp(html).as_deref(), Some("a \"b\" & c"));
        let html = "<meta http-equiv=Content-Security-Policy content=default-src />";
        assert_eq!(meta_csp(html).as_deref(), Some("default-src"));
        assert_eq!(meta_csp("<meta charset=utf-8><title>x</title>"), None);
        assert_eq!(meta_csp("<meta http-equiv=\"Content-Security-Policy"), None);
    }

    #[test]
    fn header_adds_frame_ancestors_to_the_page_policy() {
        let set = SecurityHeaders::with_csp(Some(&format!("{POLICY};")), None);
        assert_eq!(
            set.headers[CONTENT_SECURITY_POLICY],
            format!("{POLICY}; frame-ancestors 'none'").as_str()
        );
        let bare = SecurityHeaders::with_csp(None, None);
        assert_eq!(
            bare.headers[CONTENT_SECURITY_POLICY],
            "frame-ancestors 'none'"
        );
        let lines =
            SecurityHeaders::with_csp(Some("\n  default-src 'self';\n  img-src data:\n"), None);
        assert_eq!(
            lines.headers[CONTENT_SECURITY_POLICY],
            "default-src 'self'; img-src data:; frame-ancestors 'none'"
        );
        let unsendable = SecurityHeaders::with_csp(Some("default-src 'self' \u{1}"), None);
        assert_eq!(unsendable.headers[CONTENT_SECURITY_POLICY], NO_FRAMING);
    }

    #[test]
    fn the_diagram_frame_keeps_its_own_policy_and_this_origin_as_framer() {
        let set = SecurityHeaders::with_csp(Some(POLICY), Some("default-src 'none';"));
        assert_eq!(
            set.frame[CONTENT_SECURITY_POLICY],
            "default-src 'none'; frame-ancestors 'self'"
        );
        assert_eq!(set.frame[X_FRAME_OPTIONS], "SAMEORIGIN");
        assert_eq!(set.headers[X_FRAME_OPTIONS], "DENY");
        // Without a policy of its own, nothing in it may run.
        let bare = SecurityHeaders::with_csp(Some(POLICY), None);
        assert_eq!(
            bare.frame[CONTENT_SECURITY_POLICY],
            "default-src 'none'; frame-ancestors 'self'"
        );
    }

    #[test]
    fn permissions_policy_leaves_notifications_alone() {
        assert!(PERMISSIONS_POLICY.contains("camera=()"));
        assert!(PERMISSIONS_POLICY.contains("microphone=()"));
        assert!(PERMISSIONS_POLICY.contains("geolocation=()"));
        assert!(!PERMISSIONS_POLICY.contains("notifications"));
    }
}

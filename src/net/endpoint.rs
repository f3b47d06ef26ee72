//! Which WebSocket URL to open: `?gateway=` wins, then the saved setting,
//! then the page's own origin at `/ws`.

/// The page location parts that matter here.
pub struct PageOrigin<'a> {
    /// `"http:"` or `"https:"`, as `location.protocol` gives it.
    pub protocol: &'a str,
    /// `host[:port]`, as `location.host` gives it.
    pub host: &'a str,
}

pub fn gateway_url(
    query_param: Option<&str>,
    setting: &str,
    page: &PageOrigin,
) -> Result<String, String> {
    let chosen = query_param
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .or_else(|| Some(setting.trim()).filter(|s| !s.is_empty()));
    match chosen {
        Some(url) => normalize(url),
        None => {
            let scheme = if page.protocol == "https:" {
                "wss"
            } else {
                "ws"
            };
            Ok(format!("{scheme}://{}/ws", page.host))
        }
    }
}

/// Accepts ws(s) URLs, and http(s) ones as a convenience.
fn normalize(url: &str) -> Result<String, String> {
    let lower = url.to_ascii_lowercase();
    for (from, to) in [
        ("ws://", "ws://"),
        ("wss://", "wss://"),
        ("http://", "ws://"),
        ("https://", "wss://"),
    ] {
        if lower.starts_with(from) && url.len() > from.len() {
            return Ok(format!("{to}{}", &url[from.len()..]));
        }
    }
    Err(format!(
        "“{url}” is not a gateway address: use ws://host:port/ws or wss://…"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: PageOrigin = PageOrigin {
        protocol: "https:",
        host: "chat.example:8443",
    };

    #[test]
    fn same_origin_by_default() {
        assert_eq!(
            gateway_url(None, "", &PAGE).unwrap(),
            "wss://chat.example:8443/ws"
        );
        let plain = PageOrigin {
            protocol: "http:",
            host: "127.0.0.1:8080",
        };
        assert_eq!(
            gateway_url(Some(" "), " ", &plain).unwrap(),
            "ws://127.0.0.1:8080/ws"
        );
    }

    #[test]
    fn query_beats_setting() {
        assert_eq!(
            gateway_url(Some("ws://a:1/ws"), "ws://b:2/ws", &PAGE).unwrap(),
            "ws://a:1/ws"
        );
        assert_eq!(
            gateway_url(None, "HTTPS://b/ws", &PAGE).unwrap(),
            "wss://b/ws"
        );
    }

    #[test]
    fn other_schemes_are_refused() {
        assert!(gateway_url(Some("javascript:alert(1)"), "", &PAGE).is_err());
        assert!(gateway_url(Some("ws://"), "", &PAGE).is_err());
    }
}

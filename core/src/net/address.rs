//! Gateway addresses in one canonical form (`ws[s]://host[:port]/path`), so
//! that "is this the gateway the token was saved for" is a comparison of
//! equal values. Different spellings of one address (`WS://`, `http://`,
//! `:80`, `%2e`) compare equal; anything the browser could read another way
//! than we do (a user name, a backslash, spaces) is refused.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address {
    secure: bool,
    /// Lower case; IPv6 in brackets, in its shortest form.
    host: String,
    /// `None` for the scheme's default port.
    port: Option<u16>,
    /// Starts with `/`; no query, no fragment.
    path: String,
}

impl Address {
    /// Reads `ws://`, `wss://`, or `http://` / `https://` (as a convenience,
    /// mapped to `ws://` / `wss://`), case-insensitively. A query or
    /// fragment is dropped: a gateway is named by its origin and path.
    pub fn parse(input: &str) -> Result<Address, String> {
        parse(input.trim()).map_err(|why| not_a_gateway(input, why))
    }

    /// The page's own gateway: `/ws` on the origin it was served from, given
    /// `location.protocol` and `location.host`.
    pub fn same_origin(protocol: &str, host: &str) -> Result<Address, String> {
        let scheme = if protocol.eq_ignore_ascii_case("https:") {
            "wss"
        } else {
            "ws"
        };
        Address::parse(&format!("{scheme}://{host}/ws"))
    }

    /// The canonical URL, also the key tokens are saved under.
    pub fn url(&self) -> String {
        self.to_string()
    }

    /// `localhost`, 127.0.0.0/8 or `[::1]`: traffic never leaves the machine.
    pub fn is_loopback(&self) -> bool {
        if self.host == "localhost" {
            return true;
        }
        if let Ok(v4) = self.host.parse::<Ipv4Addr>() {
            return v4.is_loopback();
        }
        self.host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .and_then(|h| h.parse::<Ipv6Addr>().ok())
            .is_some_and(|v6| v6.is_loopback())
    }

    /// Plain `ws://` to another machine: anyone on the path can read it.
    pub fn is_exposed(&self) -> bool {
        !self.secure && !self.is_loopback()
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.secure { "wss" } else { "ws" };
        write!(f, "{scheme}://{}", self.host)?;
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        f.write_str(&self.path)
    }
}

fn not_a_gateway(input: &str, why: &str) -> String {
    let shown: String = input.trim().chars().take(120).collect();
    format!("“{shown}” is not a gateway address ({why}): use ws://host:port/ws or wss://…")
}

fn parse(input: &str) -> Result<Address, &'static str> {
    // What the URL parser would strip or read as a separator, we refuse,
    // so that the address shown is the address connected to.
    if input
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
    {
        return Err("spaces, control characters or backslashes");
    }
    let (scheme, rest) = input.split_once("://").ok_or("no ws:// or wss://")?;
    let secure = match scheme.to_ascii_lowercase().as_str() {
        "ws" | "http" => false,
        "wss" | "https" => true,
        _ => return Err("not ws, wss, http or https"),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, "/"),
    };
    if authority.contains('@') {
        return Err("a user name in the address");
    }
    let (host, port) = split_port(authority)?;
    let default_port = if secure { 443 } else { 80 };
    Ok(Address {
        secure,
        host: canonical_host(host)?,
        port: port.filter(|p| *p != default_port),
        path: canonical_path(path)?,
    })
}

/// `host[:port]`, where an IPv6 host is bracketed.
fn split_port(authority: &str) -> Result<(&str, Option<u16>), &'static str> {
    let colon = match authority.rfind(']') {
        Some(end) => authority[end..].find(':').map(|i| end + i),
        None => authority.rfind(':'),
    };
    let Some(colon) = colon else {
        return Ok((authority, None));
    };
    let (host, port) = (&authority[..colon], &authority[colon + 1..]);
    if port.is_empty() {
        return Ok((host, None));
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err("a port that is not a number");
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok((host, Some(p))),
        _ => Err("a port out of range"),
    }
}

fn canonical_host(raw: &str) -> Result<String, &'static str> {
    let decoded = percent_decode(raw, |_| true).ok_or("a malformed %-escape")?;
    let host = decoded.to_ascii_lowercase();
    if let Some(inner) = host.strip_prefix('[') {
        let v6 = inner
            .strip_suffix(']')
            .and_then(|h| h.parse::<Ipv6Addr>().ok())
            .ok_or("a malformed IPv6 address")?;
        return Ok(format!("[{v6}]"));
    }
    let valid = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    if !valid {
        return Err("no host, or a host with characters a host name cannot have");
    }
    Ok(host)
}

/// Decodes escapes of unreserved characters, upper-cases the others and
/// resolves `.` / `..` segments, as the browser does before it connects.
fn canonical_path(raw: &str) -> Result<String, &'static str> {
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    let decoded = percent_decode(raw, unreserved).ok_or("a malformed %-escape")?;
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = decoded.split('/').skip(1).collect();
    for (i, seg) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        match *seg {
            "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
        // A trailing dot segment names a directory: keep its slash.
        if last && matches!(*seg, "." | "..") {
            segments.push("");
        }
    }
    Ok(format!("/{}", segments.join("/")))
}

/// Decodes `%XX` escapes whose byte `decode` accepts (others are kept,
/// with upper-case hex); `None` if an escape is malformed or the result is
/// not UTF-8.
fn percent_decode(s: &str, decode: impl Fn(u8) -> bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let hex = s.get(i + 1..i + 3)?;
        let byte = u8::from_str_radix(hex, 16).ok()?;
        if decode(byte) {
            out.push(byte);
        } else {
            out.extend_from_slice(format!("%{byte:02X}").as_bytes());
        }
        i += 3;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        Address::parse(s).map(|a| a.url()).unwrap_or_else(|e| e)
    }

    #[test]
    fn spellings_of_one_address_are_equal() {
        let want = "ws://gw.example:8080/ws";
        for s in [
            "ws://gw.example:8080/ws",
            "WS://GW.Example:8080/ws",
            "http://gw.example:8080/ws",
            "Http://gw.example:8080/ws?x=1#frag",
            "  ws://gw.example:8080/ws  ",
            "ws://gw%2Eexample:8080/ws",
            "ws://gw.example:8080/%77s",
            "ws://gw.example:8080/a/../ws",
            "ws://gw.example:8080/./ws",
        ] {
            assert_eq!(canon(s), want, "{s}");
        }
    }

    #[test]
    fn default_ports_are_dropped_and_tls_maps() {
        assert_eq!(canon("ws://h:80/ws"), "ws://h/ws");
        assert_eq!(canon("wss://h:443/ws"), "wss://h/ws");
        assert_eq!(canon("https://h:443/ws"), "wss://h/ws");
        assert_eq!(canon("wss://h:80/ws"), "wss://h:80/ws");
        assert_eq!(canon("ws://h:/ws"), "ws://h/ws");
        assert_eq!(canon("ws://h"), "ws://h/");
    }

    #[test]
    fn distinct_addresses_stay_distinct() {
        let a = canon("ws://127.0.0.1:9000/ws");
        for other in [
            "ws://localhost:9000/ws",
            "wss://127.0.0.1:9000/ws",
            "ws://127.0.0.1:9001/ws",
            "ws://127.0.0.1:9000/ws2",
            "ws://127.0.0.1:9000/WS",
            "ws://127.0.0.1:9000/w%2Fs",
        ] {
            assert_ne!(canon(other), a, "{other}");
        }
        // An escaped slash is not a slash.
        assert_eq!(canon("ws://h/w%2fs"), "ws://h/w%2Fs");
    }

    #[test]
    fn ipv6_is_canonical() {
        assert_eq!(canon("ws://[0:0:0:0:0:0:0:1]:9/ws"), "ws://[::1]:9/ws");
        assert_eq!(canon("ws://[0:0::A]/ws"), "ws://[::a]/ws");
        assert!(Address::parse("ws://[::1/ws").is_err());
        assert!(Address::parse("ws://[zz]/ws").is_err());
    }

    #[test]
    fn ambiguous_or_foreign_input_is_refused() {
        for s in [
            "javascript:alert(1)",
            "ws://",
            "ws:///ws",
            "ftp://h/ws",
            "ws://good.example@evil.example/ws",
            "ws://h\\@evil/ws",
            "ws://h /ws",
            "ws://h\t/ws",
            "ws://h:99999/ws",
            "ws://h:0/ws",
            "ws://h:8o/ws",
            "ws://h%zz/ws",
            "ws://h%2fx/ws",
            "ws://hö.example/ws",
        ] {
            let e = Address::parse(s).expect_err(s);
            assert!(e.contains("is not a gateway address"), "{s}: {e}");
        }
    }

    #[test]
    fn loopback_and_exposure() {
        for s in [
            "ws://localhost:1/ws",
            "ws://LOCALHOST/ws",
            "ws://127.0.0.1/ws",
            "ws://127.9.8.7/ws",
            "ws://[::1]/ws",
        ] {
            let a = Address::parse(s).unwrap();
            assert!(a.is_loopback() && !a.is_exposed(), "{s}");
        }
        for s in [
            "ws://128.0.0.1/ws",
            "ws://localhost.evil.example/ws",
            "ws://10.0.0.2/ws",
            "ws://[::2]/ws",
            "ws://gateway.test/ws",
        ] {
            let a = Address::parse(s).unwrap();
            assert!(!a.is_loopback() && a.is_exposed(), "{s}");
        }
        assert!(!Address::parse("wss://gw.example/ws").unwrap().is_exposed());
    }

    #[test]
    fn same_origin_follows_the_page() {
        let a = Address::same_origin("https:", "Chat.Example:443").unwrap();
        assert_eq!(a.url(), "wss://chat.example/ws");
        let b = Address::same_origin("http:", "127.0.0.1:8080").unwrap();
        assert_eq!(b.url(), "ws://127.0.0.1:8080/ws");
        assert!(Address::same_origin("file:", "").is_err());
    }
}

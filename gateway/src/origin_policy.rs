//! Which browsers may open `/ws`: the `Origin` and `Host` check that keeps
//! other web pages from driving the gateway (cross-site WebSocket
//! hijacking, `Origin: null` from sandboxed frames, DNS rebinding).
//!
//! A browser always sends `Origin` on a WebSocket upgrade. It must be the
//! gateway's own origin (the scheme, host and port that `Host` names) or one
//! listed with `--allowed-origin`, and `Host` must be a name the gateway
//! serves: loopback names, the bound IP, or one listed with `--allowed-host`.
//! A request without `Origin` does not come from a web page and passes (the
//! token still guards it).

use std::net::IpAddr;

/// Why an upgrade was refused, with the offending header value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("Host {0:?} is not a name this gateway serves")]
    Host(String),
    #[error("Origin {0:?} is neither the gateway's own nor an allowed one")]
    Origin(String),
}

/// A `--allowed-origin` or `--allowed-host` value that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidEntry {
    #[error("--allowed-origin {0:?} is not an origin like https://chat.example.org")]
    Origin(String),
    #[error("--allowed-host {0:?} is not a host name")]
    Host(String),
}

#[derive(Debug, Clone)]
pub struct OriginPolicy {
    bound_ip: IpAddr,
    extra_origins: Vec<Origin>,
    extra_hosts: Vec<String>,
}

impl OriginPolicy {
    /// The policy of a gateway bound to `bound_ip`; `origins` and `hosts` are
    /// the `--allowed-origin` and `--allowed-host` values.
    pub fn new(
        bound_ip: IpAddr,
        origins: &[String],
        hosts: &[String],
    ) -> Result<Self, InvalidEntry> {
        let extra_origins = origins
            .iter()
            .map(|o| {
                let trimmed = o.trim();
                Origin::parse(trimmed.strip_suffix('/').unwrap_or(trimmed))
                    .ok_or_else(|| InvalidEntry::Origin(o.clone()))
            })
            .collect::<Result<_, _>>()?;
        let extra_hosts = hosts
            .iter()
            .map(|h| match HostPort::parse(h.trim()) {
                Some(HostPort { name, port: None }) => Ok(name),
                _ => Err(InvalidEntry::Host(h.clone())),
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            bound_ip,
            extra_origins,
            extra_hosts,
        })
    }

    /// Whether an upgrade with these `Host` and `Origin` headers may proceed.
    pub fn check(&self, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        let Some(origin) = origin else {
            return Ok(());
        };
        let refuse_host = || Refusal::Host(host.unwrap_or_default().to_string());
        let host = host.and_then(HostPort::parse).ok_or_else(refuse_host)?;
        if !self.serves(&host.name) {
            return Err(refuse_host());
        }
        let refuse_origin = || Refusal::Origin(origin.to_string());
        let parsed = Origin::parse(origin).ok_or_else(refuse_origin)?;
        if parsed.is_served_by(&host) || self.extra_origins.contains(&parsed) {
            Ok(())
        } else {
            Err(refuse_origin())
        }
    }

    /// Loopback names, the bound IP (any IP literal when bound to all
    /// interfaces: a page cannot rebind an address, only a name) and the
    /// `--allowed-host` names.
    fn serves(&self, name: &str) -> bool {
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        let unbracketed = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name);
        if let Ok(ip) = unbracketed.parse::<IpAddr>() {
            return ip.is_loopback() || ip == self.bound_ip || self.bound_ip.is_unspecified();
        }
        self.extra_hosts.iter().any(|h| h == name)
    }
}

/// A host name or IP literal (IPv6 in brackets) with an optional port,
/// lower-cased and without a trailing dot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPort {
    name: String,
    port: Option<u16>,
}

impl HostPort {
    /// Parses `host[:port]`, the form of the `Host` header.
    fn parse(text: &str) -> Option<Self> {
        let (name, port) = if text.starts_with('[') {
            let end = text.find(']')?;
            let (name, rest) = text.split_at(end + 1);
            (name, rest)
        } else {
            match text.rfind(':') {
                Some(colon) => text.split_at(colon),
                None => (text, ""),
            }
        };
        let port = match port {
            "" => None,
            p => Some(p.strip_prefix(':')?.parse().ok()?),
        };
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._[]:".contains(c));
        valid.then_some(Self { name, port })
    }
}

/// A serialized origin, `scheme://host[:port]`, with the scheme's default
/// port filled in so `https://h` and `https://h:443` compare equal.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: HostPort,
}

impl Origin {
    /// Parses the `Origin` header; `null` and anything with a path, query
    /// or credentials is not an origin.
    fn parse(text: &str) -> Option<Self> {
        let (scheme, rest) = text.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let valid_scheme = scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if !valid_scheme || scheme.is_empty() || rest.contains(['/', '?', '#', '@']) {
            return None;
        }
        let mut host = HostPort::parse(rest)?;
        host.port = host.port.or(default_port(&scheme));
        Some(Self { scheme, host })
    }

    /// Whether a page of this origin was served by whoever answers to
    /// `host`. Both web schemes count: a TLS proxy in front of the gateway
    /// turns `https` into plain `http`, but still on the same host and port.
    fn is_served_by(&self, host: &HostPort) -> bool {
        let port = host.port.or(default_port(&self.scheme));
        default_port(&self.scheme).is_some()
            && self.host.name == host.name
            && self.host.port == port
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(bound: &str, origins: &[&str], hosts: &[&str]) -> OriginPolicy {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        OriginPolicy::new(bound.parse().expect("ip"), &owned(origins), &owned(hosts))
            .expect("valid policy")
    }

    fn ok(p: &OriginPolicy, host: &str, origin: &str) -> bool {
        p.check(Some(host), Some(origin)).is_ok()
    }

    #[test]
    fn no_origin_passes_whatever_the_host() {
        let p = policy("127.0.0.1", &[], &[]);
        assert_eq!(p.check(Some("evil.example"), None), Ok(()));
        assert_eq!(p.check(None, None), Ok(()));
    }

    #[test]
    fn own_origin_through_each_loopback_name() {
        let p = policy("127.0.0.1", &[], &[]);
        assert!(ok(&p, "127.0.0.1:8080", "http://127.0.0.1:8080"));
        assert!(ok(&p, "localhost:8080", "http://localhost:8080"));
        assert!(ok(&p, "127.8.9.10:8080", "http://127.8.9.10:8080"));
        assert!(ok(&p, "[::1]:8080", "http://[::1]:8080"));
        assert!(ok(&p, "app.localhost:8080", "http://app.localhost:8080"));
    }

    #[test]
    fn a_foreign_or_null_origin_is_refused_with_its_value() {
        let p = policy("127.0.0.1", &[], &[]);
        assert_eq!(
            p.check(Some("127.0.0.1:8080"), Some("http://evil.example")),
            Err(Refusal::Origin("http://evil.example".into()))
        );
        assert!(!ok(&p, "127.0.0.1:8080", "null"));
        assert!(!ok(&p, "127.0.0.1:8080", ""));
        assert!(!ok(&p, "127.0.0.1:8080", "http://127.0.0.1:8080/path"));
        assert!(!ok(&p, "127.0.0.1:8080", "http://user@127.0.0.1:8080"));
        // Same host, other port: another server on this machine.
        assert!(!ok(&p, "127.0.0.1:8080", "http://127.0.0.1:9090"));
        // localhost and 127.0.0.1 are different origins.
        assert!(!ok(&p, "127.0.0.1:8080", "http://localhost:8080"));
        assert!(!ok(&p, "127.0.0.1:8080", "file://127.0.0.1:8080"));
    }

    #[test]
    fn dns_rebinding_host_is_refused_even_when_origin_matches_it() {
        let p = policy("127.0.0.1", &[], &[]);
        assert_eq!(
            p.check(Some("evil.example:8080"), Some("http://evil.example:8080")),
            Err(Refusal::Host("evil.example:8080".into()))
        );
        assert!(p.check(None, Some("http://127.0.0.1:8080")).is_err());
        assert!(!ok(
            &p,
            "localhost.evil.example",
            "http://localhost.evil.example"
        ));
        assert!(!ok(
            &p,
            "127.0.0.1.evil.example",
            "http://127.0.0.1.evil.example"
        ));
        assert!(
            !ok(&p, "10.0.0.5:8080", "http://10.0.0.5:8080"),
            "not the bound IP"
        );
    }

    #[test]
    fn default_ports_match_an_absent_port() {
        let p = policy("127.0.0.1", &[], &["chat.example.org"]);
        assert!(ok(&p, "chat.example.org", "https://chat.example.org"));
        assert!(ok(&p, "chat.example.org:443", "https://chat.example.org"));
        assert!(ok(&p, "chat.example.org", "https://chat.example.org:443"));
        assert!(ok(&p, "chat.example.org", "http://chat.example.org:80"));
        assert!(!ok(&p, "chat.example.org", "https://chat.example.org:8443"));
        assert!(!ok(&p, "chat.example.org:8443", "https://chat.example.org"));
    }

    #[test]
    fn scheme_and_host_compare_case_insensitively_and_without_trailing_dot() {
        let p = policy("127.0.0.1", &["https://Chat.Example.org/"], &["Box.LAN."]);
        assert!(ok(&p, "LOCALHOST:8080", "HTTP://LocalHost:8080"));
        assert!(ok(&p, "localhost.:8080", "http://localhost:8080"));
        assert!(ok(&p, "box.lan:8080", "http://BOX.lan.:8080"));
        assert!(ok(&p, "127.0.0.1:8080", "HTTPS://chat.example.ORG"));
        assert!(ok(&p, "127.0.0.1:8080", "https://chat.example.org."));
    }

    #[test]
    fn ipv6_brackets() {
        let p = policy("::1", &["http://[fd00::2]:3000"], &[]);
        assert!(ok(&p, "[::1]:8080", "http://[::1]:8080"));
        assert!(ok(
            &p,
            "[0:0:0:0:0:0:0:1]:8080",
            "http://[0:0:0:0:0:0:0:1]:8080"
        ));
        assert!(ok(&p, "[::1]", "http://[::1]:80"));
        assert!(ok(&p, "[::1]:8080", "http://[FD00::2]:3000"));
        assert!(!ok(&p, "[::1]:8080", "http://[::1]:9090"));
        assert!(!ok(&p, "[fd00::9]:8080", "http://[fd00::9]:8080"));
        assert!(!ok(&p, "[::1:8080", "http://[::1]:8080"));
    }

    #[test]
    fn the_bound_ip_is_served_and_any_ip_when_bound_to_all() {
        let lan = policy("192.168.1.20", &[], &[]);
        assert!(ok(&lan, "192.168.1.20:8080", "http://192.168.1.20:8080"));
        assert!(!ok(&lan, "192.168.1.21:8080", "http://192.168.1.21:8080"));
        let all = policy("0.0.0.0", &[], &[]);
        assert!(ok(&all, "192.168.1.21:8080", "http://192.168.1.21:8080"));
        assert!(
            !ok(&all, "box.lan:8080", "http://box.lan:8080"),
            "names still need --allowed-host"
        );
    }

    #[test]
    fn allowed_origins_add_to_the_own_origin_and_need_a_served_host() {
        let p = policy("127.0.0.1", &["https://chat.example.org"], &[]);
        assert!(ok(&p, "127.0.0.1:8080", "https://chat.example.org"));
        assert!(ok(&p, "127.0.0.1:8080", "http://127.0.0.1:8080"));
        assert!(!ok(&p, "127.0.0.1:8080", "http://chat.example.org"));
        assert!(!ok(&p, "evil.example", "https://chat.example.org"));
    }

    #[test]
    fn invalid_entries_are_rejected() {
        let ip: IpAddr = "127.0.0.1".parse().expect("ip");
        let one = |s: &str| vec![s.to_string()];
        for bad in [
            "chat.example.org",
            "https://chat.example.org/app",
            "null",
            "https://",
        ] {
            assert_eq!(
                OriginPolicy::new(ip, &one(bad), &[]).err(),
                Some(InvalidEntry::Origin(bad.into())),
                "{bad}"
            );
        }
        for bad in ["box.lan:8080", "", "a b", "http://box.lan"] {
            assert!(OriginPolicy::new(ip, &[], &one(bad)).is_err(), "{bad}");
        }
    }
}

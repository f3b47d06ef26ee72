//! Which gateway to connect to, with which token, and when to ask first.
//!
//! The address is `?gateway=` if the link names one, else the saved
//! setting, else the page's own origin at `/ws`. A link never switches
//! gateways silently: one that names a gateway other than the page's own,
//! the saved one or one the user chose to remember waits for the user's
//! yes. A token goes only to the gateway it was saved for, and over plain
//! `ws://` to another machine only after the user agreed.

use super::address::Address;
use crate::settings::Settings;

/// The page location parts that matter here.
pub struct PageOrigin<'a> {
    /// `"http:"` or `"https:"`, as `location.protocol` gives it.
    pub protocol: &'a str,
    /// `host[:port]`, as `location.host` gives it.
    pub host: &'a str,
}

/// What the user said, in this page, about the gateway a link names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum LinkAnswer {
    #[default]
    Unasked,
    Accepted(Address),
    Declined(Address),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Connect now; the token is the one saved for this address, if any.
    Connect {
        address: Address,
        token: Option<String>,
    },
    /// A link names a gateway the user has not confirmed.
    ConfirmLink(Address),
    /// The token saved for this address would travel unencrypted to
    /// another machine.
    ConfirmPlaintext(Address),
    /// Nothing usable to connect to (why, for the status).
    Unusable(String),
}

/// Decides what to do for the link's `?gateway=` value (if any), the
/// page's origin, the settings and this page's answer about the link.
pub fn plan(
    link: Option<&str>,
    page: &PageOrigin,
    settings: &Settings,
    answer: &LinkAnswer,
) -> Plan {
    let own = match Address::same_origin(page.protocol, page.host) {
        Ok(a) => a,
        Err(why) => return Plan::Unusable(why),
    };
    let saved = settings.gateway_url.trim();
    let home = if saved.is_empty() {
        Ok(own.clone())
    } else {
        Address::parse(saved)
    };
    let link = link.map(str::trim).filter(|s| !s.is_empty());
    let chosen = match link.map(Address::parse) {
        None => home,
        Some(Err(why)) => Err(why),
        Some(Ok(named)) => {
            let known = named == own
                || home.as_ref() == Ok(&named)
                || settings.trusts(&named)
                || *answer == LinkAnswer::Accepted(named.clone());
            if known {
                Ok(named)
            } else if *answer == LinkAnswer::Declined(named.clone()) {
                home
            } else {
                return Plan::ConfirmLink(named);
            }
        }
    };
    let address = match chosen {
        Ok(a) => a,
        Err(why) => return Plan::Unusable(why),
    };
    let token = settings.token_for(&address).map(str::to_string);
    if token.is_some() && address.is_exposed() && !settings.allows_plaintext(&address) {
        return Plan::ConfirmPlaintext(address);
    }
    Plan::Connect { address, token }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: PageOrigin = PageOrigin {
        protocol: "http:",
        host: "127.0.0.1:8080",
    };
    const OWN: &str = "ws://127.0.0.1:8080/ws";
    const OTHER: &str = "ws://127.0.0.1:9999/ws";

    fn addr(s: &str) -> Address {
        Address::parse(s).unwrap()
    }

    fn with_token(at: &str, token: &str) -> Settings {
        let mut s = Settings::default();
        s.set_token(&addr(at), token);
        s
    }

    fn connect(at: &str, token: Option<&str>) -> Plan {
        Plan::Connect {
            address: addr(at),
            token: token.map(str::to_string),
        }
    }

    #[test]
    fn same_origin_is_automatic_with_its_token() {
        let s = with_token(OWN, "secret");
        for link in [
            None,
            Some(""),
            Some("  "),
            Some(OWN),
            Some("HTTP://127.0.0.1:8080/ws"),
        ] {
            assert_eq!(
                plan(link, &PAGE, &s, &LinkAnswer::Unasked),
                connect(OWN, Some("secret")),
                "{link:?}"
            );
        }
        let tls = PageOrigin {
            protocol: "https:",
            host: "chat.example:8443",
        };
        assert_eq!(
            plan(None, &tls, &Settings::default(), &LinkAnswer::Unasked),
            connect("wss://chat.example:8443/ws", None)
        );
    }

    #[test]
    fn a_link_elsewhere_waits_and_never_carries_the_token() {
        let s = with_token(OWN, "secret");
        for link in [
            OTHER,
            "http://127.0.0.1:9999/ws",
            "WS://127.0.0.1:9999/ws",
            "ws://localhost:8080/ws",
            "ws://127.0.0.1:8080/ws2",
        ] {
            let named = addr(link);
            assert_eq!(
                plan(Some(link), &PAGE, &s, &LinkAnswer::Unasked),
                Plan::ConfirmLink(named.clone()),
                "{link}"
            );
            // Yes: that gateway, without the other one's token.
            assert_eq!(
                plan(Some(link), &PAGE, &s, &LinkAnswer::Accepted(named.clone())),
                Plan::Connect {
                    address: named.clone(),
                    token: None
                },
                "{link}"
            );
            // No: the page's own gateway, as if there were no link.
            assert_eq!(
                plan(Some(link), &PAGE, &s, &LinkAnswer::Declined(named)),
                connect(OWN, Some("secret")),
                "{link}"
            );
        }
        // An answer about another address does not count for this one.
        assert_eq!(
            plan(
                Some(OTHER),
                &PAGE,
                &s,
                &LinkAnswer::Accepted(addr("ws://127.0.0.1:9998/ws"))
            ),
            Plan::ConfirmLink(addr(OTHER))
        );
    }

    #[test]
    fn saved_and_remembered_gateways_are_automatic() {
        let mut s = with_token(OTHER, "theirs");
        s.gateway_url = "http://127.0.0.1:9999/ws".into();
        assert_eq!(
            plan(None, &PAGE, &s, &LinkAnswer::Unasked),
            connect(OTHER, Some("theirs"))
        );
        assert_eq!(
            plan(Some(OTHER), &PAGE, &s, &LinkAnswer::Unasked),
            connect(OTHER, Some("theirs"))
        );
        // The page's own gateway stays automatic too, and gets no token.
        assert_eq!(
            plan(Some(OWN), &PAGE, &s, &LinkAnswer::Unasked),
            connect(OWN, None)
        );
        let third = "wss://third.example/ws";
        assert_eq!(
            plan(Some(third), &PAGE, &s, &LinkAnswer::Unasked),
            Plan::ConfirmLink(addr(third))
        );
        s.trust(&addr(third));
        assert_eq!(
            plan(Some(third), &PAGE, &s, &LinkAnswer::Unasked),
            connect(third, None)
        );
    }

    #[test]
    fn a_token_in_plain_text_to_another_machine_needs_a_yes() {
        let lan = "ws://192.168.1.5:8080/ws";
        let mut s = with_token(lan, "secret");
        s.trust(&addr(lan));
        assert_eq!(
            plan(Some(lan), &PAGE, &s, &LinkAnswer::Unasked),
            Plan::ConfirmPlaintext(addr(lan))
        );
        s.allow_plaintext(&addr(lan));
        assert_eq!(
            plan(Some(lan), &PAGE, &s, &LinkAnswer::Unasked),
            connect(lan, Some("secret"))
        );
        // No token, nothing to expose; TLS or loopback, nothing to ask.
        let s = Settings::default();
        let page = PageOrigin {
            protocol: "http:",
            host: "gw.example",
        };
        assert_eq!(
            plan(None, &page, &s, &LinkAnswer::Unasked),
            connect("ws://gw.example/ws", None)
        );
        let s = with_token("wss://gw.example/ws", "t");
        let tls = PageOrigin {
            protocol: "https:",
            host: "gw.example",
        };
        assert_eq!(
            plan(None, &tls, &s, &LinkAnswer::Unasked),
            connect("wss://gw.example/ws", Some("t"))
        );
        let s = with_token("ws://[::1]:1/ws", "t");
        assert_eq!(
            plan(
                Some("ws://[::1]:1/ws"),
                &PAGE,
                &s,
                &LinkAnswer::Accepted(addr("ws://[::1]:1/ws"))
            ),
            connect("ws://[::1]:1/ws", Some("t"))
        );
    }

    #[test]
    fn unusable_addresses_connect_nowhere() {
        let s = with_token(OWN, "secret");
        for link in ["javascript:alert(1)", "ws://", "ws://a@b/ws"] {
            let p = plan(Some(link), &PAGE, &s, &LinkAnswer::Unasked);
            assert!(
                matches!(&p, Plan::Unusable(why) if why.contains("not a gateway address")),
                "{link}: {p:?}"
            );
        }
        let bad = Settings {
            gateway_url: "gopher://x".into(),
            ..Settings::default()
        };
        assert!(matches!(
            plan(None, &PAGE, &bad, &LinkAnswer::Unasked),
            Plan::Unusable(_)
        ));
    }
}

//! The state shared by every connection.

use std::sync::Arc;

use subtle::ConstantTimeEq;

use crate::agent::Agent;
use crate::approvals::Approvals;
use crate::config::Config;
use crate::outbox::Outbox;
use crate::turns::Turns;

pub struct App {
    pub outbox: Arc<Outbox>,
    pub turns: Arc<Turns>,
    pub approvals: Arc<Approvals>,
    pub agent: Arc<dyn Agent>,
    token: Option<String>,
    allowed_origins: Vec<String>,
}

impl App {
    pub fn new(config: &Config, outbox: Arc<Outbox>, agent: Arc<dyn Agent>) -> Self {
        let approvals = Arc::new(Approvals::new(config.approval_timeout));
        Self {
            turns: Arc::new(Turns::new(
                Arc::clone(&outbox),
                Arc::clone(&approvals),
                Arc::clone(&agent),
            )),
            approvals,
            outbox,
            agent,
            token: config.token.clone(),
            allowed_origins: config
                .allowed_origins
                .iter()
                .map(|o| normalize_origin(o))
                .collect(),
        }
    }

    /// Checks `hello.token` in constant time (only the length can leak).
    pub fn token_ok(&self, token: Option<&str>) -> bool {
        match (&self.token, token) {
            (None, _) => true,
            (Some(expected), Some(given)) => expected.as_bytes().ct_eq(given.as_bytes()).into(),
            (Some(_), None) => false,
        }
    }

    /// Whether a WebSocket upgrade with this `Origin` header may proceed.
    pub fn origin_allowed(&self, origin: Option<&str>) -> bool {
        match origin {
            _ if self.allowed_origins.is_empty() => true,
            // Only browsers send Origin, and only browsers need the guard
            // against other sites opening the socket with the user's network.
            None => true,
            Some(origin) => self.allowed_origins.contains(&normalize_origin(origin)),
        }
    }
}

/// `HTTPS://Host:8443/` and `https://host:8443` are the same origin.
fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn app(token: Option<&str>, origins: &[&str]) -> (App, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = Config {
            token: token.map(str::to_string),
            allowed_origins: origins.iter().map(|o| o.to_string()).collect(),
            ..Config::new()
        };
        let outbox = Arc::new(Outbox::new(Store::open(dir.path()).expect("store")));
        let agent = crate::agent::build(&config);
        (App::new(&config, outbox, agent), dir)
    }

    #[tokio::test]
    async fn token_check() {
        let (open, _d1) = app(None, &[]);
        assert!(open.token_ok(None));
        assert!(open.token_ok(Some("anything")));
        let (locked, _d2) = app(Some("s3cret"), &[]);
        assert!(locked.token_ok(Some("s3cret")));
        assert!(!locked.token_ok(Some("s3cre")));
        assert!(!locked.token_ok(Some("s3cret!")));
        assert!(!locked.token_ok(None));
    }

    #[tokio::test]
    async fn origin_allow_list() {
        let (any, _d1) = app(None, &[]);
        assert!(any.origin_allowed(Some("https://evil.example")));
        let (listed, _d2) = app(None, &["https://Chat.example.org/"]);
        assert!(listed.origin_allowed(Some("https://chat.example.org")));
        assert!(!listed.origin_allowed(Some("https://evil.example")));
        assert!(!listed.origin_allowed(Some("")));
        assert!(listed.origin_allowed(None));
    }
}

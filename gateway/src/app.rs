//! The state shared by every connection.

use std::sync::Arc;

use subtle::ConstantTimeEq;

use crate::address_limit::AddressLimit;
use crate::agent::Agent;
use crate::approvals::Approvals;
use crate::config::Config;
use crate::files::Files;
use crate::hello_throttle::HelloThrottle;
use crate::outbox::Outbox;
use crate::turns::Turns;

pub struct App {
    pub outbox: Arc<Outbox>,
    pub turns: Arc<Turns>,
    pub approvals: Arc<Approvals>,
    pub agent: Arc<dyn Agent>,
    pub files: Arc<Files>,
    /// Wrong tokens per client address.
    pub hello_throttle: HelloThrottle,
    /// Open sockets per client address.
    pub sockets: AddressLimit,
    /// Frames per second and burst of one connection.
    pub frames_per_sec: u32,
    pub frame_burst: u32,
    token: Option<String>,
}

impl App {
    pub fn new(
        config: &Config,
        outbox: Arc<Outbox>,
        agent: Arc<dyn Agent>,
        files: Arc<Files>,
    ) -> Self {
        let approvals = Arc::new(Approvals::new(config.approval_timeout));
        Self {
            turns: Arc::new(Turns::new(
                Arc::clone(&outbox),
                Arc::clone(&approvals),
                Arc::clone(&files),
                Arc::clone(&agent),
            )),
            approvals,
            outbox,
            agent,
            files,
            hello_throttle: HelloThrottle::default(),
            sockets: AddressLimit::new(config.max_sockets_per_address),
            frames_per_sec: config.frames_per_sec,
            frame_burst: config.frame_burst,
            token: config.token.clone(),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn app(token: Option<&str>) -> (App, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = Config {
            token: token.map(str::to_string),
            ..Config::new()
        };
        let outbox = Arc::new(Outbox::new(Store::open(dir.path()).expect("store")));
        let agent = crate::agent::build(&config).expect("demo agent");
        let files = Arc::new(Files::open(dir.path(), config.files.clone()).expect("files"));
        (App::new(&config, outbox, agent, files), dir)
    }

    #[tokio::test]
    async fn token_check() {
        let (open, _d1) = app(None);
        assert!(open.token_ok(None));
        assert!(open.token_ok(Some("anything")));
        let (locked, _d2) = app(Some("s3cret"));
        assert!(locked.token_ok(Some("s3cret")));
        assert!(!locked.token_ok(Some("s3cre")));
        assert!(!locked.token_ok(Some("s3cret!")));
        assert!(!locked.token_ok(None));
    }
}

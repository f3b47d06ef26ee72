//! Chrome DevTools Protocol commands through chromedriver's
//! `goog/cdp/execute` (the benchmark's metrics, the code suite's clipboard
//! permission).

use fantoccini::wd::WebDriverCompatibleCommand;
use serde_json::{json, Value};

use super::Browser;

/// One CDP command with its parameters.
#[derive(Debug)]
pub struct Cdp {
    pub cmd: &'static str,
    pub params: Value,
}

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        let body = json!({ "cmd": self.cmd, "params": self.params });
        (http::Method::POST, Some(body.to_string()))
    }
}

impl Browser {
    /// Runs a CDP command; fails the test when chromedriver refuses it.
    pub async fn cdp(&self, cmd: &'static str, params: Value) -> Value {
        match self.client().issue_cmd(Cdp { cmd, params }).await {
            Ok(v) => v,
            Err(e) => {
                self.fail(&format!("chromedriver refused CDP {cmd}: {e}"))
                    .await
            }
        }
    }
}

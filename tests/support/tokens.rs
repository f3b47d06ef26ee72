//! What the security tests share: the real gateway with a token, the app
//! on it with that token saved, and what a gateway was sent.

use serde_json::Value;

use super::connection::wait_status;
use super::fake_gateway::FakeGateway;
use super::ui::*;
use super::{secs, App, Browser, GatewayOpts};

pub const TOKEN_A: &str = "tok-A-4c1d-secret";

/// Gateway A (the real one, `--token`), serving the app, with the app open
/// on it and A's token saved in Settings, connected.
pub async fn app_with_token() -> App {
    let app = App::start_with(GatewayOpts {
        token: Some(TOKEN_A.into()),
        ..GatewayOpts::default()
    })
    .await;
    let b = &app.browser;
    wait_status(b, "unauthorized", secs(20)).await;
    with_settings(b, |b| async move { fill(b, "token", TOKEN_A).await }).await;
    connected(b).await;
    app
}

/// Every `hello` the fake gateway received, in order.
pub fn hellos(fake: &FakeGateway) -> Vec<Value> {
    fake.connections()
        .into_iter()
        .filter_map(|c| c.hello)
        .collect()
}

/// The tokens saved in localStorage, as `{address: token}`.
pub async fn stored_tokens(b: &Browser) -> Value {
    stored_settings(b).await["tokens"].clone()
}

/// The port of `url` (`http://…` or `ws://…`).
pub fn port_of(url: &str) -> u16 {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.port())
        .unwrap_or_else(|| panic!("no port in {url}"))
}

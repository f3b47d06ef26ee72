//! The app's connection as a test sees it: a real gateway behind a TCP
//! proxy (the network) with the app on it, the connection badge, the
//! diagnostics counters.

use std::time::Duration;

use super::tcp_proxy::TcpProxy;
use super::{secs, Browser, Gateway, GatewayOpts, Page};

/// A real gateway started with `opts`, a [`TcpProxy`] in front of it (the
/// network), and the app on the proxy (not waited for), with the gateway's
/// output in its failure reports.
pub async fn behind_proxy(opts: GatewayOpts) -> (Gateway, TcpProxy, Page) {
    let gateway = Gateway::start(opts);
    let proxy = TcpProxy::start(gateway.addr()).await;
    let page = Page::open(&proxy.ws_url(), "").await;
    page.browser
        .attach_log("gateway output", gateway.output_handle());
    (gateway, proxy, page)
}

/// The connection badge's `data-state`.
pub async fn status(b: &Browser) -> String {
    b.js(
        "const e = document.querySelector('[data-testid=conn-status]'); \
         return e ? e.dataset.state : null;",
        vec![],
    )
    .await
    .as_str()
    .unwrap_or("(none)")
    .to_string()
}

/// The connection badge's text.
pub async fn status_text(b: &Browser) -> String {
    b.try_text_of("[data-testid=conn-status]")
        .await
        .unwrap_or_default()
}

pub async fn wait_status(b: &Browser, state: &str, timeout: Duration) {
    b.wait_for(
        &format!("[data-testid=conn-status][data-state={state}]"),
        timeout,
    )
    .await;
}

/// The diagnostics counters, read from the settings panel (opened and
/// closed again).
pub async fn diagnostics(b: &Browser) -> (u64, u64) {
    b.click("[data-testid=open-settings]").await;
    b.wait_for("[data-testid=diag-dropped]", secs(5)).await;
    let read = |sel: &'static str| async move {
        b.text_of(sel)
            .await
            .trim()
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("{sel} is not a number"))
    };
    let frames = read("[data-testid=diag-frames]").await;
    let dropped = read("[data-testid=diag-dropped]").await;
    b.click("[data-testid=close-settings]").await;
    (frames, dropped)
}

/// Fails the test on console errors that mean the app broke: a Rust panic
/// or a wasm trap, anything uncaught. A socket that failed or closed is
/// expected while the gateway is away, and warnings (e.g. "dropped a
/// frame") are no errors.
pub async fn assert_no_crash(b: &Browser) {
    let bad: Vec<String> = b
        .console_errors()
        .await
        .into_iter()
        .filter(|e| {
            let m = e.message.to_lowercase();
            !(m.contains("websocket") && (m.contains("failed") || m.contains("closed")))
                && !m.contains("err_connection_refused")
        })
        .map(|e| e.to_string())
        .collect();
    if !bad.is_empty() {
        b.fail(&format!(
            "the app logged errors (panic, trap or uncaught exception):\n  {}",
            bad.join("\n  ")
        ))
        .await;
    }
}

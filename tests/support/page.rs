//! The built client served by a [`StaticServer`] and pointed (`?gateway=`)
//! at any gateway: a real one, one behind a [`TcpProxy`](super::tcp_proxy),
//! or a [`FakeGateway`](super::fake_gateway). The page itself stays
//! reachable while the gateway dies.
//!
//! The app asks before it connects to a gateway a link names (it is not the
//! page's own): `open` and `second_browser` answer yes, with "remember",
//! for any `ws://` address, so a reload connects at once.

use std::sync::OnceLock;

use super::ui::answer_link_prompt;
use super::{exclusive, paths, Browser, StaticServer};

/// The one static server of the test binary, started on first use. A real
/// gateway accepts a page's WebSocket only from its own origin or one it
/// allows, so [`Gateway::start`](super::Gateway::start) allows this one.
pub fn page_server() -> &'static StaticServer {
    static SERVER: OnceLock<StaticServer> = OnceLock::new();
    SERVER.get_or_init(|| StaticServer::serve(paths::dist_path()))
}

/// `http://127.0.0.1:PORT` of [`page_server`].
pub fn page_origin() -> String {
    page_server().url().trim_end_matches('/').to_string()
}

/// A browser with the app served by a static server, holding the suite's
/// browser lock.
pub struct Page {
    pub browser: Browser,
    pub server: &'static StaticServer,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl Page {
    /// Opens the app at `#<hash>` talking to `gateway_ws`.
    pub async fn open(gateway_ws: &str, hash: &str) -> Page {
        let turn = exclusive().await;
        paths::dist_dir();
        let server = page_server();
        let browser = Browser::start().await;
        let page = Page {
            browser,
            server,
            _turn: turn,
        };
        page.browser.goto(&page.url(gateway_ws, hash)).await;
        // Boxed: this future nests in big test futures on 2 MiB stacks.
        Box::pin(confirm_if_asked(&page.browser, gateway_ws)).await;
        page
    }

    pub fn url(&self, gateway_ws: &str, hash: &str) -> String {
        format!("{}?gateway={gateway_ws}{hash}", self.server.url())
    }

    /// Another device (fresh profile) on the same static server.
    pub async fn second_browser(&self, gateway_ws: &str, hash: &str) -> Browser {
        let b = Browser::start().await;
        b.goto(&self.url(gateway_ws, hash)).await;
        Box::pin(confirm_if_asked(&b, gateway_ws)).await;
        b
    }

    /// Fails the test if the browser logged a console error, then closes it.
    pub async fn finish(self) {
        self.browser.finish().await;
    }
}

/// Says yes (and "remember") to the question about `gateway_ws`, which the
/// app asks for every usable address (an unusable one it refuses at once).
async fn confirm_if_asked(b: &Browser, gateway_ws: &str) {
    if gateway_ws.to_ascii_lowercase().starts_with("ws://") {
        answer_link_prompt(b, true, None, true).await;
    }
}

//! End-to-end test harness: the real gateway binary serving the real `dist/`,
//! driven through chromedriver in headless Chromium.
//!
//! ```ignore
//! let app = App::start().await;             // gateway + browser on the app page
//! let b = &app.browser;
//! b.wait_for("[data-testid=conn-status][data-state=connected]", secs(10)).await;
//! app.assert_no_console_errors().await;
//! app.close().await;
//! ```
//!
//! Paths come from the environment, set by `scripts/test`, with defaults for
//! a plain `cargo test`: `ARIA_DIST` (default `<repo>/dist`),
//! `ARIA_GATEWAY_BIN` (default `<target>/debug/aria-gateway`), `CHROMEDRIVER`
//! (default `chromedriver` on PATH), `ARIA_CHROMIUM` (default
//! `/usr/bin/chromium`). `ARIA_E2E_TIMEOUT_SCALE` (e.g. `3`) stretches every
//! timeout on a slow machine. On failure, a screenshot, the page's HTML, the
//! browser console and the gateway's output land in `<target>/e2e-artifacts/`.
//!
//! Tests that use a browser take a global lock, so they run one at a time
//! (the machine has 2 cores; two Chromiums and two gateways at once make
//! timing-based assertions flaky).

pub mod approvals;
pub mod axe;
pub mod browser;
pub mod bursts;
pub mod canary;
pub mod cdp;
pub mod connection;
pub mod fake_gateway;
pub mod gateway;
pub mod page;
pub mod paths;
pub mod recorder;
pub mod search;
pub mod static_server;
pub mod tcp_proxy;
pub mod threads;
pub mod timeline;
pub mod tokens;
pub mod ui;
pub mod xss_corpus;

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

#[allow(unused_imports)] // for tests that inspect console entries
pub use browser::{Browser, LogEntry};
pub use gateway::{Gateway, GatewayOpts};
#[allow(unused_imports)] // for the suites that serve the app statically
pub use page::Page;
pub use static_server::StaticServer;

/// `Duration::from_secs`, scaled by `ARIA_E2E_TIMEOUT_SCALE`.
pub fn secs(s: u64) -> Duration {
    scaled(Duration::from_secs(s))
}

/// `Duration::from_millis`, scaled by `ARIA_E2E_TIMEOUT_SCALE`.
pub fn millis(ms: u64) -> Duration {
    scaled(Duration::from_millis(ms))
}

fn scaled(d: Duration) -> Duration {
    static SCALE: OnceLock<f64> = OnceLock::new();
    let scale = *SCALE.get_or_init(|| {
        std::env::var("ARIA_E2E_TIMEOUT_SCALE")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .unwrap_or(1.0)
    });
    d.mul_f64(scale)
}

/// Serialises browser tests within one test binary (see the module docs).
pub async fn exclusive() -> tokio::sync::OwnedMutexGuard<()> {
    static LOCK: OnceLock<Arc<tokio::sync::Mutex<()>>> = OnceLock::new();
    LOCK.get_or_init(|| Arc::new(tokio::sync::Mutex::new(())))
        .clone()
        .lock_owned()
        .await
}

/// Runs a browser test on its own thread with a big stack: these tests'
/// futures nest deeply, and unoptimized builds overflow libtest's 2 MiB.
/// The thread keeps the test's name (failure artifacts are named after it).
pub fn run<Fut: Future<Output = ()>>(body: impl FnOnce() -> Fut + Send + 'static) {
    if let Err(panic) = run_catching(body) {
        std::panic::resume_unwind(panic);
    }
}

/// [`run`], handing a panic of the body back as `Err` (to print more before
/// re-raising it).
pub fn run_catching<Fut: Future<Output = ()>>(
    body: impl FnOnce() -> Fut + Send + 'static,
) -> std::thread::Result<()> {
    let name = std::thread::current().name().unwrap_or("e2e").to_string();
    std::thread::Builder::new()
        .name(name)
        .stack_size(64 << 20)
        .spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime")
                .block_on(Box::pin(body()))
        })
        .expect("spawn the test thread")
        .join()
}

/// Calls `probe` every `every` until it returns `Some`, or fails after
/// `timeout` with `what` and the last error seen. Not tied to a browser:
/// `Browser::poll` wraps it with failure diagnostics.
pub async fn poll_until<T, E, F, Fut>(
    what: &str,
    timeout: Duration,
    every: Duration,
    mut probe: F,
) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, E>>,
    E: std::fmt::Display,
{
    let deadline = Instant::now() + timeout;
    let mut last_err = None;
    loop {
        match probe().await {
            Ok(Some(v)) => return Ok(v),
            Ok(None) => {}
            Err(e) => last_err = Some(e.to_string()),
        }
        if Instant::now() >= deadline {
            return Err(match last_err {
                Some(e) => {
                    format!("timed out after {timeout:?} waiting for {what} (last error: {e})")
                }
                None => format!("timed out after {timeout:?} waiting for {what}"),
            });
        }
        tokio::time::sleep(every).await;
    }
}

/// The gateway serving `dist/`, and one browser with the app open in it.
pub struct App {
    pub browser: Browser,
    pub gateway: Gateway,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl App {
    /// Starts the gateway with default options and opens the app.
    pub async fn start() -> App {
        App::start_with(GatewayOpts::default()).await
    }

    /// Starts the gateway with `opts` (its static dir defaults to the dist)
    /// and opens the app in a fresh headless Chromium.
    pub async fn start_with(opts: GatewayOpts) -> App {
        let app = App::unopened(opts).await;
        app.browser.goto(&app.gateway.app_url()).await;
        app
    }

    /// [`App::start_with`] without opening the app: the browser is blank,
    /// for DevTools settings that must come before the first load.
    pub async fn unopened(mut opts: GatewayOpts) -> App {
        let turn = exclusive().await;
        if opts.static_dir.is_none() {
            opts.static_dir = Some(paths::dist_dir());
        }
        let gateway = Gateway::start(opts);
        let browser = Browser::start().await;
        browser.attach_log("gateway output", gateway.output_handle());
        App {
            browser,
            gateway,
            _turn: turn,
        }
    }

    /// Another browser opened at `url` (e.g. a deep link `…/#/t/<id>`).
    pub async fn open_browser_at(&self, url: &str) -> Browser {
        let b = Browser::start().await;
        b.attach_log("gateway output", self.gateway.output_handle());
        b.goto(url).await;
        b
    }

    /// Fails the test if the main browser logged any console error.
    pub async fn assert_no_console_errors(&self) {
        self.browser.assert_no_console_errors().await;
    }

    /// Ends the browser session cleanly; the processes end on drop anyway.
    pub async fn close(self) {
        self.browser.close().await;
    }

    /// Fails the test if the main browser logged any console error, then
    /// closes it.
    pub async fn finish(self) {
        self.browser.finish().await;
    }
}

//! The two scenarios, driven the same way in either client: a fresh
//! headless Chromium per run (the bench's flags), `bench/probe.js` and
//! `watch.js` added to the page before its own scripts, main-thread time
//! from the DevTools protocol. What differs between the clients is only
//! their [`Ui`]: where to type, what shows an answer still streaming, what
//! scrolls.

use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::sse::END_HREF;
use crate::cdp::{self, MainThread};
use crate::measure::Collected;
use crate::report::load_average;
use crate::support::{paths, poll_until, secs, Browser};

/// After a cap: for the client to say it is done, and for its page to
/// answer the measuring calls, before the run is given up.
const AFTER_CAP_SECS: u64 = 60;
/// Page load → the thread's newest message.
pub const OPEN_CAP_SECS: u64 = 90;

/// Presses Enter in the composer from a timer task of the page, noting
/// when in `__peer.sent` (the start of the measured window).
const SEND: &str = "const el = document.querySelector(arguments[0]); el.focus(); \
    setTimeout(() => { window.__peer.sent = performance.now(); \
      el.dispatchEvent(new KeyboardEvent('keydown', \
        { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true })); }, 0);";
/// Send → the answer's end on screen, once it is.
const END_SHOWN: &str =
    "const p = window.__peer; return p.marks.end === undefined ? null : p.marks.end - p.sent;";

/// One client's page.
pub struct Ui {
    pub name: &'static str,
    /// The message box (typed into, Enter sends).
    pub composer: &'static str,
    /// Present once the page can send (aria-web: connected).
    pub ready: &'static str,
    /// Present while an answer streams.
    pub busy: &'static str,
    /// The element that scrolls the thread.
    pub scroller: &'static str,
}

/// A thread to open: its URL and its first and newest messages' selectors.
pub struct Thread {
    pub url: String,
    pub first: String,
    pub last: String,
}

/// What one streamed answer cost.
#[derive(Debug, Clone)]
pub struct StreamRun {
    /// Send (Enter) → the answer's last block on screen; `None` past the cap.
    pub end_ms: Option<f64>,
    /// Send → the client no longer shows the answer as streaming (the end
    /// of the measured window).
    pub done_ms: Option<f64>,
    pub main: MainThread,
    /// NaN when the page never answered.
    pub long_tasks: f64,
    pub longest_task: f64,
    pub dom_nodes: f64,
    pub load: String,
}

/// What opening a long thread and scrolling it to the top cost.
#[derive(Debug, Clone)]
pub struct ThreadRun {
    /// Navigation start → the newest message in the DOM.
    pub open_ms: Option<f64>,
    pub dom_nodes: f64,
    /// Scrolling started → the first message in the DOM with the scroller
    /// at the top; `None` past the cap.
    pub top_ms: Option<f64>,
    /// NaN when the page never answered.
    pub long_tasks: f64,
    pub longest_task: f64,
    pub main: MainThread,
    pub load: String,
}

/// A fresh browser whose pages get the probe and the watcher first;
/// `watch` (name → selector) is watched from the first frame on.
async fn browser(watch: &Value) -> Browser {
    let b = Browser::start().await;
    let probe = std::fs::read_to_string(paths::repo_root().join("bench/probe.js"))
        .expect("bench: read bench/probe.js");
    let source = format!(
        "window.__peerWatch = {watch};\n{}\n{probe}",
        include_str!("watch.js")
    );
    b.cdp(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": source }),
    )
    .await;
    b
}

/// A script's value, or `None` when the page did not answer (a page busy
/// in one long task makes chromedriver give up after its script timeout).
async fn try_js(b: &Browser, script: &str, args: Vec<Value>) -> Option<Value> {
    b.client().execute(script, args).await.ok()
}

/// Polls `script` until it returns a number, for at most `cap`.
async fn wait_number(b: &Browser, what: &str, script: &str, cap: Duration) -> Option<f64> {
    poll_until(what, cap, Duration::from_millis(100), || async {
        let v = try_js(b, script, vec![]).await;
        Ok::<_, String>(v.and_then(|v| v.as_f64()))
    })
    .await
    .ok()
}

/// `fut`'s value, or `None` once `deadline` has passed: a page busy in
/// long tasks answers WebDriver late or not at all, and a run must end.
async fn by<T>(deadline: Instant, fut: impl Future<Output = Option<T>>) -> Option<T> {
    tokio::time::timeout_at(deadline.into(), fut)
        .await
        .ok()
        .flatten()
}

async fn metrics(b: &Browser) -> Option<std::collections::HashMap<String, f64>> {
    Some(cdp::metrics(b).await)
}

/// What the probe recorded since the time `since` (a JS expression).
async fn collect(b: &Browser, since: &str) -> Option<Collected> {
    let script = format!("return window.__bench.collect({since});");
    let v = try_js(b, &script, vec![]).await?;
    serde_json::from_value(v).ok()
}

fn main_between(
    before: &Option<std::collections::HashMap<String, f64>>,
    after: &Option<std::collections::HashMap<String, f64>>,
) -> MainThread {
    let empty = Default::default();
    MainThread::between(
        before.as_ref().unwrap_or(&empty),
        after.as_ref().unwrap_or(&empty),
    )
}

/// Sends `stream KIB` and measures until the end of the answer is shown
/// (at most `cap`) and the client says it stopped streaming.
pub async fn stream(ui: &Ui, url: &str, kib: usize, cap: Duration) -> StreamRun {
    let load = load_average();
    let b = browser(&json!({})).await;
    b.goto(url).await;
    b.wait_for(ui.composer, secs(120)).await;
    b.wait_for(ui.ready, secs(60)).await;
    // Start-up work (model lists, sidebars, fonts) out of the way.
    tokio::time::sleep(secs(2)).await;
    b.type_into(ui.composer, &format!("stream {kib}")).await;
    b.js(
        "window.__peer.watch.end = arguments[0];",
        vec![json!(format!("a[href='{END_HREF}']"))],
    )
    .await;
    let before = metrics(&b).await;
    // Enter as a key event dispatched from a task of the page's own: a
    // WebDriver key press waits for the page to acknowledge it, and even a
    // script's result can come late from a page busy with the answer, so
    // the caps count from here.
    let sent = Instant::now();
    let hard = sent + cap + secs(AFTER_CAP_SECS);
    let end = match by(sent + cap, try_js(&b, SEND, vec![json!(ui.composer)])).await {
        Some(_) => {
            by(
                sent + cap,
                wait_number(&b, "the end of the answer", END_SHOWN, cap),
            )
            .await
        }
        None => None,
    };
    let mut done = None;
    if end.is_some() {
        let idle = format!(
            "return document.querySelector(\"{}\") ? null : performance.now() - window.__peer.sent;",
            ui.busy
        );
        done = by(
            hard,
            wait_number(&b, "the stream to stop", &idle, secs(AFTER_CAP_SECS)),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let main = main_between(&before, &by(hard, metrics(&b)).await);
    let seen = by(hard, collect(&b, "window.__peer.sent || 0")).await;
    let run = StreamRun {
        end_ms: end,
        done_ms: done,
        main,
        long_tasks: seen
            .as_ref()
            .map_or(f64::NAN, |s| s.long_tasks.len() as f64),
        longest_task: seen.as_ref().map_or(f64::NAN, Collected::longest_task),
        dom_nodes: seen.and_then(|s| s.memory.dom_nodes).unwrap_or(f64::NAN),
        load,
    };
    b.close().await;
    run
}

/// Opens `thread` in a fresh page, then scrolls it to the top (at most
/// `cap`).
pub async fn thread(ui: &Ui, thread: &Thread, cap: Duration) -> ThreadRun {
    let load = load_average();
    let b = browser(&json!({ "open": thread.last })).await;
    b.goto(&thread.url).await;
    let opened = Instant::now();
    let open_by = opened + secs(OPEN_CAP_SECS);
    let open = by(
        open_by,
        wait_number(
            &b,
            "the thread open",
            "return window.__peer.marks.open ?? null;",
            secs(OPEN_CAP_SECS),
        ),
    )
    .await;
    tokio::time::sleep(secs(1)).await;
    let before = by(open_by + secs(AFTER_CAP_SECS), metrics(&b)).await;
    let count = try_js(
        &b,
        "return document.getElementsByTagName('*').length;",
        vec![],
    );
    let nodes = by(open_by + secs(AFTER_CAP_SECS), count)
        .await
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::NAN);
    let scrolled = Instant::now();
    let hard = scrolled + cap + secs(AFTER_CAP_SECS);
    let start = try_js(
        &b,
        "window.__peer.toTop(arguments[0], arguments[1], arguments[2]); return 1;",
        vec![
            json!(ui.scroller),
            json!(thread.first),
            json!(cap.as_millis() as u64),
        ],
    );
    let top = match by(hard, start).await {
        Some(_) => {
            let top = "const t = window.__peer.top; \
                       return t.done ? (t.timedOut ? -1 : t.ended - t.started) : null;";
            by(
                hard,
                wait_number(&b, "the thread's top", top, cap + secs(AFTER_CAP_SECS)),
            )
            .await
        }
        None => None,
    };
    let main = main_between(&before, &by(hard, metrics(&b)).await);
    let seen = by(hard, collect(&b, "0")).await;
    let run = ThreadRun {
        open_ms: open,
        dom_nodes: nodes,
        top_ms: top.filter(|t| *t >= 0.0),
        long_tasks: seen
            .as_ref()
            .map_or(f64::NAN, |s| s.long_tasks.len() as f64),
        longest_task: seen.as_ref().map_or(f64::NAN, Collected::longest_task),
        main,
        load,
    };
    b.close().await;
    run
}

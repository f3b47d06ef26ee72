//! One module per scenario of the benchmark; each measures, then adds its
//! metrics (with targets), checks and notes to the report.

pub mod branch;
pub mod burst;
pub mod code;
pub mod decode;
pub mod diagram;
pub mod export;
pub mod flood;
pub mod images;
pub mod jump;
pub mod lighthouse;
pub mod load;
pub mod search;
pub mod stream;
pub mod thread;
pub mod throttled;
pub mod upload;

/// A timed walk of the timeline that the probe ran, once it ended.
pub struct Walked {
    /// The page's clock when the walk was asked for.
    pub t0: f64,
    /// The probe's state at the end, as `state_js` read it.
    pub state: serde_json::Value,
    /// The main thread's CPU over the walk.
    pub main: crate::cdp::MainThread,
    /// The page's clock when the walk began and ended.
    pub started: f64,
    pub ended: f64,
}

/// Starts a walk with `start_js` (its `arguments[0]` is `opts`) and waits,
/// up to `timeout`, until the state `state_js` returns says it is done.
pub async fn walk(
    page: &crate::page::Page<'_>,
    what: &str,
    start_js: &str,
    opts: serde_json::Value,
    state_js: &str,
    timeout: std::time::Duration,
) -> Walked {
    use crate::cdp::{self, MainThread};
    let t0 = page.now().await;
    let before = cdp::metrics(page.b).await;
    page.js(start_js, vec![opts]).await;
    let state = page
        .b
        .poll(what, timeout, || async {
            let s = page.js(state_js, vec![]).await;
            s["done"].as_bool().unwrap_or(false).then_some(s)
        })
        .await;
    let main = MainThread::between(&before, &cdp::metrics(page.b).await);
    let started = state["started"].as_f64().unwrap_or(t0);
    let ended = state["ended"].as_f64().unwrap_or(f64::NAN);
    Walked {
        t0,
        state,
        main,
        started,
        ended,
    }
}

/// Reports the longest main-thread task of `seen` (target: none over
/// 50 ms), how many there were, the frames missed, and the worst long
/// frame's attribution.
pub fn report_long_tasks(
    report: &mut crate::report::Report,
    scenario: &'static str,
    what: &str,
    seen: &crate::measure::Collected,
) {
    use crate::report::Target;
    report.metric(
        scenario,
        format!("longest main-thread task, {what}"),
        seen.longest_task(),
        "ms",
        Some(Target::AtMost(50.0)),
    );
    report.metric(
        scenario,
        "long tasks over 50 ms",
        seen.long_tasks.len() as f64,
        "",
        Some(Target::AtMost(0.0)),
    );
    report.metric(
        scenario,
        "frames missed",
        seen.missed_frames() as f64,
        "",
        None,
    );
    let tasks: Vec<f64> = seen.long_tasks.iter().map(|t| t.1.round()).collect();
    report.note(
        scenario,
        format!(
            "long tasks {tasks:?} ms; {}",
            seen.worst_frame()
                .unwrap_or_else(|| "no long frame".to_string())
        ),
    );
}

/// One frame through the app's socket handler, in a task of its own.
pub async fn feed(page: &crate::page::Page<'_>, frame: serde_json::Value) {
    page.js_async(
        "const done = arguments[arguments.length - 1];
         window.__bench.replay([arguments[0]], 1, 1).then(done, e => done({ error: String(e) }));",
        vec![serde_json::json!(frame.to_string())],
    )
    .await;
}

/// How big each scenario is: the real run, or the smoke run of the test
/// command that only proves the harness works and the numbers are sane.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// `/demo stream KiB`.
    pub stream_kib: u32,
    /// `/demo flood N`.
    pub flood_calls: u32,
    /// Frames in the burst after a 1 MiB answer.
    pub burst_frames: usize,
    /// Items logged in the seeded channel.
    pub seed_items: u64,
    /// Of its questions, how many also have an edited version with its own
    /// answer off the active path (§12): pages, jumps and search read the
    /// active path among that many forks.
    pub seed_forks: u64,
    /// How many items the huge-thread scenario scrolls up through.
    pub scroll_items: u64,
    /// Turns of typical frames replayed through decode + apply.
    pub decode_turns: usize,
    /// Page loads timed.
    pub loads: usize,
    /// Rounds of the search scenario's queries.
    pub search_rounds: usize,
    /// Items of the thread a branch is switched in.
    pub branch_items: u64,
    /// Bytes of the file uploaded.
    pub upload_bytes: usize,
    /// Messages of the thread of images, one image each.
    pub images: u64,
}

impl Sizes {
    pub const FULL: Sizes = Sizes {
        stream_kib: 100,
        flood_calls: 500,
        burst_frames: 10_000,
        seed_items: 100_000,
        seed_forks: 1_000,
        scroll_items: 5_000,
        decode_turns: 10_000,
        loads: 5,
        search_rounds: 6,
        branch_items: 10_000,
        upload_bytes: 20 << 20,
        images: 300,
    };

    pub const SMOKE: Sizes = Sizes {
        stream_kib: 8,
        flood_calls: 25,
        burst_frames: 500,
        seed_items: 400,
        seed_forks: 4,
        scroll_items: 150,
        decode_turns: 200,
        loads: 1,
        search_rounds: 1,
        branch_items: 400,
        upload_bytes: 1 << 20,
        images: 20,
    };
}

/// Where the app is served.
#[derive(Debug, Clone)]
pub struct Urls {
    /// `http://ADDR/`
    pub app: String,
}

impl Urls {
    /// The app with `query` (e.g. `render=naive`) and `hash` (e.g. `#/t/c1`).
    pub fn with(&self, query: &str, hash: &str) -> String {
        let q = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        format!("{}{q}{hash}", self.app)
    }
}

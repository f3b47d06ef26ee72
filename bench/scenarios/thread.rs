//! Huge thread: a channel of many logged items (seeded by the gateway's
//! `--seed-channel N`). First paint of the newest page, then scrolling up
//! through thousands of items while older pages load, with the reading
//! position kept exactly and only a window of rows mounted.

use serde_json::json;

use super::{walk, Sizes, Urls};
use crate::measure::percentile;
use crate::page::Page;
use crate::report::{Report, Target};
use crate::support::secs;

const SCENARIO: &str = "Huge thread";
/// The channel `aria-gateway --seed-channel N` creates.
pub const SEEDED_CHANNEL: &str = "c_seed";
/// The scroll run's numbers (not its element references).
const SCROLL_STATE: &str =
    "const s = window.__bench.scroll; return { done: s.done, timedOut: s.timedOut, \
     started: s.started, ended: s.ended, maxRows: s.maxRows, maxDrift: s.maxDrift, \
     driftFrames: s.driftFrames, lostAnchor: s.lostAnchor, topSeq: s.topSeq };";
/// Scrolled per frame: a brisk fling (about 15,000 px/s at 60 fps).
const PX_PER_FRAME: u32 = 250;

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    page.open(&urls.with("", &format!("#/t/{SEEDED_CHANNEL}")))
        .await;
    let marks = page
        .b
        .poll("the newest page painted", secs(60), || async {
            let m = page.js("return window.__bench.marks;", vec![]).await;
            Some((m["history"].as_f64()?, m["historyRows"].as_f64()?))
        })
        .await;
    report.metric(
        SCENARIO,
        "history received → newest page painted",
        marks.1 - marks.0,
        "ms",
        Some(Target::AtMost(150.0)),
    );
    page.settle().await;

    let run = walk(
        page,
        "the scroll run",
        "window.__bench.startScroll(arguments[0]);",
        json!({
            "px": PX_PER_FRAME,
            "items": sizes.scroll_items,
            "newestSeq": sizes.seed_items,
            "timeoutMs": 240_000,
        }),
        SCROLL_STATE,
        secs(300),
    )
    .await;
    let s = &run.state;
    let all = page.collect(run.t0).await;
    let w = all.window(run.started, run.ended);
    let seconds = (run.ended - run.started) / 1000.0;
    let passed = sizes.seed_items as f64 - s["topSeq"].as_f64().unwrap_or(f64::NAN);
    let render = w.render_times();

    report.metric(
        SCENARIO,
        format!(
            "frame rate scrolling up through {} items",
            sizes.scroll_items
        ),
        w.frames.len().saturating_sub(1) as f64 / seconds,
        "fps",
        Some(Target::AtLeast(58.0)),
    );
    report.metric(
        SCENARIO,
        "frames missed while scrolling",
        w.missed_frames() as f64,
        "",
        None,
    );
    report.metric(
        SCENARIO,
        "frame work p95 while scrolling",
        percentile(&render, 95.0),
        "ms",
        None,
    );
    report.metric(
        SCENARIO,
        "most rows mounted at once",
        s["maxRows"].as_f64().unwrap_or(f64::NAN),
        "rows",
        Some(Target::AtMost(300.0)),
    );
    report.metric(
        SCENARIO,
        "reading position drift, worst frame",
        s["maxDrift"].as_f64().unwrap_or(f64::NAN),
        "px",
        Some(Target::AtMost(1.0)),
    );
    let mb = |v: Option<f64>| v.map_or(f64::NAN, |b| b / 1_000_000.0);
    report.metric(
        SCENARIO,
        "JS heap after scrolling (after GC)",
        mb(all.memory.js_heap_used),
        "MB",
        Some(Target::AtMost(150.0)),
    );
    report.metric(
        SCENARIO,
        "wasm linear memory after scrolling (app and markdown module)",
        mb(all.memory.wasm),
        "MB",
        None,
    );
    report.check(
        SCENARIO,
        format!(
            "the scroll passed {passed:.0} items (≥ {}) without timing out",
            sizes.scroll_items
        ),
        passed >= sizes.scroll_items as f64 && !s["timedOut"].as_bool().unwrap_or(true),
    );
    let pages = w.socket.iter().filter(|r| r.kind() == "history").count();
    report.note(
        SCENARIO,
        format!(
            "{PX_PER_FRAME} px per frame for {seconds:.1} s, {} frames ({:.1} ms of main-thread CPU per frame; {}), {pages} older pages loaded on the way; frames where the top row moved off its exact place (> 1 px): {}; anchor row unmounted: {}; DOM nodes at the end: {}{}",
            w.frames.len(),
            run.main.cpu_ms / w.frames.len().max(1) as f64,
            run.main.describe(),
            s["driftFrames"],
            s["lostAnchor"],
            all.memory.dom_nodes.unwrap_or(f64::NAN),
            w.worst_frame().map(|f| format!("; {f}")).unwrap_or_default()
        ),
    );
}

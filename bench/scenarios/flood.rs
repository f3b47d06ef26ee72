//! Tool flood: one turn with N tool calls 1 ms apart. No long task, and at
//! the end every card is there, once, and finished.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{report_long_tasks, Sizes, Urls};
use crate::cdp::{self, MainThread};
use crate::measure::{median, percentile};
use crate::page::Page;
use crate::report::Report;
use crate::support::secs;

const SCENARIO: &str = "Tool flood";

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    let calls = sizes.flood_calls;
    page.open(&urls.with("", "")).await;
    let t0 = page.now().await;
    let before = cdp::metrics(page.b).await;
    page.send(&format!("/demo flood {calls}")).await;
    page.wait_message("message.stop", t0, secs(180)).await;
    let main = MainThread::between(&before, &cdp::metrics(page.b).await);
    let all = page.collect(t0).await;
    let start = all.first("tool.start").unwrap_or(t0);
    let w = all.window(start, all.now);

    report_long_tasks(report, SCENARIO, &format!("{calls} tool calls"), &w);
    let render = w.render_times();
    report.metric(
        SCENARIO,
        "frame work p95",
        percentile(&render, 95.0),
        "ms",
        None,
    );

    // Real socket path, for comparison with the replay of the decode scenario.
    let tool_frames: Vec<f64> = w
        .socket
        .iter()
        .filter(|s| s.kind().starts_with("tool."))
        .map(|s| s.duration())
        .collect();
    let per_frame = tool_frames.iter().sum::<f64>() / tool_frames.len().max(1) as f64;
    report.note(
        SCENARIO,
        format!(
            "{}; {} tool frames handled from the socket: p50 {:.3} ms each, mean {:.3} ms ({:.0} frames/s through the live WebSocket handler)",
            main.describe(),
            tool_frames.len(),
            median(&tool_frames),
            per_frame,
            1000.0 / per_frame,
        ),
    );

    let cards = sweep(page).await;
    let ok = cards.values().filter(|s| s.as_str() == "ok").count();
    let others: BTreeMap<&str, usize> =
        cards
            .values()
            .filter(|s| s.as_str() != "ok")
            .fold(BTreeMap::new(), |mut m, s| {
                *m.entry(s.as_str()).or_default() += 1;
                m
            });
    report.check(
        SCENARIO,
        format!(
            "all {calls} tool cards are in the thread, once each, finished ok (found {} cards, {ok} ok, others {others:?})",
            cards.len()
        ),
        cards.len() == calls as usize && ok == calls as usize,
    );
}

/// Every tool card of the open thread by row key, with its `data-state`.
async fn sweep(page: &Page<'_>) -> BTreeMap<String, String> {
    page.js("window.__bench.startSweep();", vec![]).await;
    let done = page
        .b
        .poll("the sweep through the thread", secs(120), || async {
            let s = page.js("return window.__bench.sweep;", vec![]).await;
            s["done"].as_bool().unwrap_or(false).then_some(s)
        })
        .await;
    match done["cards"].clone() {
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

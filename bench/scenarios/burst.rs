//! Burst: a 1 MiB answer on screen, then a burst of frames (a streamed
//! answer's snapshots and a tool's progress notes, interleaved, then their
//! ends and one more message) fed to the app's own socket handler a few
//! frames per task, as a socket delivers them. No long task: the rows
//! after the answer change and arrive without the answer being laid out
//! again.

use serde_json::json;

use super::{report_long_tasks, Sizes, Urls};
use crate::page::Page;
use crate::report::Report;
use crate::support::bursts::{burst_frames, one_mib_message};
use crate::support::secs;

const SCENARIO: &str = "Burst";
/// Frames handed to the handler per task.
const FRAMES_PER_TASK: usize = 4;
/// Frames sent to the page per WebDriver call (a 4 KB snapshot each, at most).
const FRAMES_PER_CALL: usize = 1000;
const BIG_ROW: &str = ".row[data-key='m:big']";

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    // A thread of the gateway's own to put the frames in.
    page.open(&urls.with("", "")).await;
    let t0 = page.now().await;
    page.send("hello").await;
    page.wait_message("message.stop", t0, secs(60)).await;
    let at = page
        .js(
            "const seqs = [...document.querySelectorAll('.row[data-seq]')].map(r => +r.dataset.seq); \
             return { channel: decodeURIComponent(location.hash.replace(/^#\\/t\\//, '')), \
                      seq: Math.max(0, ...seqs) };",
            vec![],
        )
        .await;
    let channel = at["channel"].as_str().unwrap_or_default().to_string();
    let seq = at["seq"].as_u64().unwrap_or(0);

    queue(page, &[one_mib_message(&channel, seq + 1)]).await;
    page.js_async("window.__bench.burst(1).then(arguments[0]);", vec![])
        .await;
    page.b.wait_for(BIG_ROW, secs(30)).await;
    page.settle().await;
    page.settle().await;
    // Marks the answer's element: mounted again, it would be a new one.
    page.js(
        &format!("document.querySelector(\"{BIG_ROW}\").__bench_mark = true;"),
        vec![],
    )
    .await;

    let frames = burst_frames(&channel, seq + 2, sizes.burst_frames);
    let n = frames.len();
    for part in frames.chunks(FRAMES_PER_CALL) {
        queue(page, part).await;
    }
    let start = page.now().await;
    page.js_async(
        "window.__bench.burst(arguments[0]).then(arguments[1]);",
        vec![json!(FRAMES_PER_TASK)],
    )
    .await;
    page.b
        .wait_for(".row[data-key='m:after_burst']", secs(30))
        .await;
    page.settle().await;
    let all = page.collect(start).await;
    let w = all.window(start, all.now);

    report_long_tasks(
        report,
        SCENARIO,
        &format!("{n} frames after a 1 MiB answer"),
        &w,
    );
    let kept = page
        .js(
            &format!(
                "const e = document.querySelector(\"{BIG_ROW}\"); return !!(e && e.__bench_mark);"
            ),
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        "the 1 MiB answer's row stayed mounted through the burst (not laid out again)",
        kept == json!(true),
    );
}

/// Adds `frames` to the probe's queue.
async fn queue(page: &Page<'_>, frames: &[String]) {
    page.js(
        "window.__bench.queued.push(...arguments[0]);",
        vec![json!(frames)],
    )
    .await;
}

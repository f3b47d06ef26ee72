//! Long stream: a markdown answer arriving as full `message.update`
//! snapshots every 10 ms, rendered incrementally; the same answer with
//! about 300 formulas (`/demo stream-math`), to the same budget; then the
//! plain stream in the same build with `?render=naive` (whole bubble
//! re-parsed and replaced on every update), for the ratio, and with
//! `?render=naive-per-frame` (the same, one render per frame), for what
//! incremental markdown alone saves.

use serde_json::Value;

use super::{Sizes, Urls};
use crate::cdp::{self, MainThread};
use crate::measure::{max, median, percentile, Collected};
use crate::page::Page;
use crate::report::{Report, Target};
use crate::support::secs;

const SCENARIO: &str = "Long stream";
/// The target per rendered update: p95 at most this.
const FRAME_BUDGET_MS: f64 = 8.0;
/// The last quarter's p95 at most this times the second's: the cost of
/// an update does not grow with the answer.
const GROWTH_LIMIT: f64 = 1.25;
/// The same stream with about 300 formulas in 100 KiB (`/demo stream-math`).
const MATH: &str = "Long stream, 300 formulas";
const NAIVE: &str = "Naive baseline";
const NAIVE_PER_FRAME: &str = "Naive, per frame";

/// What one streamed answer cost.
pub(super) struct StreamRun {
    /// Main-thread ms per rendered update, with the snapshot's size.
    pub(super) costs: Vec<(f64, u64)>,
    /// Every socket handler's ms for `message.update`.
    pub(super) handlers: Vec<f64>,
    pub(super) updates: usize,
    pub(super) long_tasks: usize,
    pub(super) longest_task: f64,
    pub(super) missed_frames: u64,
    pub(super) frames: usize,
    pub(super) worst: Option<String>,
    /// Main-thread CPU and busy time over the whole stream (CDP).
    pub(super) main: MainThread,
    /// `textContent` length of the finished answer.
    pub(super) text_len: usize,
    pub(super) streaming_left: bool,
}

impl StreamRun {
    pub(super) fn all(&self) -> Vec<f64> {
        self.costs.iter().map(|c| c.0).collect()
    }

    /// Costs of the updates in quarter `q` (0–3) of the answer's size.
    pub(super) fn in_quarter(&self, q: u64) -> Vec<f64> {
        let biggest = self.costs.iter().map(|c| c.1).max().unwrap_or(0);
        self.costs
            .iter()
            .filter(|c| c.1 * 4 >= biggest * q && (q == 3 || c.1 * 4 < biggest * (q + 1)))
            .map(|c| c.0)
            .collect()
    }

    /// p95 per quarter of the answer's size, for the notes.
    pub(super) fn p95_by_quarter(&self) -> String {
        let p95: Vec<String> = (0..4)
            .map(|q| format!("{:.1}", percentile(&self.in_quarter(q), 95.0)))
            .collect();
        format!("p95 by quarter of the answer's size {} ms", p95.join(" / "))
    }

    /// The five slowest rendered updates, each with its place in the
    /// stream (1 = the first), for the notes: which frames decide the p95.
    pub(super) fn slowest(&self, budget: f64) -> String {
        let mut costs: Vec<(usize, f64)> = self.costs.iter().map(|c| c.0).enumerate().collect();
        costs.sort_by(|a, b| b.1.total_cmp(&a.1));
        let five: Vec<String> = costs
            .iter()
            .take(5)
            .map(|(i, ms)| format!("#{} {ms:.1}", i + 1))
            .collect();
        let over = costs.iter().filter(|c| c.1 > budget).count();
        format!(
            "slowest updates (ms) {}; {over} of {} over {budget} ms",
            five.join(", "),
            costs.len()
        )
    }
}

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    let kib = sizes.stream_kib;
    let fast = measure(page, &urls.with("", ""), "stream", kib, 1.0).await;
    let math = measure(page, &urls.with("", ""), "stream-math", kib, 1.0).await;
    let naive = measure(page, &urls.with("render=naive", ""), "stream", kib, 1.0).await;
    let per_frame = measure(
        page,
        &urls.with("render=naive-per-frame", ""),
        "stream",
        kib,
        1.0,
    )
    .await;

    // Per rendered update, from the probe: the socket handlers plus the
    // frame. Not for the per-update baseline, which renders inside the
    // socket task (after the handler returns), where the probe cannot see.
    for (scenario, r) in [
        (SCENARIO, &fast),
        (MATH, &math),
        (NAIVE_PER_FRAME, &per_frame),
    ] {
        let target = |t| (scenario != NAIVE_PER_FRAME).then_some(t);
        report.metric(
            scenario,
            "main thread per rendered update, p50",
            median(&r.all()),
            "ms",
            None,
        );
        report.metric(
            scenario,
            "main thread per rendered update, p95",
            percentile(&r.all(), 95.0),
            "ms",
            target(Target::AtMost(FRAME_BUDGET_MS)),
        );
        // A quarter no frame rendered an update in (the smoke run's tiny
        // answer, heavy coalescing) has no p95: its text was shown by the
        // next quarter's first update.
        let p95: Vec<Option<f64>> = (0..4)
            .map(|q| Some(r.in_quarter(q)).filter(|c| !c.is_empty()))
            .map(|c| c.map(|c| percentile(&c, 95.0)))
            .collect();
        for (q, p) in (0u32..).zip(&p95) {
            let name = format!("… p95 at {}–{} KiB", kib * q / 4, kib * (q + 1) / 4);
            match p {
                Some(p) => report.metric(
                    scenario,
                    name,
                    *p,
                    "ms",
                    target(Target::AtMost(FRAME_BUDGET_MS)),
                ),
                None => report.note(scenario, format!("{name}: no update rendered there")),
            }
        }
        // A cost that grows with the answer shows as a last quarter dearer
        // than the second (the first holds the cold page's first update).
        if let (Some(second), Some(last)) = (p95[1], p95[3]) {
            report.metric(
                scenario,
                format!(
                    "… p95 at {}–{kib} KiB ÷ at {}–{} KiB",
                    kib * 3 / 4,
                    kib / 4,
                    kib / 2
                ),
                last / second,
                "×",
                target(Target::AtMost(GROWTH_LIMIT)),
            );
        }
    }
    for (scenario, r) in [
        (SCENARIO, &fast),
        (MATH, &math),
        (NAIVE, &naive),
        (NAIVE_PER_FRAME, &per_frame),
    ] {
        let fast_run = scenario == SCENARIO || scenario == MATH;
        report.metric(
            scenario,
            "long tasks over 50 ms",
            r.long_tasks as f64,
            "",
            fast_run.then_some(Target::AtMost(0.0)),
        );
        report.metric(scenario, "frames missed", r.missed_frames as f64, "", None);
        report.metric(
            scenario,
            "main-thread CPU, whole stream",
            r.main.cpu_ms,
            "ms",
            None,
        );
        report.metric(
            scenario,
            "main-thread CPU per snapshot, mean",
            r.main.cpu_ms / r.updates.max(1) as f64,
            "ms",
            None,
        );
        report.check(
            scenario,
            format!(
                "the finished answer is in the page ({} characters of text) and no longer streaming",
                r.text_len
            ),
            r.text_len as u64 * 10 >= u64::from(kib) * 1024 * 7 && !r.streaming_left,
        );
        report.check(
            scenario,
            format!(
                "updates were rendered ({} frames rendered for {} snapshots received)",
                r.costs.len(),
                r.updates
            ),
            !r.costs.is_empty() && r.costs.len() <= r.updates,
        );
        report.note(
            scenario,
            format!(
                "{} snapshots in {} frames, {} rendered; {}; {}; {}; socket handling per snapshot p50 {:.2} ms, max {:.2} ms; longest task {:.0} ms{}",
                r.updates,
                r.frames,
                r.costs.len(),
                r.p95_by_quarter(),
                r.slowest(FRAME_BUDGET_MS),
                r.main.describe(),
                median(&r.handlers),
                max(&r.handlers),
                r.longest_task,
                r.worst
                    .as_ref()
                    .map(|w| format!("; {w}"))
                    .unwrap_or_default()
            ),
        );
    }
    // The target is on CPU time: on a 2-core machine the incremental run's
    // busy wall time also holds the waits for a core while the compositor
    // and raster threads draw its twice as many frames (bench/README.md).
    for (what, ratio) in [
        ("main-thread CPU", naive.main.cpu_ms / fast.main.cpu_ms),
        (
            "main thread busy (wall)",
            naive.main.busy_ms / fast.main.busy_ms,
        ),
    ] {
        report.metric(
            NAIVE,
            format!("{what}, naive ÷ incremental"),
            ratio,
            "×",
            (what == "main-thread CPU").then_some(Target::AtLeast(5.0)),
        );
    }
    report.metric(
        NAIVE_PER_FRAME,
        "main-thread CPU, naive per frame ÷ incremental",
        per_frame.main.cpu_ms / fast.main.cpu_ms,
        "×",
        None,
    );
}

/// Streams `/demo {demo} {kib}` on `url` and measures it, with the page's
/// CPU slowed down `slowdown` times (1: as it is) from its load on.
pub(super) async fn measure(
    page: &Page<'_>,
    url: &str,
    demo: &str,
    kib: u32,
    slowdown: f64,
) -> StreamRun {
    cpu_slowdown(page, slowdown).await;
    page.open(url).await;
    // A person sends a first message seconds after the page connected, not
    // at once: what the app does at idle after start (the markdown and
    // highlighter warm-ups) is done by then, on a slower CPU later.
    tokio::time::sleep(secs(1).mul_f64(slowdown)).await;
    let t0 = page.now().await;
    let before = cdp::metrics(page.b).await;
    page.send(&format!("/demo {demo} {kib}")).await;
    page.wait_message("message.stop", t0, secs(180)).await;
    blocks_settled(page, slowdown).await;
    let main = MainThread::between(&before, &cdp::metrics(page.b).await);
    cpu_slowdown(page, 1.0).await;
    let all = page.collect(t0).await;
    let start = all.first("message.start").unwrap_or(t0);
    let stop = all.last("message.stop").unwrap_or(all.now);
    // Up to the last frame that appended blocks: the app spreads a burst
    // over frames, so the answer can finish appearing after the stop.
    let shown = all
        .frames
        .iter()
        .filter(|f| f.grew())
        .map(|f| f.start())
        .fold(stop, f64::max);
    let w: Collected = all.window(start, shown);
    let handlers: Vec<f64> = w
        .socket
        .iter()
        .filter(|s| s.kind() == "message.update")
        .map(|s| s.duration())
        .collect();
    let answer = page
        .js(
            "const a = Array.from(document.querySelectorAll('.msg-assistant')).pop(); \
             return { text: a ? a.querySelector('.msg-body').textContent.length : 0, \
                      streaming: document.querySelectorAll('.msg-assistant[data-streaming=true]').length };",
            vec![],
        )
        .await;
    StreamRun {
        costs: w.update_costs("message.update"),
        updates: handlers.len(),
        handlers,
        long_tasks: w.long_tasks.len(),
        longest_task: w.longest_task(),
        missed_frames: w.missed_frames(),
        frames: w.frames.len(),
        worst: w.worst_frame(),
        main,
        text_len: answer["text"].as_u64().unwrap_or(0) as usize,
        streaming_left: answer["streaming"].as_u64().unwrap_or(1) > 0 || answer == Value::Null,
    }
}

/// Waits until no frame has appended completed blocks for a while (five
/// frames, longer on a slowed CPU): the last of a burst is on the page.
async fn blocks_settled(page: &Page<'_>, slowdown: f64) {
    let quiet = 80.0 * slowdown;
    page.b
        .poll("the answer's last blocks on the page", secs(30), || async {
            let v = page
                .js(
                    "const g = window.__bench.lastGrew; \
                     return g === null || performance.now() - g > arguments[0];",
                    vec![serde_json::json!(quiet)],
                )
                .await;
            (v == true).then_some(())
        })
        .await;
}

/// DevTools' CPU throttling of the page (Lighthouse's mobile profile
/// models a phone as 4×); 1 turns it off.
async fn cpu_slowdown(page: &Page<'_>, rate: f64) {
    page.b
        .cdp(
            "Emulation.setCPUThrottlingRate",
            serde_json::json!({ "rate": rate }),
        )
        .await;
}

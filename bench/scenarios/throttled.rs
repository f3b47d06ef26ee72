//! Long stream on a phone's CPU: the same `/demo stream` answer with
//! Chromium's CPU slowed down 4× through DevTools
//! (`Emulation.setCPUThrottlingRate`, what Lighthouse's mobile profile
//! uses) from the page's load on.

use super::stream::measure;
use super::{Sizes, Urls};
use crate::measure::{median, percentile};
use crate::page::Page;
use crate::report::{Report, Target};

const SCENARIO: &str = "Long stream, CPU 4× slower";
const SLOWDOWN: f64 = 4.0;
/// Two frames at 60 Hz: a phone still shows the answer moving smoothly.
const P95_BUDGET_MS: f64 = 33.0;
/// No main-thread task may be a long task.
const TASK_BUDGET_MS: f64 = 50.0;

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    let kib = sizes.stream_kib;
    let r = measure(page, &urls.with("", ""), "stream", kib, SLOWDOWN).await;
    report.metric(
        SCENARIO,
        "main thread per rendered update, p50",
        median(&r.all()),
        "ms",
        None,
    );
    report.metric(
        SCENARIO,
        "main thread per rendered update, p95",
        percentile(&r.all(), 95.0),
        "ms",
        Some(Target::AtMost(P95_BUDGET_MS)),
    );
    // The long tasks API sees tasks of 50 ms and more only: 0 is "none".
    report.metric(
        SCENARIO,
        "longest main-thread task",
        r.longest_task,
        "ms",
        Some(Target::AtMost(TASK_BUDGET_MS)),
    );
    report.metric(
        SCENARIO,
        "long tasks over 50 ms",
        r.long_tasks as f64,
        "",
        Some(Target::AtMost(0.0)),
    );
    report.metric(
        SCENARIO,
        "main-thread CPU, whole stream",
        r.main.cpu_ms,
        "ms",
        None,
    );
    report.check(
        SCENARIO,
        format!(
            "the finished answer is in the page ({} characters of text) and no longer streaming",
            r.text_len
        ),
        r.text_len as u64 * 10 >= u64::from(kib) * 1024 * 7 && !r.streaming_left,
    );
    report.check(
        SCENARIO,
        format!(
            "updates were rendered ({} frames rendered for {} snapshots received)",
            r.costs.len(),
            r.updates
        ),
        !r.costs.is_empty() && r.costs.len() <= r.updates,
    );
    report.note(
        SCENARIO,
        format!(
            "CPU throttled {SLOWDOWN}× (DevTools), wall times; {} snapshots in {} frames, {} rendered; {}; {}; {}; frames missed {}{}",
            r.updates,
            r.frames,
            r.costs.len(),
            r.p95_by_quarter(),
            r.slowest(P95_BUDGET_MS),
            r.main.describe(),
            r.missed_frames,
            r.worst
                .as_ref()
                .map(|w| format!("; {w}"))
                .unwrap_or_default()
        ),
    );
}

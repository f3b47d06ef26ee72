//! Which numbers of each run make the side-by-side table.

use std::time::Duration;

use super::drive::{StreamRun, ThreadRun, OPEN_CAP_SECS};
use super::table::{finite, Row};
use super::{ARIA, WEBUI};
use crate::cdp::MainThread;

pub fn stream(scenario: &str, cap: Duration, aria: &[StreamRun], peer: &[StreamRun]) -> Vec<Row> {
    let runs = (aria, peer);
    let cap_ms = Some(cap.as_secs_f64() * 1000.0);
    vec![
        Row::of(
            scenario,
            ("send → end of the answer shown", "ms", cap_ms),
            runs,
            |r| r.end_ms,
        ),
        Row::of(
            scenario,
            (
                "send → client done streaming (end of the window)",
                "ms",
                None,
            ),
            runs,
            |r| r.done_ms,
        ),
        Row::of(
            scenario,
            ("main-thread busy, whole stream (TaskDuration)", "ms", None),
            runs,
            |r| finite(r.main.busy_ms),
        ),
        Row::of(
            scenario,
            ("main-thread CPU, whole stream (ThreadTime)", "ms", None),
            runs,
            |r| finite(r.main.cpu_ms),
        ),
        Row::of(scenario, ("long tasks over 50 ms", "", None), runs, |r| {
            finite(r.long_tasks)
        }),
        Row::of(scenario, ("longest task", "ms", None), runs, |r| {
            finite(r.longest_task)
        }),
        Row::of(scenario, ("DOM nodes at the end", "", None), runs, |r| {
            finite(r.dom_nodes)
        }),
    ]
}

pub fn thread(scenario: &str, cap: Duration, aria: &[ThreadRun], peer: &[ThreadRun]) -> Vec<Row> {
    let runs = (aria, peer);
    vec![
        Row::of(
            scenario,
            (
                "page load → newest message in the DOM",
                "ms",
                Some(OPEN_CAP_SECS as f64 * 1000.0),
            ),
            runs,
            |r| r.open_ms,
        ),
        Row::of(scenario, ("DOM nodes once open", "", None), runs, |r| {
            finite(r.dom_nodes)
        }),
        Row::of(
            scenario,
            (
                "scrolled to the first message",
                "ms",
                Some(cap.as_secs_f64() * 1000.0),
            ),
            runs,
            |r| r.top_ms,
        ),
        Row::of(
            scenario,
            (
                "main-thread busy while scrolling (TaskDuration)",
                "ms",
                None,
            ),
            runs,
            |r| finite(r.main.busy_ms),
        ),
        Row::of(
            scenario,
            ("long tasks over 50 ms, open + scroll", "", None),
            runs,
            |r| finite(r.long_tasks),
        ),
        Row::of(
            scenario,
            ("longest task, open + scroll", "ms", None),
            runs,
            |r| finite(r.longest_task),
        ),
    ]
}

/// One line per run: the load average it started at and where its
/// main-thread time went.
pub fn notes<R>(
    scenario: &str,
    (aria, peer): (&[R], &[R]),
    of: impl Fn(&R) -> (&String, &MainThread),
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, runs) in [(ARIA.name, aria), (WEBUI.name, peer)] {
        for (i, r) in runs.iter().enumerate() {
            let (load, main) = of(r);
            out.push(format!(
                "{scenario}, {name} run {}: load {load}; {}",
                i + 1,
                main.describe()
            ));
        }
    }
    out
}

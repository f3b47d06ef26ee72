//! The main thread's CPU time from the Chrome DevTools Protocol
//! (`Performance.getMetrics`, through `support::cdp`), which background load
//! on a shared machine does not inflate the way it inflates wall-clock times.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::support::Browser;

/// The renderer's counters (seconds for durations and times). Among them:
/// `ThreadTime` (main-thread CPU), `TaskDuration` (main-thread busy wall
/// time), `ScriptDuration`, `LayoutDuration`, `RecalcStyleDuration`.
pub async fn metrics(b: &Browser) -> HashMap<String, f64> {
    b.cdp("Performance.enable", json!({})).await;
    let v: Value = b.cdp("Performance.getMetrics", json!({})).await;
    v["metrics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| Some((m["name"].as_str()?.to_string(), m["value"].as_f64()?)))
        .collect()
}

/// Main-thread time between two readings of [`metrics`].
#[derive(Debug, Clone, Copy)]
pub struct MainThread {
    /// CPU time (ms).
    pub cpu_ms: f64,
    /// Wall time of tasks (ms).
    pub busy_ms: f64,
    pub script_ms: f64,
    pub layout_ms: f64,
    pub style_ms: f64,
}

impl MainThread {
    pub fn between(before: &HashMap<String, f64>, after: &HashMap<String, f64>) -> MainThread {
        let d = |k: &str| {
            1000.0 * (after.get(k).unwrap_or(&f64::NAN) - before.get(k).unwrap_or(&f64::NAN))
        };
        MainThread {
            cpu_ms: d("ThreadTime"),
            busy_ms: d("TaskDuration"),
            script_ms: d("ScriptDuration"),
            layout_ms: d("LayoutDuration"),
            style_ms: d("RecalcStyleDuration"),
        }
    }

    /// One line for the report's notes.
    pub fn describe(&self) -> String {
        // A reading that never came (a page too busy to answer) is NaN.
        if !self.cpu_ms.is_finite() || !self.busy_ms.is_finite() {
            return "main-thread time not read: the page did not answer in time".to_string();
        }
        format!(
            "main-thread CPU {:.0} ms for {:.0} ms of busy wall time (script {:.0}, layout {:.0}, style {:.0} ms)",
            self.cpu_ms, self.busy_ms, self.script_ms, self.layout_ms, self.style_ms
        )
    }
}

//! The side-by-side table: each metric's runs for both clients, their
//! medians and the ratio Open WebUI ÷ aria-web.

use std::fmt::Write as _;

use crate::measure::median;

/// One metric of one scenario; a `None` run passed the cap.
pub struct Row {
    pub scenario: String,
    pub metric: &'static str,
    pub unit: &'static str,
    /// Runs that did not finish are shown as "> cap".
    pub cap: Option<f64>,
    pub aria: Vec<Option<f64>>,
    pub webui: Vec<Option<f64>>,
}

impl Row {
    /// The row of `metric`, read by `f` from each run of both clients.
    pub fn of<R>(
        scenario: &str,
        (metric, unit, cap): (&'static str, &'static str, Option<f64>),
        (aria, webui): (&[R], &[R]),
        f: impl Fn(&R) -> Option<f64>,
    ) -> Row {
        Row {
            scenario: scenario.to_string(),
            metric,
            unit,
            cap,
            aria: aria.iter().map(&f).collect(),
            webui: webui.iter().map(&f).collect(),
        }
    }

    fn cell(&self, runs: &[Option<f64>]) -> String {
        if runs.is_empty() {
            return "—".into();
        }
        let all: Vec<String> = runs.iter().map(|r| self.value(*r)).collect();
        match self.middle(runs) {
            Some(m) if runs.len() > 1 => format!("{} ({})", self.value(Some(m)), all.join(", ")),
            _ => all.join(", "),
        }
    }

    fn value(&self, v: Option<f64>) -> String {
        match (v, self.cap) {
            (Some(v), _) => number(v, self.unit),
            (None, Some(cap)) => format!("> {}", number(cap, self.unit)),
            (None, None) => "—".into(),
        }
    }

    /// The median, counting a run past the cap as the cap; `None` when
    /// most runs passed it.
    fn middle(&self, runs: &[Option<f64>]) -> Option<f64> {
        let capped = runs.iter().filter(|r| r.is_none()).count();
        if capped * 2 > runs.len() || runs.is_empty() {
            return None;
        }
        let values: Vec<f64> = runs
            .iter()
            .map(|r| r.or(self.cap).unwrap_or(f64::NAN))
            .collect();
        Some(median(&values))
    }

    fn ratio(&self) -> String {
        let a = self.middle(&self.aria);
        let w = self.middle(&self.webui);
        match (a, w, self.cap) {
            (Some(a), Some(w), _) if a > 0.0 => format!("{:.1}×", w / a),
            (Some(a), None, Some(cap)) if a > 0.0 && !self.webui.is_empty() => {
                format!("> {:.0}×", cap / a)
            }
            _ => "—".into(),
        }
    }
}

/// `v` when it is a number (a missing reading is NaN).
pub fn finite(v: f64) -> Option<f64> {
    Some(v).filter(|v| v.is_finite())
}

fn number(v: f64, unit: &str) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let (v, unit) = match unit {
        "ms" if v >= 1000.0 => (v / 1000.0, "s"),
        _ => (v, unit),
    };
    let digits = if v >= 100.0 || v.fract() == 0.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    if unit.is_empty() {
        format!("{v:.digits$}")
    } else {
        format!("{v:.digits$} {unit}")
    }
}

/// The table as markdown (readable as plain text too).
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| Scenario | Metric | aria-web | Open WebUI | Open WebUI ÷ aria-web |\n|---|---|---:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.scenario,
            r.metric,
            r.cell(&r.aria),
            r.cell(&r.webui),
            r.ratio()
        );
    }
    out
}

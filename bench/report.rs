//! The results: one table of measured values next to their targets, the
//! checks that must hold for the numbers to mean anything, and notes; printed
//! and written as markdown with the machine, the date and the command.

use std::fmt::Write as _;
use std::process::Command;

/// A target a measured value must meet.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    AtMost(f64),
    AtLeast(f64),
}

impl Target {
    fn met(self, value: f64) -> bool {
        match self {
            Target::AtMost(t) => value <= t,
            Target::AtLeast(t) => value >= t,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Metric {
    pub scenario: &'static str,
    pub name: String,
    pub value: f64,
    pub unit: &'static str,
    pub target: Option<Target>,
}

/// Something that must be true for a scenario to count (the harness ran,
/// the app ended in the right state, the numbers are finite).
#[derive(Debug, Clone)]
pub struct Check {
    pub scenario: &'static str,
    pub what: String,
    pub ok: bool,
}

#[derive(Debug, Default)]
pub struct Report {
    pub metrics: Vec<Metric>,
    pub checks: Vec<Check>,
    pub notes: Vec<(&'static str, String)>,
}

impl Report {
    pub fn metric(
        &mut self,
        scenario: &'static str,
        name: impl Into<String>,
        value: f64,
        unit: &'static str,
        target: Option<Target>,
    ) {
        let name = name.into();
        self.check(
            scenario,
            format!("{name} is a finite number"),
            value.is_finite(),
        );
        self.metrics.push(Metric {
            scenario,
            name,
            value,
            unit,
            target,
        });
    }

    pub fn check(&mut self, scenario: &'static str, what: impl Into<String>, ok: bool) {
        self.checks.push(Check {
            scenario,
            what: what.into(),
            ok,
        });
    }

    pub fn note(&mut self, scenario: &'static str, text: impl Into<String>) {
        self.notes.push((scenario, text.into()));
    }

    pub fn failed_checks(&self) -> Vec<&Check> {
        self.checks.iter().filter(|c| !c.ok).collect()
    }

    pub fn missed_targets(&self) -> Vec<&Metric> {
        self.metrics
            .iter()
            .filter(|m| m.target.is_some_and(|t| !t.met(m.value)))
            .collect()
    }

    /// The results table as markdown (also readable as plain text).
    pub fn table(&self) -> String {
        let mut out =
            String::from("| Scenario | Metric | Measured | Target | |\n|---|---|---:|---|---|\n");
        for m in &self.metrics {
            let (target, verdict) = match m.target {
                None => (String::new(), String::new()),
                Some(t) => (target_text(t, m.unit), verdict(t, m.value, m.unit)),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                m.scenario,
                m.name,
                value_text(m.value, m.unit),
                target,
                verdict
            );
        }
        out
    }

    /// The whole results file.
    pub fn markdown(&self, run: &RunInfo) -> String {
        let mut out = String::from("# aria-web benchmark results\n\n");
        let _ = writeln!(
            out,
            "Written by `{}` — see `bench/README.md` for what each number means and how it is measured. Side by side with Open WebUI: [`peer-results.md`](peer-results.md) (`./scripts/bench --peer open-webui`).\n",
            run.command
        );
        let _ = writeln!(out, "- Date: {}", run.date);
        let _ = writeln!(out, "- Machine: {}", run.machine);
        let _ = writeln!(out, "- Browser: {}", run.browser);
        let _ = writeln!(out, "- Build: {}", run.build);
        let _ = writeln!(
            out,
            "- Load average before / after the run: {} / {}\n",
            run.load_before, run.load_after
        );
        out.push_str("## Results\n\n");
        out.push_str(&self.table());
        let missed = self.missed_targets();
        out.push_str("\n## Targets missed\n\n");
        if missed.is_empty() {
            out.push_str("None: every target is met.\n");
        }
        for m in missed {
            if let Some(t) = m.target {
                let _ = writeln!(
                    out,
                    "- {} / {}: {} against {} ({})",
                    m.scenario,
                    m.name,
                    value_text(m.value, m.unit),
                    target_text(t, m.unit),
                    verdict(t, m.value, m.unit)
                );
            }
        }
        out.push_str("\n## Checks\n\n");
        for c in &self.checks {
            if !c.what.ends_with("is a finite number") || !c.ok {
                let _ = writeln!(
                    out,
                    "- [{}] {}: {}",
                    if c.ok { "x" } else { " " },
                    c.scenario,
                    c.what
                );
            }
        }
        out.push_str("\n## Notes\n\n");
        for (scenario, text) in &self.notes {
            let _ = writeln!(out, "- {scenario}: {text}");
        }
        out
    }
}

fn value_text(v: f64, unit: &str) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let digits = if v.abs() >= 100.0 || v.fract() == 0.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else {
        2
    };
    let number = format!("{v:.digits$}");
    if unit.is_empty() {
        number
    } else {
        format!("{number} {unit}")
    }
}

fn target_text(t: Target, unit: &str) -> String {
    match t {
        Target::AtMost(x) => format!("≤ {}", value_text(x, unit)),
        Target::AtLeast(x) => format!("≥ {}", value_text(x, unit)),
    }
}

fn verdict(t: Target, value: f64, unit: &str) -> String {
    if t.met(value) {
        return "met".to_string();
    }
    let (bound, over) = match t {
        Target::AtMost(x) => (x, value - x),
        Target::AtLeast(x) => (x, x - value),
    };
    let ratio = if bound != 0.0 {
        format!(", {:.0}%", 100.0 * over / bound)
    } else {
        String::new()
    };
    format!("MISSED by {}{ratio}", value_text(over, unit))
}

/// Where and how the run happened.
#[derive(Debug, Clone)]
pub struct RunInfo {
    pub command: String,
    pub date: String,
    pub machine: String,
    pub browser: String,
    pub build: String,
    pub load_before: String,
    pub load_after: String,
}

impl RunInfo {
    pub fn gather(command: String, browser: String) -> RunInfo {
        RunInfo {
            command,
            date: shell("date -u '+%Y-%m-%d %H:%M UTC'"),
            machine: machine(),
            browser,
            build: shell(
                "echo \"git $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' + uncommitted changes'), $(rustc --version 2>/dev/null)\"",
            ),
            load_before: load_average(),
            load_after: String::new(),
        }
    }
}

pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0 / 1024.0);
    format!(
        "{cpu}, {cores} cores available, {mem_gib:.0} GiB RAM, {}",
        shell("uname -sr")
    )
}

fn shell(cmd: &str) -> String {
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

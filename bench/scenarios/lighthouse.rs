//! Lighthouse (npm `lighthouse@12.2.3`, installed by scripts/setup into
//! tools/lighthouse/) on the release build as the reference gateway serves
//! it, in its default mobile profile (simulated slow 4G, a mid-range phone's
//! CPU), with Debian's Chromium under the same flags as the browser tests
//! and a fresh profile. Lighthouse 12 has no PWA category any more; the
//! manifest and the service worker are tested in tests/e2e_pwa.rs.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::report::{Report, Target};
use crate::support::paths::{self, TempDir};
use crate::support::{Gateway, GatewayOpts};

const SCENARIO: &str = "Lighthouse";
/// Flags for the Chromium Lighthouse starts (the project's machine notes).
const CHROME_FLAGS: &str = "--headless=new --no-sandbox --disable-gpu --disable-quic \
--no-first-run --disable-background-networking --disable-component-update --disable-sync";
/// (category id, name in the table, target score).
const CATEGORIES: &[(&str, &str, Option<f64>)] = &[
    ("performance", "Performance score (mobile)", Some(95.0)),
    ("accessibility", "Accessibility score", Some(100.0)),
    ("best-practices", "Best Practices score", Some(100.0)),
    ("seo", "SEO score", None),
];

pub fn run(report: &mut Report) {
    let cli = paths::repo_root().join("tools/lighthouse/node_modules/lighthouse/cli/index.js");
    if !cli.is_file() {
        report.check(
            SCENARIO,
            "Lighthouse is installed (run scripts/setup)",
            false,
        );
        return;
    }
    let gateway = Gateway::start(GatewayOpts {
        static_dir: Some(paths::dist_dir()),
        ..GatewayOpts::default()
    });
    let work = TempDir::new("aria-bench-lighthouse");
    let result = lighthouse(&cli, &gateway.app_url(), work.path());
    drop(gateway);
    let lhr = match result {
        Ok(lhr) => lhr,
        Err(problem) => {
            report.check(SCENARIO, format!("Lighthouse ran: {problem}"), false);
            return;
        }
    };
    report.check(
        SCENARIO,
        "Lighthouse loaded the app without a runtime error",
        lhr["runtimeError"].is_null(),
    );
    for (id, name, target) in CATEGORIES {
        let score = lhr["categories"][id]["score"]
            .as_f64()
            .map_or(f64::NAN, |s| s * 100.0);
        report.metric(SCENARIO, *name, score, "", target.map(Target::AtLeast));
    }
    // What kept a category below 100, so the table says what to fix.
    for failing in failing_audits(&lhr) {
        report.note(SCENARIO, failing);
    }
}

/// Runs the CLI on `url`; its JSON report (the "LHR").
fn lighthouse(cli: &Path, url: &str, work: &Path) -> Result<Value, String> {
    let out = work.join("report.json");
    let profile = work.join("profile");
    let output = Command::new("node")
        .arg(cli)
        .arg(url)
        .arg("--output=json")
        .arg(format!("--output-path={}", out.display()))
        .arg("--only-categories=performance,accessibility,best-practices,seo")
        .arg(format!(
            "--chrome-flags={CHROME_FLAGS} --user-data-dir={}",
            profile.display()
        ))
        .arg("--quiet")
        .env("CHROME_PATH", "/usr/bin/chromium")
        .output()
        .map_err(|e| format!("cannot start node: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(format!("exit {}: {}", output.status, tail.join(" / ")));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("no report: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("report is not JSON: {e}"))
}

/// "category: audit title" for each scored audit below 1 in the categories
/// with a target of 100 or a score below 100.
fn failing_audits(lhr: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (id, _, _) in CATEGORIES {
        let Some(refs) = lhr["categories"][id]["auditRefs"].as_array() else {
            continue;
        };
        for r in refs
            .iter()
            .filter(|r| r["weight"].as_f64().unwrap_or(0.0) > 0.0)
        {
            let audit = &lhr["audits"][r["id"].as_str().unwrap_or_default()];
            if audit["score"].as_f64().is_some_and(|s| s < 1.0) {
                out.push(format!(
                    "{id}: {} ({})",
                    audit["title"].as_str().unwrap_or("?"),
                    audit["displayValue"].as_str().unwrap_or("failed")
                ));
            }
        }
    }
    out
}

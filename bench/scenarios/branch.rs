//! Switch a branch: a thread of `branch_items` logged items with forks (a
//! gateway of its own, `--seed-channel N --seed-forks F`), opened at its
//! last forked question; one click on that question's "Next message"
//! until the other version is painted (target ≤ 150 ms), with no long
//! task on the way.

use std::path::Path;

use serde_json::json;

use super::thread::SEEDED_CHANNEL;
use super::{report_long_tasks, Sizes, Urls};
use crate::page::Page;
use crate::report::{Report, Target};
use crate::support::{secs, Gateway, GatewayOpts};

const SCENARIO: &str = "Switch a branch";
/// Questions of the seeded thread that have a second version.
const FORKS: u64 = 10;

/// Clicks `arguments[0]` and calls back with the click's time and the time
/// the other version (the seed's "asked differently" question) was first
/// painted: the frame after the DOM had it.
const SWITCH: &str = r#"
const done = arguments[arguments.length - 1];
const button = document.querySelector(arguments[0]);
const shown = () => Array.from(document.querySelectorAll('[data-testid=timeline] .msg-user .msg-text'))
  .some(t => t.textContent.includes('asked differently'));
let t0 = 0;
let finished = false;
const finish = (painted) => { if (!finished) { finished = true; obs.disconnect(); done({ t0, painted }); } };
const obs = new MutationObserver(() => {
  if (shown()) requestAnimationFrame(() => setTimeout(() => finish(performance.now()), 0));
});
obs.observe(document.body, { subtree: true, childList: true, characterData: true });
if (!button) { finish(null); return; }
t0 = performance.now();
button.click();
setTimeout(() => finish(null), 20000);
"#;

pub async fn run(page: &Page<'_>, static_dir: &Path, sizes: Sizes, report: &mut Report) {
    let items = sizes.branch_items;
    let gateway = Gateway::start(GatewayOpts {
        demo_delay_ms: 5,
        static_dir: Some(static_dir.to_path_buf()),
        extra_args: vec![
            "--seed-channel".into(),
            items.to_string(),
            "--seed-forks".into(),
            FORKS.to_string(),
        ],
        ..GatewayOpts::default()
    });
    let urls = Urls {
        app: gateway.app_url(),
    };
    // The seed spreads its forks evenly over the thread's turns of five.
    let turns = items / 5;
    let forks = FORKS.min(turns).max(1);
    let question = (forks - 1) * turns / forks * 5 + 1;
    page.open(&urls.with("", &format!("#/t/{SEEDED_CHANNEL}/{question}")))
        .await;
    let next =
        format!("[data-testid=timeline] .row[data-seq=\"{question}\"] [data-testid=branch-next]");
    page.b.wait_for(&next, secs(60)).await;
    page.settle().await;
    let timed = page.js_async(SWITCH, vec![json!(next)]).await;
    let t0 = timed["t0"].as_f64().unwrap_or(f64::NAN);
    let painted = timed["painted"].as_f64();
    report.metric(
        SCENARIO,
        format!("click on ›, thread of {items} items → other version painted"),
        painted.map_or(f64::NAN, |p| p - t0),
        "ms",
        Some(Target::AtMost(150.0)),
    );
    report.check(
        SCENARIO,
        "the other version of the question is shown after the click",
        painted.is_some(),
    );
    let seen = page.collect(t0).await;
    let until = painted.unwrap_or(seen.now);
    // Where the time went: the gateway's answer, the new path's page, the
    // client's work until the paint.
    let arrived = |kind: &str| {
        seen.socket
            .iter()
            .find(|s| s.kind() == kind && s.start() >= t0)
            .map_or(f64::NAN, |s| s.start() - t0)
    };
    report.note(
        SCENARIO,
        format!(
            "after the click: branch.switched at {:.0} ms, the new path's history at {:.0} ms, painted at {:.0} ms",
            arrived("branch.switched"),
            arrived("history"),
            until - t0
        ),
    );
    report_long_tasks(
        report,
        SCENARIO,
        "click to painted",
        &seen.window(t0, until),
    );
    page.settle().await;
    let navigator = page
        .js(
            "const n = document.querySelector('[data-testid=timeline] [data-testid=branch-nav]'); \
             return n ? n.getAttribute('aria-label') : null;",
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        "the navigator shows the second version (\"Message 2 of 2\")",
        navigator == json!("Message 2 of 2"),
    );
    drop(gateway);
}

//! Open in place: a deep link `#/t/<seeded channel>/<seq>` into the middle
//! of the seeded thread (100,000 items). The item must be painted, marked,
//! within 300 ms of the `history` reply, after one `around` round trip and
//! without loading the thread from its end.

use super::thread::SEEDED_CHANNEL;
use super::{Sizes, Urls};
use crate::page::Page;
use crate::report::{Report, Target};
use crate::support::secs;

const SCENARIO: &str = "Open in place";

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    let seq = sizes.seed_items / 2;
    page.open(&urls.with("", &format!("#/t/{SEEDED_CHANNEL}/{seq}")))
        .await;
    // The marked row, or the notice of a gateway that ignored `around`.
    let marks = page
        .b
        .poll("the item marked (or a fallback notice)", secs(60), || async {
            let m = page.js("return window.__bench.marks;", vec![]).await;
            let fallback = page
                .js(
                    "return Array.from(document.querySelectorAll('.notice')).some(n => n.textContent.includes('cannot open a message in place'));",
                    vec![],
                )
                .await
                .as_bool()
                .unwrap_or(false);
            (m["jumpRow"].is_number() || fallback).then_some(m)
        })
        .await;
    let marked = page
        .js(
            "const r = document.querySelector('[data-testid=timeline] .row[aria-current=true]'); return r ? Number(r.dataset.seq) : null;",
            vec![],
        )
        .await;
    let at = |name: &str| marks[name].as_f64().unwrap_or(f64::NAN);
    report.metric(
        SCENARIO,
        format!(
            "history received → item {seq} of {} painted, marked",
            sizes.seed_items
        ),
        at("jumpRow") - at("history"),
        "ms",
        Some(Target::AtMost(300.0)),
    );
    report.check(
        SCENARIO,
        format!("the marked row is item {seq} (the gateway answered `around`)"),
        marked.as_u64() == Some(seq),
    );
    let first = page
        .js("return window.__bench.firstHistoryGet || null;", vec![])
        .await;
    report.check(
        SCENARIO,
        "the first history.get asks `around` the item (the thread's end is not loaded first)",
        first["around"].as_u64() == Some(seq),
    );
}

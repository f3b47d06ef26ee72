//! Load: what the browser downloads (raw and gzip), and the time from
//! navigation to a composer that takes input, on localhost. The first load
//! is the app's wasm and JS glue; the deferred part of the app's wasm
//! (scripts/split-wasm) and the markdown module (dist/md/), both fetched
//! once the app has started, are reported on their own.

use std::path::Path;

use super::{Sizes, Urls};
use crate::measure::median;
use crate::page::Page;
use crate::page::{download_sizes, COMPOSER};
use crate::report::{Report, Target};
use crate::support::secs;

const SCENARIO: &str = "Load";
/// A name from pulldown-cmark's HTML entity table.
const PARSER_MARK: &[u8] = b"CounterClockwiseContourIntegral";

pub async fn run(page: &Page<'_>, urls: &Urls, dist: &Path, sizes: Sizes, report: &mut Report) {
    let files = download_sizes(dist);
    let deferred = |name: &str| name.starts_with("aria-web-deferred-");
    let app: Vec<&(String, u64, u64)> = files
        .iter()
        .filter(|(name, _, _)| {
            !deferred(name)
                && (name.ends_with(".wasm")
                    || (name.ends_with(".js") && name.starts_with("aria-web")))
        })
        .collect();
    let raw: u64 = app.iter().map(|f| f.1).sum();
    let gzip: u64 = app.iter().map(|f| f.2).sum();
    report.metric(SCENARIO, "wasm + JS, raw", raw as f64 / 1000.0, "KB", None);
    report.metric(
        SCENARIO,
        "wasm + JS, gzip -9",
        gzip as f64 / 1000.0,
        "KB",
        Some(Target::AtMost(350.0)),
    );
    let deferred_gzip: u64 = files.iter().filter(|f| deferred(&f.0)).map(|f| f.2).sum();
    report.metric(
        SCENARIO,
        "deferred part of the wasm (after start), gzip -9",
        deferred_gzip as f64 / 1000.0,
        "KB",
        None,
    );
    report.check(
        SCENARIO,
        "the app's wasm is split: a deferred part beside the first load",
        deferred_gzip > 0,
    );
    // None in a build from before the markdown module (its check fails).
    let markdown = if dist.join("md").is_dir() {
        download_sizes(&dist.join("md"))
    } else {
        Vec::new()
    };
    let markdown_gzip: u64 = markdown.iter().map(|f| f.2).sum();
    report.metric(
        SCENARIO,
        "markdown module (after start), gzip -9",
        markdown_gzip as f64 / 1000.0,
        "KB",
        None,
    );
    // The parser's entity table: in the markdown module, never in the
    // first load (a call from the app into the parser would link it back).
    let holds = |files: &[(String, u64, u64)], dir: &Path| {
        files.iter().filter(|f| f.0.ends_with(".wasm")).any(|f| {
            std::fs::read(dir.join(&f.0))
                .is_ok_and(|b| b.windows(PARSER_MARK.len()).any(|w| w == PARSER_MARK))
        })
    };
    report.check(
        SCENARIO,
        "the markdown parser is in the markdown module, not in the first load",
        holds(&markdown, &dist.join("md")) && !holds(&files, dist),
    );
    let all_gzip: u64 = files.iter().map(|f| f.2).sum::<u64>() + markdown_gzip;
    report.note(
        SCENARIO,
        format!(
            "KB = 1000 bytes. Files: {}; everything incl. HTML, CSS, boot.js, the deferred part and the markdown module: {:.1} KB gzip",
            files
                .iter()
                .chain(markdown.iter())
                .map(|(n, r, g)| format!("{n} {r} B raw / {g} B gzip"))
                .collect::<Vec<_>>()
                .join(", "),
            all_gzip as f64 / 1000.0
        ),
    );

    let mut composer = Vec::new();
    let mut connected = Vec::new();
    let mut linked = Vec::new();
    for _ in 0..sizes.loads {
        page.b.goto("about:blank").await;
        page.b.goto(&urls.with("", "")).await;
        page.b.wait_for(COMPOSER, secs(30)).await;
        let marks = page
            .b
            .poll(
                "the probe's composer and connected marks",
                secs(30),
                || async {
                    let m = page.js("return window.__bench.marks;", vec![]).await;
                    let c = m["composer"].as_f64()?;
                    let n = m["connected"].as_f64()?;
                    Some((c, n))
                },
            )
            .await;
        composer.push(marks.0);
        connected.push(marks.1);
        // A build whose boot.js does not report it (an older one run for
        // comparison) has no figure.
        let at = page
            .b
            .poll("the deferred part linked", secs(30), || async {
                let s = page
                    .js("return window.__ariaDeferred.status();", vec![])
                    .await;
                match s.get("linkedAt") {
                    None => Some(None),
                    Some(at) => at.as_f64().map(Some),
                }
            })
            .await;
        linked.extend(at);
    }
    report.metric(
        SCENARIO,
        format!("navigation → composer ready, median of {}", sizes.loads),
        median(&composer),
        "ms",
        None,
    );
    report.metric(
        SCENARIO,
        "navigation → connected to the gateway",
        median(&connected),
        "ms",
        None,
    );
    if !linked.is_empty() {
        report.metric(
            SCENARIO,
            "navigation → deferred part linked (turns, settings, …)",
            median(&linked),
            "ms",
            None,
        );
    }
    report.note(
        SCENARIO,
        format!(
            "each load: about:blank, then the app; composer ready = its textarea is in the DOM with handlers attached (ms since navigation start): {composer:.0?}; connected: {connected:.0?}; deferred part linked: {linked:.0?}"
        ),
    );
}

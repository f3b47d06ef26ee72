//! The performance benchmark of aria-web: the release build of the client,
//! served by the reference gateway, driven in headless Chromium, measured
//! from inside the page (see `bench/probe.js`). Run it with `./scripts/bench`
//! (which builds everything first); `bench/README.md` explains the numbers.
//!
//! ```text
//! bench [--smoke] [--only load,decode,stream,throttled,flood,burst,thread,jump,branch,export,images,code,search,lighthouse,gateway] [--out FILE]
//! bench [--smoke] --peer open-webui [--out FILE]
//! ```
//!
//! `--smoke` runs tiny sizes and only fails on broken checks (the test
//! command runs it so the harness cannot rot); a full run writes
//! `bench/results.md`. The exit status is non-zero when a check fails, never
//! for a missed target (those are reported).

// The browser-test harness, shared with tests/e2e (this uses part of it;
// the e2e binary uses all of it, so its dead code is flagged there).
#[allow(dead_code, unused_imports)]
#[path = "../tests/support/mod.rs"]
mod support;

mod cdp;
mod gateway_load;
mod measure;
mod page;
mod peer;
mod report;
mod scenarios;

use std::path::PathBuf;

use page::Page;
use report::{Report, RunInfo};
use scenarios::{Sizes, Urls};
use support::paths;
use support::{Browser, Gateway, GatewayOpts};

const ALL: &[&str] = &[
    "load",
    "decode",
    "stream",
    "throttled",
    "flood",
    "burst",
    "thread",
    "jump",
    "branch",
    "export",
    "upload",
    "images",
    "code",
    "diagram",
    "search",
    "lighthouse",
    "gateway",
];
/// Scenarios without the bench's browser: the gateway alone (search, and
/// the gateway under load), or a Chromium of their own (lighthouse).
const GATEWAY_ONLY: &[&str] = &["search", "lighthouse", "gateway"];

struct Options {
    smoke: bool,
    only: Vec<String>,
    out: PathBuf,
    /// `--peer open-webui`: the side-by-side comparison instead (bench/peer/).
    peer: bool,
}

fn options() -> Options {
    let mut smoke = false;
    let mut only: Vec<String> = ALL.iter().map(|s| s.to_string()).collect();
    let mut out = None;
    let mut peer = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--smoke" => smoke = true,
            "--only" => {
                only = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .collect();
                if let Some(bad) = only.iter().find(|s| !ALL.contains(&s.as_str())) {
                    usage(&format!("unknown scenario {bad:?}"));
                }
            }
            "--out" => out = args.next().map(PathBuf::from),
            "--peer" => match args.next().as_deref() {
                Some("open-webui") => peer = true,
                other => usage(&format!("unknown peer {other:?} (only open-webui)")),
            },
            // `cargo test --bench` passes libtest flags through.
            "--bench" | "--nocapture" => {}
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    let out = out.unwrap_or_else(|| match (smoke, peer) {
        (true, false) => paths::target_dir().join("bench-smoke.md"),
        (true, true) => paths::target_dir().join("bench-peer-smoke.md"),
        (false, false) => paths::repo_root().join("bench").join("results.md"),
        (false, true) => paths::repo_root().join("bench").join("peer-results.md"),
    });
    Options {
        smoke,
        only,
        out,
        peer,
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "bench: {problem}\nusage: scripts/bench [--smoke] [--only {} | --peer open-webui] [--out FILE]",
        ALL.join(",")
    );
    std::process::exit(2);
}

#[tokio::main]
async fn main() {
    let opts = options();
    let sizes = if opts.smoke {
        Sizes::SMOKE
    } else {
        Sizes::FULL
    };
    let wants = |name: &str| opts.only.iter().any(|s| s == name);
    let root = paths::repo_root();
    // Chromium with a full GC on demand and exact heap numbers.
    if std::env::var_os("ARIA_CHROMIUM").is_none() {
        std::env::set_var("ARIA_CHROMIUM", root.join("bench").join("chromium"));
    }
    let command = std::env::var("ARIA_BENCH_COMMAND").unwrap_or_else(|_| {
        format!(
            "cargo test --bench bench -- {}",
            std::env::args().skip(1).collect::<Vec<_>>().join(" ")
        )
    });
    if opts.peer {
        peer::run(opts.smoke, command, &opts.out).await;
        return;
    }

    let in_browser: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|n| wants(n) && !GATEWAY_ONLY.contains(n))
        .collect();
    // The built client and its instrumented copy, only when a browser runs.
    let client = (!in_browser.is_empty()).then(|| {
        let dist = paths::dist_dir();
        let served = page::instrumented_dist(&dist, &root.join("bench").join("probe.js"));
        (dist, served)
    });
    let seeded = wants("thread") || wants("jump") || wants("export") || wants("search");
    let mut extra_args = Vec::new();
    if seeded {
        extra_args = vec![
            "--seed-channel".to_string(),
            sizes.seed_items.to_string(),
            "--seed-forks".to_string(),
            sizes.seed_forks.to_string(),
        ];
    }
    if wants("images") {
        extra_args.extend(["--seed-images".to_string(), sizes.images.to_string()]);
    }
    eprintln!(
        "bench: starting the gateway (seeding {} items, {} forks)…",
        if seeded { sizes.seed_items } else { 0 },
        if seeded { sizes.seed_forks } else { 0 }
    );
    let gateway = Gateway::start(GatewayOpts {
        demo_delay_ms: 5,
        static_dir: client.as_ref().map(|(_, s)| s.path().to_path_buf()),
        extra_args,
        ..GatewayOpts::default()
    });
    let mut report = Report::default();
    // Before Chromium starts, so the browser does not share the cores.
    if wants("search") {
        eprintln!("bench: search…");
        scenarios::search::run(&gateway, sizes, &mut report).await;
    }
    if wants("lighthouse") {
        eprintln!("bench: lighthouse…");
        scenarios::lighthouse::run(&mut report);
    }
    if wants("gateway") {
        let load = if opts.smoke {
            gateway_load::LoadSizes::SMOKE
        } else {
            gateway_load::LoadSizes::FULL
        };
        gateway_load::run(load, &mut report).await;
    }
    let run = match &client {
        Some((dist, served)) => {
            let dirs = (dist.as_path(), served.path());
            browser_scenarios(&in_browser, &gateway, dirs, sizes, command, &mut report).await
        }
        None => {
            let mut run = RunInfo::gather(command, "none (gateway-only scenarios)".to_string());
            run.load_after = report::load_average();
            run
        }
    };
    drop(gateway);
    finish(&opts, &report, &run);
}

/// Runs the scenarios that drive the app in headless Chromium.
async fn browser_scenarios(
    names: &[&str],
    gateway: &Gateway,
    (dist, served): (&std::path::Path, &std::path::Path),
    sizes: Sizes,
    command: String,
    report: &mut Report,
) -> RunInfo {
    let browser = Browser::start().await;
    browser.attach_log("gateway output", gateway.output_handle());
    let page = Page { b: &browser };
    let urls = Urls {
        app: gateway.app_url(),
    };
    browser.goto(&urls.app).await;
    let agent = browser
        .js("return navigator.userAgent;", vec![])
        .await
        .as_str()
        .unwrap_or("unknown")
        .to_string();
    let mut run = RunInfo::gather(command, agent);

    for name in names {
        eprintln!("bench: {name}…");
        match *name {
            "load" => scenarios::load::run(&page, &urls, dist, sizes, report).await,
            "decode" => scenarios::decode::run(&page, &urls, sizes, report).await,
            "stream" => scenarios::stream::run(&page, &urls, sizes, report).await,
            "throttled" => scenarios::throttled::run(&page, &urls, sizes, report).await,
            "flood" => scenarios::flood::run(&page, &urls, sizes, report).await,
            "burst" => scenarios::burst::run(&page, &urls, sizes, report).await,
            "thread" => scenarios::thread::run(&page, &urls, sizes, report).await,
            "jump" => scenarios::jump::run(&page, &urls, sizes, report).await,
            "branch" => scenarios::branch::run(&page, served, sizes, report).await,
            "export" => scenarios::export::run(&page, &urls, sizes, report).await,
            "upload" => scenarios::upload::run(&page, &urls, sizes, report).await,
            "images" => scenarios::images::run(&page, &urls, sizes, report).await,
            "code" => scenarios::code::run(&page, &urls, sizes, report).await,
            "diagram" => scenarios::diagram::run(&page, &urls, report).await,
            _ => unreachable!("scenario names are checked in options()"),
        }
    }
    let errors = browser.console_errors().await;
    report.check(
        "All",
        format!(
            "no errors in the browser console{}",
            errors
                .first()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default()
        ),
        errors.is_empty(),
    );
    run.load_after = report::load_average();
    browser.close().await;
    run
}

/// Prints the table, writes the results file and sets the exit status.
fn finish(opts: &Options, report: &Report, run: &RunInfo) {
    println!("\n{}", report.table());
    let markdown = report.markdown(run);
    if let Err(e) = std::fs::write(&opts.out, markdown) {
        eprintln!("bench: cannot write {}: {e}", opts.out.display());
        std::process::exit(1);
    }
    println!("bench: wrote {}", opts.out.display());
    let missed = report.missed_targets();
    if opts.smoke {
        println!(
            "bench: smoke run: {} targets not met at these tiny sizes (not enforced)",
            missed.len()
        );
    } else {
        for m in missed {
            println!("bench: target missed: {} / {}", m.scenario, m.name);
        }
    }
    let failed = report.failed_checks();
    for c in &failed {
        eprintln!("bench: CHECK FAILED: {}: {}", c.scenario, c.what);
    }
    if !failed.is_empty() {
        std::process::exit(1);
    }
}

//! Export from the thread menu, on the real gateway with a seeded thread
//! that takes several pages: the file (captured where the page makes it:
//! `URL.createObjectURL` and the `<a download>` click) holds every item
//! once, in order; the export's requests do not disturb the timeline's own
//! paging; Cancel stops fetching; 100,000 items export without freezing.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::threads::*;
use crate::support::ui::*;
use crate::support::{run, secs, App, Browser, GatewayOpts};

const SEEDED: &str = "c_seed";
const PROGRESS: &str = "[data-testid=export-progress]";

/// Records the Blobs the page turns into URLs (with their text), the
/// name and URL of each `<a download>` clicked (instead of downloading),
/// revoked URLs, and every `history.get` the page sends.
const CAPTURE: &str = r#"
if (!window.__exports) {
  window.__exports = []; window.__revoked = []; window.__historyGets = [];
  const create = URL.createObjectURL.bind(URL);
  URL.createObjectURL = blob => {
    const url = create(blob);
    const e = { url, type: blob.type, text: null, name: null, clicked: null };
    blob.text().then(t => { e.text = t; });
    window.__exports.push(e);
    return url;
  };
  const revoke = URL.revokeObjectURL.bind(URL);
  URL.revokeObjectURL = url => { window.__revoked.push(url); revoke(url); };
  HTMLAnchorElement.prototype.click = function () {
    const e = window.__exports.find(x => x.url === this.href);
    if (e) { e.name = this.download; e.clicked = this.href; }
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try { const f = JSON.parse(data); if (f.type === 'history.get') window.__historyGets.push(f); } catch (_) {}
    return send.call(this, data);
  };
}
"#;

async fn seeded_app(items: u64) -> App {
    let app = App::start_with(GatewayOpts {
        extra_args: vec!["--seed-channel".into(), items.to_string()],
        ..GatewayOpts::default()
    })
    .await;
    let b = &app.browser;
    b.goto(&format!("{}#/t/{SEEDED}", app.gateway.app_url()))
        .await;
    connected(b).await;
    b.wait_for(".row[data-seq]", secs(20)).await;
    b.js(CAPTURE, vec![]).await;
    app
}

/// The page's `history.get` frames with limit 200 (the export's; the
/// timeline asks with the default limit or for gaps with `after`).
async fn export_requests(b: &Browser) -> Vec<Value> {
    let v = b
        .js(
            "return window.__historyGets.filter(f => f.limit === 200 && f.after === undefined);",
            vec![],
        )
        .await;
    v.as_array().cloned().unwrap_or_default()
}

/// Waits for the `n`th export file (1-based) to be downloaded; returns
/// its name, type and whether its URL was revoked, without its text.
async fn wait_file(b: &Browser, n: usize, timeout: Duration) -> Value {
    b.poll(&format!("export file {n}"), timeout, || async {
        let v = b
            .js(
                "const e = window.__exports[arguments[0] - 1];
                 if (!e || e.text === null || e.name === null) return null;
                 return { name: e.name, type: e.type, clicked: e.clicked === e.url,
                          revoked: window.__revoked.includes(e.url), length: e.text.length };",
                vec![json!(n)],
            )
            .await;
        (!v.is_null()).then_some(v)
    })
    .await
}

/// The lowest `seq` of the timeline's mounted rows.
async fn oldest_row(b: &Browser) -> f64 {
    b.js(
        "return Math.min(...Array.from(document.querySelectorAll('.row[data-seq]'), r => +r.getAttribute('data-seq')));",
        vec![],
    )
    .await
    .as_f64()
    .unwrap_or(f64::NAN)
}

async fn file_text(b: &Browser, n: usize) -> String {
    b.js(
        "return window.__exports[arguments[0] - 1].text;",
        vec![json!(n)],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn export_fetches_every_page_as_markdown_and_json() {
    run(|| async {
        let app = seeded_app(450).await;
        let b = &app.browser;
        let title = "Seeded thread (450 items)";

        menu_action(b, SEEDED, "export-json").await;
        let file = wait_file(b, 1, secs(20)).await;
        if file["name"] != "Seeded-thread-450-items.json"
            || file["type"] != "application/json"
            || file["clicked"] != true
        {
            b.fail(&format!("unexpected JSON download: {file}")).await;
        }
        // The start was heard once, in the page's polite region.
        let heard = b
            .try_text_of("[data-testid=live-polite]")
            .await
            .unwrap_or_default();
        assert_eq!(heard.trim_end_matches('\u{a0}'), "Exporting the thread");
        let befores: Vec<Value> = export_requests(b)
            .await
            .iter()
            .map(|f| f["before"].clone())
            .collect();
        if befores != [json!(9_007_199_254_740_991u64), json!(251), json!(51)] {
            b.fail(&format!(
                "the export should ask for 3 pages of 200 with before: {befores:?}"
            ))
            .await;
        }
        let doc: Value = serde_json::from_str(&file_text(b, 1).await).unwrap_or_default();
        let seqs: Vec<u64> = doc["items"]
            .as_array()
            .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
            .unwrap_or_default();
        if seqs != (1..=450).collect::<Vec<_>>()
            || doc["channel_id"] != SEEDED
            || doc["title"] != title
            || !doc["exported_at"].is_i64()
        {
            b.fail(&format!(
                "the JSON should hold seqs 1..=450 once, in order, with the thread's id and title; \
                 got {} items, head {:?}",
                seqs.len(),
                (&doc["channel_id"], &doc["title"], &doc["exported_at"])
            ))
            .await;
        }
        let kinds = |k: &str| {
            doc["items"]
                .as_array()
                .map(|a| a.iter().filter(|i| i["type"] == k).count())
                .unwrap_or(0)
        };
        if (kinds("message"), kinds("commentary"), kinds("tool")) != (180, 90, 180)
            || doc["items"][3]["name"] != "terminal"
            || doc["items"][0]["text"]
                .as_str()
                .is_none_or(|t| !t.starts_with("Question 0:"))
        {
            b.fail("the JSON items should be the protocol's items, complete")
                .await;
        }
        b.poll("the object URL to be revoked", secs(10), || async {
            (wait_file(b, 1, secs(5)).await["revoked"] == true).then_some(())
        })
        .await;
        if b.exists(PROGRESS).await {
            b.fail("the progress box should go when the file is saved")
                .await;
        }

        menu_action(b, SEEDED, "export-md").await;
        let file = wait_file(b, 2, secs(20)).await;
        if file["name"] != "Seeded-thread-450-items.md"
            || !file["type"]
                .as_str()
                .is_some_and(|t| t.starts_with("text/markdown"))
        {
            b.fail(&format!("unexpected Markdown download: {file}"))
                .await;
        }
        let md = file_text(b, 2).await;
        let mut problems = Vec::new();
        if !md.starts_with(&format!("# {title}\n")) {
            problems.push("no title heading".to_string());
        }
        let count = |s: &str| md.matches(s).count();
        for (what, n) in [
            ("\n**You** · ", 90),
            ("\n**Assistant** · ", 90),
            ("\n📖 read\\_file — src/module\\_", 90),
            ("\n💻 terminal — cargo test -p module\\_", 90),
            ("\n<details><summary>", 180),
            ("\n</details>\n", 180),
            ("\n*Reading \\`src/module\\_", 90),
            ("\n# ", 0),
        ] {
            if count(what) != n {
                problems.push(format!("{what:?} {} times, not {n}", count(what)));
            }
        }
        // Every turn once, in order.
        let mut at = 0;
        for turn in 0..90 {
            match md[at..].find(&format!("Question {turn}: ")) {
                Some(i) => at += i + 1,
                None => {
                    problems.push(format!("turn {turn} missing or out of order"));
                    break;
                }
            }
        }
        if !problems.is_empty() {
            b.fail(&format!("the Markdown export is wrong: {problems:?}"))
                .await;
        }

        // The timeline's own paging still works: scrolled to the top it
        // loads the page before its oldest row.
        let first = oldest_row(b).await;
        b.poll("the timeline to load older rows", secs(20), || async {
            b.js(
                "const t = document.querySelector('[data-testid=timeline]'); if (t) t.scrollTop = 0;",
                vec![],
            )
            .await;
            (oldest_row(b).await < first).then_some(())
        })
        .await;
        app.finish().await;
    })
}

#[test]
fn cancel_stops_fetching_and_a_long_thread_does_not_freeze_the_page() {
    run(|| async {
        let app = seeded_app(100_000).await;
        let b = &app.browser;

        menu_action(b, SEEDED, "export-json").await;
        b.poll("the export's progress", secs(20), || async {
            let label = b.try_text_of("[data-testid=export-label]").await?;
            (label.contains(" of 100,000 items") && !label.starts_with("Exporting… 0 "))
                .then_some(())
        })
        .await;
        b.click("[data-testid=export-cancel]").await;
        b.wait_gone(PROGRESS, secs(5)).await;
        let asked = export_requests(b).await.len();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let later = export_requests(b).await.len();
        let files = b.js("return window.__exports.length;", vec![]).await;
        if later != asked || asked >= 500 || files != 0 {
            b.fail(&format!(
                "after Cancel no page should be asked for and no file made: \
                 {asked} requests at Cancel, {later} later, {files} files"
            ))
            .await;
        }

        // The whole thread, while a ticker measures how long the page
        // stops answering, and long tasks are recorded.
        b.js(
            "window.__gap = 0; let last = performance.now();
             window.__ticker = setInterval(() => { const t = performance.now();
               window.__gap = Math.max(window.__gap, t - last); last = t; }, 10);
             window.__long = [];
             new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); })
               .observe({ type: 'longtask' });
             window.__t0 = performance.now();",
            vec![],
        )
        .await;
        menu_action(b, SEEDED, "export-json").await;
        b.poll("the 100,000-item file", secs(120), || async {
            let v = b
                .js(
                    "const e = window.__exports[0]; return !!(e && e.name && e.text !== null);",
                    vec![],
                )
                .await;
            (v == true).then_some(())
        })
        .await;
        let stats = b
            .js(
                "clearInterval(window.__ticker);
                 const ms = performance.now() - window.__t0;
                 const items = JSON.parse(window.__exports[0].text).items;
                 let ordered = items.length === 100000;
                 for (let i = 0; ordered && i < items.length; i++) ordered = items[i].seq === i + 1;
                 const long = window.__long.slice().sort((a, b) => b - a);
                 return { ms, ordered, gap: window.__gap, long: long.slice(0, 5), longTasks: long.length,
                          bytes: window.__exports[0].text.length };",
                vec![],
            )
            .await;
        eprintln!("100,000-item JSON export: {stats}");
        if stats["ordered"] != true {
            b.fail(&format!(
                "the export should hold seqs 1..=100000 in order: {stats}"
            ))
            .await;
        }
        // Each page is its own task: the page keeps answering. (The final
        // Blob of some 30 MB is made at once, so one longer pause is allowed.)
        let gap = stats["gap"].as_f64().unwrap_or(f64::INFINITY);
        if gap > 1000.0 {
            b.fail(&format!("the page stopped answering for {gap} ms: {stats}"))
                .await;
        }
        app.finish().await;
    })
}

//! Code block: an answer holding a 2,000-line python block arrives
//! (`message.start`, one `message.update` with the whole text, then
//! `message.stop`, each fed to the app's own socket handler in its own
//! task); its plain render, then its highlighting in the worker. Target:
//! no main-thread task over 50 ms from its arrival until it is highlighted.

use serde_json::{json, Value};

use super::{feed, report_long_tasks, Sizes, Urls};
use crate::page::Page;
use crate::report::Report;
use crate::support::secs;

const SCENARIO: &str = "Code block";
const CHANNEL: &str = "c_bench_code";
const LINES: usize = 2000;

pub async fn run(page: &Page<'_>, urls: &Urls, _sizes: Sizes, report: &mut Report) {
    page.open(&urls.with("", "")).await;
    feed(
        page,
        json!({"type": "channel.created", "auto": false, "channel": {
            "channel_id": CHANNEL, "title": "Code block", "created_at": 1,
            "updated_at": 1, "auto": false, "last_seq": 0}}),
    )
    .await;
    page.js(
        "location.hash = arguments[0];",
        vec![json!(format!("#/t/{CHANNEL}"))],
    )
    .await;
    page.b
        .wait_for(
            &format!(".thread-item[data-channel-id={CHANNEL}]"),
            secs(30),
        )
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let lines: Vec<String> = (0..LINES)
        .map(|i| format!("def f{i}(x): return x + {i} * \"s\"  # line {i}"))
        .collect();
    let text = format!(
        "A long block:\n\n```python\n{}\n```\n\nDone.",
        lines.join("\n")
    );
    let frame = |v: Value| {
        let mut v = v;
        v["channel_id"] = json!(CHANNEL);
        v["turn_id"] = json!("t1");
        v["message_id"] = json!("m1");
        v
    };
    let t0 = page.now().await;
    feed(
        page,
        frame(json!({"type": "message.start", "role": "assistant", "ts": 1})),
    )
    .await;
    feed(page, frame(json!({"type": "message.update", "text": text}))).await;
    feed(
        page,
        frame(json!({"type": "message.stop", "seq": 1, "final_text": text, "model": "bench", "tokens": 1})),
    )
    .await;
    let done = page
        .b
        .poll("the block highlighted", secs(120), || async {
            let n = page.b.count("code[data-lang=python][data-hl=done]").await;
            if n == 1 {
                Some(page.now().await)
            } else {
                None
            }
        })
        .await;
    let seen = page.collect(t0).await.window(t0, done);
    report_long_tasks(
        report,
        SCENARIO,
        &format!("{LINES}-line block arriving and highlighted"),
        &seen,
    );
    let check = page
        .js(
            "const c = document.querySelector('code[data-lang=python]');
             return { lines: c.textContent.split('\\n').length, kws: c.querySelectorAll('.tok-kw').length };",
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        format!("all {LINES} lines are shown and highlighted ({check})"),
        check["lines"].as_u64().is_some_and(|n| n >= LINES as u64)
            && check["kws"].as_u64().is_some_and(|n| n >= LINES as u64),
    );
}

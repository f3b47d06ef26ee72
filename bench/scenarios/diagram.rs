//! Diagram: an answer holding a 200-node Mermaid flowchart arrives
//! (`message.start`, one `message.update` with the whole text, then
//! `message.stop`, each fed to the app's own socket handler in its own
//! task); it is drawn in the renderer frame (loaded by this first diagram)
//! and shown as an image. Target: no main-thread task over 50 ms from its
//! arrival until the image is decoded and shown. The time to that point
//! is reported without a target (Mermaid's layout, in the frame's own
//! process, is most of it).

use serde_json::{json, Value};

use super::{feed, report_long_tasks, Urls};
use crate::page::Page;
use crate::report::Report;
use crate::support::secs;

const SCENARIO: &str = "Diagram";
const CHANNEL: &str = "c_bench_diagram";
const NODES: usize = 200;
/// Chains of this many nodes side by side, with links across.
const CHAIN: usize = 20;

/// A flowchart of [`NODES`] labelled nodes: chains top to bottom, each
/// fifth node also linked to the next chain.
fn flowchart() -> String {
    let mut lines = vec!["flowchart TD".to_string()];
    for i in 0..NODES {
        lines.push(format!("  n{i}[\"Step {i}\"]"));
    }
    for i in 0..NODES {
        if (i + 1) % CHAIN != 0 {
            lines.push(format!("  n{i} --> n{}", i + 1));
        }
        if i % 5 == 0 && i + CHAIN + 1 < NODES {
            lines.push(format!("  n{i} -.-> n{}", i + CHAIN + 1));
        }
    }
    lines.join("\n")
}

pub async fn run(page: &Page<'_>, urls: &Urls, report: &mut Report) {
    page.open(&urls.with("", "")).await;
    feed(
        page,
        json!({"type": "channel.created", "auto": false, "channel": {
            "channel_id": CHANNEL, "title": "Diagram", "created_at": 1,
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
    let text = format!(
        "A big diagram:\n\n```mermaid\n{}\n```\n\nDone.",
        flowchart()
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
        .poll("the diagram shown", secs(120), || async {
            let shown = page
                .js(
                    "const i = document.querySelector('img.diagram-img');
                     return !!i && i.complete && i.naturalWidth > 0 && !i.closest('[hidden]');",
                    vec![],
                )
                .await;
            if shown == true {
                // The frame after the image is in: its paint is measured too.
                page.js_async(
                    "const done = arguments[arguments.length - 1];
                     requestAnimationFrame(() => setTimeout(done, 100));",
                    vec![],
                )
                .await;
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
        &format!("{NODES}-node diagram arriving, drawn and shown"),
        &seen,
    );
    let at: Vec<String> = seen
        .long_tasks
        .iter()
        .map(|(start, ms)| format!("{ms:.0} ms at +{:.0} ms", start - t0))
        .collect();
    report.note(
        SCENARIO,
        format!(
            "long tasks from the diagram's arrival (image shown at +{:.0} ms): {at:?}",
            done - t0
        ),
    );
    report.metric(
        SCENARIO,
        "arrival → image shown (first diagram, frame and Mermaid loaded)",
        done - t0,
        "ms",
        None,
    );
    // The SVG itself cannot be read back: `fetch` of a blob: URL is
    // `connect-src`, which the page refuses. Its size and text alternative
    // can.
    let check = page
        .js(
            "const i = document.querySelector('img.diagram-img');
             return { width: i.naturalWidth, height: i.naturalHeight, alt: i.alt,
                      svgInPage: document.querySelectorAll('.markdown svg').length };",
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        format!("the diagram is an image of its own size, no SVG in the page ({check})"),
        check["width"].as_u64().is_some_and(|w| w > 1000)
            && check["alt"] == "Diagram: flowchart TD"
            && check["svgInPage"] == 0,
    );
}

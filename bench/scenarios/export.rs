//! Export: the seeded thread (100,000 items) exported as JSON from the
//! thread menu, 500 pages of 200. The page must keep answering: no
//! main-thread task over 50 ms from the click to the file (its Blob handed
//! to `URL.createObjectURL`). The file is read and checked afterwards,
//! outside the measured span.

use serde_json::json;

use super::thread::SEEDED_CHANNEL;
use super::{report_long_tasks, Sizes, Urls};
use crate::page::Page;
use crate::report::Report;
use crate::support::secs;

const SCENARIO: &str = "Export";

/// Keeps the Blob the app downloads (without reading it) and the time.
const CAPTURE: &str = "window.__export = null;
const create = URL.createObjectURL.bind(URL);
URL.createObjectURL = blob => { window.__export = { blob, at: performance.now() }; return create(blob); };
HTMLAnchorElement.prototype.click = function () {};";

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    page.open(&urls.with("", &format!("#/t/{SEEDED_CHANNEL}")))
        .await;
    page.b.wait_for(".row[data-seq]", secs(60)).await;
    page.js(CAPTURE, vec![]).await;
    let t0 = page.now().await;
    page.js(
        "const a = document.querySelector(`.thread-item[data-channel-id=\"${arguments[0]}\"] > a`);
         const r = a.getBoundingClientRect();
         a.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true,
           clientX: r.left + 10, clientY: r.top + 5 }));",
        vec![json!(SEEDED_CHANNEL)],
    )
    .await;
    page.b
        .click("[data-testid=thread-menu][role=menu] button[data-action=export-json]")
        .await;
    let done = page
        .b
        .poll("the exported file", secs(300), || async {
            page.js("return window.__export && window.__export.at;", vec![])
                .await
                .as_f64()
        })
        .await;
    let seen = page.collect(t0).await.window(t0, done);
    let items = sizes.seed_items;
    report_long_tasks(
        report,
        SCENARIO,
        &format!("{items}-item thread as JSON, click → file"),
        &seen,
    );
    report.metric(SCENARIO, "click → file", done - t0, "ms", None);
    let file = page
        .js_async(
            "const done = arguments[arguments.length - 1];
             window.__export.blob.text().then(t => {
               const items = JSON.parse(t).items;
               let ordered = true;
               for (let i = 0; i < items.length; i++) ordered = ordered && items[i].seq === i + 1;
               done({ items: items.length, ordered, bytes: window.__export.blob.size });
             }, e => done({ error: String(e) }));",
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        format!("the file holds items 1..={items} in order ({file})"),
        file["items"].as_u64() == Some(items) && file["ordered"] == json!(true),
    );
    report.note(SCENARIO, format!("{} bytes", file["bytes"]));
}

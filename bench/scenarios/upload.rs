//! Upload: a file of the gateway's largest size (20 MiB; 1 MiB in the
//! smoke run) picked in the paperclip's picker, hashed, sent in chunks over
//! loopback and stored: picked → stored as MB/s end to end, and no
//! main-thread task over 50 ms meanwhile. The chip is removed afterwards,
//! so the kept draft does not follow the next scenarios.

use serde_json::json;

use super::{report_long_tasks, Sizes, Urls};
use crate::page::Page;
use crate::report::{Report, Target};
use crate::support::secs;

const SCENARIO: &str = "Upload";
const INPUT: &str = "[data-testid=file-input]";
const CHIP: &str = "[data-testid=attachment]";

/// Builds the file in a task of its own, outside the measured span (20 MiB
/// filled and copied into a `File` is itself a long task).
const BUILD: &str = "const bytes = new Uint8Array(arguments[0]).fill(97);
window.__uploadBench = new File([bytes], 'upload-bench.txt', { type: 'text/plain' });";

/// Picks the file built by [`BUILD`]; returns the page's clock at the pick.
const PICK: &str = "const dt = new DataTransfer();
dt.items.add(window.__uploadBench);
delete window.__uploadBench;
const input = document.querySelector(arguments[0]);
input.files = dt.files;
const at = performance.now();
input.dispatchEvent(new Event('change', { bubbles: true }));
return at;";

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    page.open(&urls.with("", "")).await;
    page.b.wait_for(INPUT, secs(30)).await;
    let bytes = sizes.upload_bytes;
    page.js(BUILD, vec![json!(bytes)]).await;
    let t0 = page
        .js(PICK, vec![json!(INPUT)])
        .await
        .as_f64()
        .unwrap_or(f64::NAN);
    let done = page
        .b
        .poll("the upload stored", secs(120), || async {
            page.js(
                "return document.querySelector(arguments[0] + '[data-state=stored]') \
                   ? performance.now() : null;",
                vec![json!(CHIP)],
            )
            .await
            .as_f64()
        })
        .await;
    let seen = page.collect(t0).await.window(t0, done);
    let mb_per_s = bytes as f64 / 1e6 / ((done - t0) / 1000.0);
    report.metric(
        SCENARIO,
        format!("{} MiB picked → stored", bytes >> 20),
        mb_per_s,
        "MB/s",
        Some(Target::AtLeast(20.0)),
    );
    report_long_tasks(report, SCENARIO, "picked → stored", &seen);
    report.note(SCENARIO, format!("picked → stored in {:.0} ms", done - t0));
    page.b
        .click(&format!("{CHIP} [data-testid=remove-attachment]"))
        .await;
    page.b.wait_gone(CHIP, secs(10)).await;
}

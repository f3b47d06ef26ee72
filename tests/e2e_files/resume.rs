//! An upload cut by a dropped connection goes on from the offset the
//! gateway holds (it begins again with the same `upload_id`), its progress
//! never goes back, and the message waiting for it is sent once.

use serde_json::json;

use super::helpers;
use crate::support::ui;
use crate::support::{run, secs};

#[test]
fn a_dropped_connection_resumes_the_upload_and_the_message_goes_once() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        b.click("[data-testid=open-settings]").await;
        // Drops the socket once a tenth of the file is in (from the page, so
        // that a fast upload cannot finish first), and records the percent.
        b.js(
            r#"
window.__percents = [];
window.__dropped = false;
const drop = [...document.querySelectorAll('button')]
  .find(x => x.textContent.includes('Drop the connection'));
new MutationObserver(() => {
  const p = document.querySelector('[data-testid=upload-progress][data-percent]');
  if (!p) return;
  const pct = Number(p.dataset.percent);
  window.__percents.push(pct);
  if (!window.__dropped && pct >= 10 && pct < 90) { window.__dropped = true; drop.click(); }
}).observe(document.body, { subtree: true, childList: true, attributes: true });
"#,
            vec![],
        )
        .await;
        b.js(
            "document.querySelector('[data-testid=close-settings]')?.click();",
            vec![],
        )
        .await;
        helpers::pick(
            b,
            vec![helpers::filler("long.txt", "text/plain", 20 * 1024 * 1024)],
        )
        .await;
        // Sent while it uploads: the message waits for it.
        ui::send(b, "after the cut").await;
        b.wait_for("[data-testid=attach-waiting]", secs(10)).await;
        b.wait_for(".msg-user:not(.pending) [data-testid=file-chip]", secs(60))
            .await;
        assert_eq!(b.js("return window.__dropped;", vec![]).await, json!(true));
        let percents = b.js("return window.__percents;", vec![]).await;
        let percents: Vec<u64> = percents
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
            .unwrap_or_default();
        // Uploading states only (the last "stored" chip has no bar).
        let mut last = 0;
        for p in percents.iter().copied().filter(|p| *p < 100) {
            assert!(
                p >= last,
                "progress went back from {last} to {p}: {percents:?}"
            );
            last = p;
        }
        b.wait_gone("[data-testid=attach-waiting]", secs(5)).await;
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert_eq!(b.count(".msg-user").await, 1, "sent once");
        app.assert_no_console_errors().await;
    });
}

#[test]
fn a_reload_mid_upload_keeps_the_files_and_sends_the_message_once() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        // Reloads the page once the message waits and a tenth of the file
        // is in (said in sessionStorage, which the reload keeps).
        b.js(
            r#"
window.__beforeReload = true;
new MutationObserver(() => {
  const p = document.querySelector('[data-testid=upload-progress][data-percent]');
  const waits = document.querySelector('[data-testid=attach-waiting]');
  if (waits && p && Number(p.dataset.percent) >= 10 && !window.__reloading) {
    window.__reloading = true;
    sessionStorage.setItem('aria-test-reloaded', String(p.dataset.percent));
    location.reload();
  }
}).observe(document.body, { subtree: true, childList: true, attributes: true });
"#,
            vec![],
        )
        .await;
        helpers::pick(
            b,
            vec![helpers::filler("kept.txt", "text/plain", 20 * 1024 * 1024)],
        )
        .await;
        ui::send(b, "sent across a reload").await;
        b.poll("the reloaded page to boot", secs(60), || async {
            let v = b
                .js(
                    "return window.__beforeReload !== true && \
                     document.documentElement.dataset.booted === 'true';",
                    vec![],
                )
                .await;
            v.as_bool().unwrap_or(false).then_some(())
        })
        .await;
        ui::connected(b).await;
        let chip = b
            .wait_for(".msg-user:not(.pending) [data-testid=file-chip]", secs(60))
            .await;
        let text = chip.text().await.unwrap_or_default();
        assert!(text.contains("kept.txt"), "{text}");
        let reloaded = b
            .js(
                "return sessionStorage.getItem('aria-test-reloaded');",
                vec![],
            )
            .await;
        assert!(reloaded.is_string(), "the page was not reloaded mid-upload");
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert_eq!(b.count(".msg-user").await, 1, "sent once");
        assert!(b
            .texts_of(".msg-user .msg-text")
            .await
            .iter()
            .any(|t| t == "sent across a reload"));
        // Nothing is kept once it is sent.
        assert_eq!(ui::local_storage(b, "aria.upload-draft").await, json!(""));
        app.assert_no_console_errors().await;
    });
}

//! The markdown module (the parser and sanitizer, dist/md/): fetched only
//! after the app's own wasm, not with it; and when it cannot be loaded,
//! answers still show, as their text, and the app goes on working.

use serde_json::{json, Value};

use crate::support::fake_gateway::{message_item, FakeGateway};
use crate::support::ui::{connected, fake_page};
use crate::support::{run, secs};

const ANSWER: &str = "Some **bold** words\n\n- one\n- two";

/// When the app's wasm arrived and when the markdown module's fetch began
/// (resource timing), once both are there.
const FETCHES: &str = r#"
const all = performance.getEntriesByType('resource');
const app = all.find(e => /\/aria-web-[0-9a-f]+_bg\.wasm$/.test(e.name));
const md = all.find(e => /\/md\/markdown-[0-9a-f]+_bg\.wasm$/.test(e.name));
return app && md ? { app_end: app.responseEnd, md_start: md.startTime } : null;
"#;

/// The answer's body: rendered markup, and the plain fallback's text.
const ANSWER_BODY: &str = r#"
const a = Array.from(document.querySelectorAll('.msg-assistant')).pop();
if (!a) return null;
return {
  strong: a.querySelectorAll('.markdown strong').length,
  items: a.querySelectorAll('.markdown li').length,
  plain: Array.from(a.querySelectorAll('.md-tail.md-plain')).map(e => e.textContent),
};
"#;

#[test]
fn markdown_loads_after_the_app_and_without_it_answers_show_as_text() {
    run(|| async {
        let fake = FakeGateway::with_thread(
            "c_md",
            "Markdown",
            vec![
                message_item(1, "user", "format something", None),
                message_item(2, "assistant", ANSWER, None),
            ],
        )
        .await;
        let page = fake_page(&fake, "#/t/c_md").await;
        let b = &page.browser;

        // Rendered, by a module fetched once the app's wasm was in.
        b.poll("the answer rendered as markdown", secs(15), || async {
            let body = b.js(ANSWER_BODY, vec![]).await;
            (body["strong"] == 1 && body["items"] == 2).then_some(())
        })
        .await;
        let fetches = b
            .poll("both wasm fetches in resource timing", secs(5), || async {
                let f = b.js(FETCHES, vec![]).await;
                (!f.is_null()).then_some(f)
            })
            .await;
        let (app_end, md_start) = (
            fetches["app_end"].as_f64().unwrap_or(f64::MAX),
            fetches["md_start"].as_f64().unwrap_or(0.0),
        );
        assert!(
            md_start >= app_end,
            "the markdown module was fetched with the first load: {fetches}"
        );

        // Now the module cannot be had (service worker's copy bypassed too).
        b.cdp("Network.enable", json!({})).await;
        b.cdp("Network.setBypassServiceWorker", json!({ "bypass": true }))
            .await;
        b.cdp("Network.setBlockedURLs", json!({ "urls": ["*/md/*"] }))
            .await;
        b.refresh().await;
        connected(b).await;
        let body = b
            .poll("the answer shown as its text", secs(15), || async {
                let body = b.js(ANSWER_BODY, vec![]).await;
                (body["plain"].as_array().is_some_and(|p| !p.is_empty())).then_some(body)
            })
            .await;
        assert_eq!(
            body["plain"],
            json!([ANSWER]),
            "the text, as written: {body}"
        );
        assert_eq!(body["strong"], 0, "no markup without the module: {body}");
        let warned = b
            .console_logs()
            .await
            .iter()
            .any(|l| l.message.contains("markdown module") && l.message.contains("plain text"));
        assert!(warned, "the console says why markdown is plain text");

        // The rest of the app works: a send goes out.
        b.type_into("form[data-testid=composer] textarea", "still here")
            .await;
        b.press_enter("form[data-testid=composer] textarea").await;
        b.poll("the send reaching the gateway", secs(10), || async {
            fake.received_on("message.send")
                .iter()
                .any(|(_, f): &(usize, Value)| f["text"] == "still here")
                .then_some(())
        })
        .await;
        page.browser.close().await;
    });
}

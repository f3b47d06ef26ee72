//! Files on a 390 px phone: the draft's chips (several, with long names)
//! and the thread's thumbnails fit the screen. Nothing scrolls sideways:
//! not the page, the composer or the thread, and every chip and thumbnail
//! ends inside the viewport.

use serde_json::{json, Value};

use super::helpers;
use crate::e2e_mobile::phone;
use crate::support::ui;
use crate::support::{run, secs, Browser};

/// 1200×400, wider than the phone: its thumbnail must shrink to fit.
const WIDE_PNG: &[u8] = include_bytes!("wide.png");

/// Names a person's files do get: long, and without a space to break at.
fn long_name(n: usize, ext: &str) -> String {
    format!("site-inspection-north-facade-scaffolding-and-crane-2026-12-04-photo-{n:02}-final-version-for-the-report.{ext}")
}

/// What overflows sideways: each of `boxes` whose content is wider than
/// its box, and each element of `items` that ends outside the viewport.
const OVERFLOW: &str = r#"
const [boxes, items] = arguments;
const out = [];
for (const css of boxes) {
  const el = document.querySelector(css);
  if (!el) { out.push(`${css}: missing`); continue; }
  if (el.scrollWidth > el.clientWidth) out.push(`${css}: scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}`);
}
let seen = 0;
for (const el of document.querySelectorAll(items)) {
  seen += 1;
  const r = el.getBoundingClientRect();
  if (r.left < 0 || r.right > innerWidth) {
    out.push(`${el.className} ${r.left.toFixed(1)}..${r.right.toFixed(1)} outside 0..${innerWidth}`);
  }
}
if (seen === 0) out.push(`no ${items} on the page`);
return out;
"#;

async fn overflow(b: &Browser, boxes: &[&str], items: &str) -> Vec<String> {
    let v: Value = b.js(OVERFLOW, vec![json!(boxes), json!(items)]).await;
    serde_json::from_value(v).unwrap_or_else(|_| vec!["the page answered nothing".into()])
}

#[test]
fn chips_and_thumbnails_fit_a_phone() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        phone(b).await;
        let files = vec![
            helpers::bytes_file(&long_name(1, "png"), "image/png", WIDE_PNG),
            helpers::png(&long_name(2, "png")),
            helpers::text_file(&long_name(3, "txt"), "notes from the visit\n"),
            helpers::bytes_file(&long_name(4, "png"), "image/png", WIDE_PNG),
        ];
        helpers::pick(b, files).await;
        helpers::stored(b, 4).await;
        let page = ["html", "body", "form[data-testid=composer]"];
        let wide = overflow(b, &page, helpers::ATTACHMENT).await;
        assert!(wide.is_empty(), "the draft's chips overflow: {wide:#?}");
        assert_eq!(b.count(helpers::ATTACHMENT).await, 4);

        ui::send(b, "four files from the site").await;
        b.poll("the thumbnails shown", secs(20), || async {
            let shown = b
                .count(".msg-user:not(.pending) [data-testid=image-thumb] img[src^='blob:']")
                .await;
            (shown == 3).then_some(())
        })
        .await;
        let thread = [
            "html",
            "body",
            "[data-testid=timeline]",
            "form[data-testid=composer]",
        ];
        let mut wide = overflow(b, &thread, ".msg-user [data-testid=image-thumb]").await;
        wide.extend(overflow(b, &[], ".msg-user [data-testid=file-chip]").await);
        assert!(wide.is_empty(), "the thread's files overflow: {wide:#?}");
        app.assert_no_console_errors().await;
    });
}

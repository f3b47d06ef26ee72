//! Hostile files stay inert: an SVG with script named `.png` never runs
//! and fetches nothing (a canary server sees no request), in the draft's
//! thumbnail or in the thread; names with a right-to-left override, NUL
//! or 500 characters show as short plain text.

use serde_json::json;

use super::helpers;
use crate::support::canary::Canary;
use crate::support::ui;
use crate::support::{run, secs};

#[test]
fn an_svg_with_script_named_png_never_runs() {
    run(|| async {
        let canary = Canary::start();
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        let o = canary.origin();
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" onload="top.__pwned=1;fetch('{o}/onload')"><script>top.__pwned=1;fetch('{o}/script')</script><image href="{o}/image.png" width="10" height="10"/><foreignObject><iframe src="{o}/frame"></iframe></foreignObject></svg>"#
        );
        helpers::pick(
            b,
            vec![json!({"name": "evil.png", "type": "image/png", "text": svg})],
        )
        .await;
        helpers::stored(b, 1).await;
        ui::send(b, "a picture").await;
        // The gateway typed the bytes: text, so a chip, never an image.
        let chip = b
            .wait_for(".msg-user:not(.pending) [data-testid=file-chip]", secs(20))
            .await;
        let text = chip.text().await.unwrap_or_default();
        assert!(text.contains("evil.png") && text.contains("Text"), "{text}");
        assert_eq!(b.count(".msg-user [data-testid=image-thumb]").await, 0);
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let pwned = b.js("return window.__pwned === undefined;", vec![]).await;
        assert_eq!(pwned, json!(true), "the SVG's script ran");
        assert!(canary.hits().is_empty(), "fetched: {:?}", canary.hits());
        app.assert_no_console_errors().await;
    });
}

#[test]
fn hostile_names_show_as_short_plain_text() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        let long = format!("{}.txt", "n".repeat(500));
        helpers::pick(
            b,
            vec![
                helpers::text_file("photo\u{202E}gnp.exe", "x"),
                helpers::text_file(&long, "y"),
                helpers::text_file("a\u{0}b<img src=x onerror=top.__pwned=1>.txt", "z"),
            ],
        )
        .await;
        helpers::stored(b, 3).await;
        ui::send(b, "names").await;
        b.wait_for(".msg-user:not(.pending) [data-testid=file-chip]", secs(20))
            .await;
        for css in [".attachment-name", ".msg-user .file-chip-name"] {
            let names = b.texts_of(css).await;
            for name in &names {
                assert!(
                    !name.contains('\u{202E}') && !name.contains('\u{0}'),
                    "{name:?}"
                );
                assert!(name.chars().count() <= 60, "{name:?}");
            }
        }
        let names = b.texts_of(".msg-user .file-chip-name").await;
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(names[0], "photognp.exe");
        assert!(names[1].ends_with("….txt"), "{names:?}");
        assert_eq!(b.count(".msg-user .file-chip img").await, 0);
        let pwned = b.js("return window.__pwned === undefined;", vec![]).await;
        assert_eq!(pwned, json!(true));
        app.assert_no_console_errors().await;
    });
}

#[test]
fn an_html_and_jpeg_polyglot_is_an_image_that_runs_nothing() {
    run(|| async {
        let canary = Canary::start();
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        let o = canary.origin();
        // JPEG's magic number, then a page with script and remote loads.
        let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0];
        bytes.extend(
            format!(
                "<html><body onload=\"top.__pwned=1\"><script>top.__pwned=1;fetch('{o}/s')</script>\
                 <img src=\"{o}/i.png\"><iframe src=\"{o}/f\"></iframe></body></html>"
            )
            .into_bytes(),
        );
        helpers::pick(
            b,
            vec![json!({"name": "page.html", "type": "text/html", "bytes": bytes})],
        )
        .await;
        helpers::stored(b, 1).await;
        ui::send(b, "a polyglot").await;
        // Typed by its bytes: a JPEG, so an <img> of a blob: URL (which
        // does not decode), never a document.
        b.wait_for(
            ".msg-user:not(.pending) [data-testid=image-thumb] img[src^='blob:']",
            secs(20),
        )
        .await;
        assert_eq!(b.count("iframe:not([sandbox])").await, 0);
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let pwned = b.js("return window.__pwned === undefined;", vec![]).await;
        assert_eq!(pwned, json!(true), "the polyglot's script ran");
        assert!(canary.hits().is_empty(), "fetched: {:?}", canary.hits());
        app.assert_no_console_errors().await;
    });
}

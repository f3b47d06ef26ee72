//! Files in the thread: the agent's (`/demo files`) as a thumbnail and a
//! chip, the dialog walked by keyboard through a message's images, a chip
//! that saves its file as bytes, a photo turned by its Exif orientation,
//! and axe over each state.

use fantoccini::key::Key;
use serde_json::json;

use super::helpers;
use crate::support::axe::assert_no_axe_violations;
use crate::support::ui;
use crate::support::{run, secs};

const DIALOG: &str = "dialog[data-testid=image-dialog][open]";

#[test]
fn the_agents_files_show_as_a_thumbnail_and_a_chip_that_saves() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        ui::send(b, "/demo files").await;
        let img = b
            .wait_for(
                ".msg-assistant [data-testid=image-thumb] img[src^='blob:']",
                secs(30),
            )
            .await;
        assert_eq!(
            img.attr("alt").await.ok().flatten().as_deref(),
            Some("chart.png")
        );
        // The header's size, so the row does not jump.
        assert_eq!(
            img.attr("width").await.ok().flatten().as_deref(),
            Some("240")
        );
        assert_eq!(
            img.attr("height").await.ok().flatten().as_deref(),
            Some("120")
        );
        let chip = b.text_of(".msg-assistant [data-testid=file-chip]").await;
        assert!(
            chip.contains("report.pdf") && chip.contains("PDF document"),
            "{chip}"
        );
        helpers::record_saves(b).await;
        b.click(".msg-assistant [data-testid=file-chip]").await;
        let saved = b
            .poll("the report saved", secs(10), || async {
                let s = helpers::saved(b).await;
                (!s.is_empty()).then_some(s)
            })
            .await;
        assert_eq!(saved[0]["name"], json!("report.pdf"));
        // Saved as opaque bytes: never opened as a document by the page.
        assert_eq!(saved[0]["type"], json!("application/octet-stream"));
        assert!(saved[0]["size"].as_u64().unwrap_or(0) > 100, "{saved:?}");
        assert_no_axe_violations(b, "an answer with files").await;
        app.assert_no_console_errors().await;
    });
}

#[test]
fn the_image_dialog_goes_through_a_messages_images_by_keyboard() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        helpers::pick(
            b,
            vec![helpers::png("first.png"), helpers::png("second.png")],
        )
        .await;
        helpers::stored(b, 2).await;
        assert_no_axe_violations(b, "two files attached").await;
        ui::send(b, "two images").await;
        b.wait_for(
            ".msg-user:not(.pending) [data-testid=image-thumb]:nth-child(2) img[src^='blob:']",
            secs(20),
        )
        .await;
        let thumb = b
            .wait_for(".msg-user [data-testid=image-thumb]", secs(5))
            .await;
        thumb.click().await.expect("click the thumbnail");
        b.wait_for(DIALOG, secs(5)).await;
        let title = |want: &'static str| async move {
            b.poll(want, secs(5), || async {
                (b.text_of(".image-dialog-title").await == want).then_some(())
            })
            .await
        };
        title("Image 1 of 2: first.png").await;
        b.wait_for(
            &format!("{DIALOG} img[data-testid=image-large][src^='blob:']"),
            secs(10),
        )
        .await;
        assert_no_axe_violations(b, "the image dialog").await;
        let key = |k: Key| async move {
            b.client()
                .active_element()
                .await
                .expect("a focused element")
                .send_keys(&String::from(char::from(k)))
                .await
                .expect("a key");
        };
        key(Key::Right).await;
        title("Image 2 of 2: second.png").await;
        key(Key::Right).await;
        title("Image 1 of 2: first.png").await;
        key(Key::Left).await;
        title("Image 2 of 2: second.png").await;
        key(Key::Escape).await;
        b.wait_gone(DIALOG, secs(5)).await;
        // The focus is back on the thumbnail that opened it.
        b.poll("the focus back on the thumbnail", secs(5), || async {
                let v = b
                    .js(
                        "return document.activeElement === document.querySelector('.msg-user [data-testid=image-thumb]');",
                        vec![],
                    )
                    .await;
                v.as_bool().unwrap_or(false).then_some(())
            })
            .await;
        app.assert_no_console_errors().await;
    });
}

#[test]
fn an_images_blob_url_is_revoked_when_its_row_leaves_the_page() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        b.js(
            "window.__revoked = []; const revoke = URL.revokeObjectURL; \
             URL.revokeObjectURL = (u) => { window.__revoked.push(u); revoke(u); };",
            vec![],
        )
        .await;
        ui::send(b, "/demo files").await;
        let img = b
            .wait_for(
                ".msg-assistant [data-testid=image-thumb] img[src^='blob:']",
                secs(30),
            )
            .await;
        let url = img.attr("src").await.ok().flatten().unwrap_or_default();
        // Still shown: still held.
        let revoked = b.js("return window.__revoked;", vec![]).await;
        assert!(!revoked.as_array().is_some_and(|r| r.contains(&json!(url))));
        // Another pane: the thread's rows go, and the URL with them.
        b.click("[data-testid=new-thread]").await;
        b.wait_gone(".msg-assistant", secs(10)).await;
        b.poll("the image's URL revoked", secs(10), || async {
            let revoked = b.js("return window.__revoked;", vec![]).await;
            revoked
                .as_array()
                .is_some_and(|r| r.contains(&json!(url)))
                .then_some(())
        })
        .await;
        app.assert_no_console_errors().await;
    });
}

/// A 32×16 JPEG (left half red, right half blue) whose Exif orientation is
/// 6: shown turned a quarter clockwise, 16×32 with red on top. Made with
/// Pillow: `Image.new("RGB", (32, 16))`, saved with `exif[0x0112] = 6`.
const ROTATED_JPEG: &[u8] = include_bytes!("rotated.jpg");

/// The thumbnail's image once decoded: its natural size, its box, the
/// button's box, and the colours at the top and bottom of what it shows.
const THUMB_SHAPE: &str = r#"
const img = document.querySelector('.msg-user [data-testid=image-thumb] img');
if (!img || !img.complete || img.naturalWidth === 0) return null;
const canvas = document.createElement('canvas');
canvas.width = img.naturalWidth;
canvas.height = img.naturalHeight;
const ctx = canvas.getContext('2d');
ctx.drawImage(img, 0, 0);
const at = (x, y) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3));
const box = img.closest('[data-testid=image-thumb]').getBoundingClientRect();
return {
  natural: [img.naturalWidth, img.naturalHeight],
  attrs: [Number(img.getAttribute('width')), Number(img.getAttribute('height'))],
  thumb: [box.width, box.height],
  orientation: getComputedStyle(img).imageOrientation,
  top: at(Math.floor(img.naturalWidth / 2), 2),
  bottom: at(Math.floor(img.naturalWidth / 2), img.naturalHeight - 3),
};
"#;

#[test]
fn a_photo_is_shown_turned_by_its_exif_orientation() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        helpers::pick(
            b,
            vec![helpers::bytes_file(
                "upright.jpg",
                "image/jpeg",
                ROTATED_JPEG,
            )],
        )
        .await;
        helpers::stored(b, 1).await;
        ui::send(b, "a photo taken upright").await;
        let shape = b
            .poll("the photo decoded", secs(20), || async {
                let v = b.js(THUMB_SHAPE, vec![]).await;
                (!v.is_null()).then_some(v)
            })
            .await;
        // The stored pixels are 32 wide and 16 high; shown, the sides swap.
        assert_eq!(shape["natural"], json!([16, 32]), "{shape}");
        assert_eq!(
            shape["orientation"],
            json!("from-image"),
            "style/files.css says so"
        );
        // The gateway's header size is the shown one, so the box the row
        // keeps before the bytes come is upright too (not a 32×16 box with
        // the photo shrunk inside it).
        assert_eq!(shape["attrs"], json!([16, 32]), "{shape}");
        let (w, h) = (
            shape["thumb"][0].as_f64().unwrap_or(f64::NAN),
            shape["thumb"][1].as_f64().unwrap_or(f64::NAN),
        );
        assert!(h > w * 1.5, "the thumbnail is upright: {shape}");
        // Turned clockwise: the red left half is now on top (orientation 8,
        // the other way round, would put blue there).
        let red = |c: &serde_json::Value| {
            c[0].as_u64().unwrap_or(0) > 150 && c[2].as_u64().unwrap_or(255) < 100
        };
        let blue = |c: &serde_json::Value| {
            c[2].as_u64().unwrap_or(0) > 150 && c[0].as_u64().unwrap_or(255) < 100
        };
        assert!(
            red(&shape["top"]) && blue(&shape["bottom"]),
            "red on top, blue below: {shape}"
        );
        app.assert_no_console_errors().await;
    });
}

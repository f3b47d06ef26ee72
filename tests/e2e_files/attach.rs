//! Attaching: the picker (files on disk), a paste, a drop with its zone,
//! progress in bytes and percent, Cancel, the gateway's limits, and the
//! digest (in a worker; in slices where the page has no SubtleCrypto).

use serde_json::json;

use super::helpers::{self, ATTACHMENT};
use crate::support::ui::{self, COMPOSER};
use crate::support::{run, secs};

#[test]
fn the_picker_uploads_files_from_disk_and_the_message_carries_them() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        let dir = std::env::temp_dir().join(format!("aria-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (png, notes) = (dir.join("dot.png"), dir.join("notes.txt"));
        std::fs::write(&png, include_bytes!("dot.png")).expect("png");
        std::fs::write(&notes, "first line\nsecond line\n").expect("notes");
        helpers::pick_from_disk(b, &[&png, &notes]).await;
        helpers::stored(b, 2).await;
        let names = b.texts_of(".attachment-name").await;
        assert_eq!(names, ["dot.png", "notes.txt"]);
        assert!(
            b.exists(".attachment img.attachment-thumb[src^='blob:']")
                .await
        );
        ui::send(b, "two files").await;
        b.wait_for(
            ".msg-user [data-testid=image-thumb] img[src^='blob:']",
            secs(20),
        )
        .await;
        let chip = b.text_of(".msg-user [data-testid=file-chip]").await;
        assert!(
            chip.contains("notes.txt") && chip.contains("Text"),
            "{chip}"
        );
        // Sent once, and the draft is clear.
        assert_eq!(b.count(".msg-user").await, 1);
        assert_eq!(b.count(ATTACHMENT).await, 0);
        let value = b
            .js(
                "return document.querySelector(arguments[0]).value;",
                vec![json!(COMPOSER)],
            )
            .await;
        assert_eq!(value, json!(""));
        // From history after a reload, the same.
        ui::reload_connected(b).await;
        b.wait_for(
            ".msg-user [data-testid=image-thumb] img[src^='blob:']",
            secs(20),
        )
        .await;
        assert_eq!(b.count(".msg-user [data-testid=file-chip]").await, 1);
        let _ = std::fs::remove_dir_all(&dir);
        app.assert_no_console_errors().await;
    });
}

#[test]
fn progress_shows_bytes_and_percent_while_a_large_file_goes() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        b.js(
            r#"
window.__progress = [];
new MutationObserver(() => {
  for (const p of document.querySelectorAll('[data-testid=upload-progress]'))
    window.__progress.push([p.dataset.percent, p.textContent]);
}).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
"#,
            vec![],
        )
        .await;
        helpers::pick(
            b,
            vec![helpers::filler("big.txt", "text/plain", 8 * 1024 * 1024)],
        )
        .await;
        helpers::stored(b, 1).await;
        let seen = b.js("return window.__progress;", vec![]).await;
        let seen = seen.as_array().cloned().unwrap_or_default();
        let between = seen.iter().any(|p| {
            let pct: u32 = p[0].as_str().and_then(|s| s.parse().ok()).unwrap_or(0);
            let text = p[1].as_str().unwrap_or_default();
            (1..100).contains(&pct) && text.contains(" of 8 MB · ") && text.ends_with(" %")
        });
        assert!(between, "no progress between 0 and 100 %: {seen:?}");
        app.assert_no_console_errors().await;
    });
}

#[test]
fn cancel_takes_the_file_off_and_the_message_goes_without_it() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        helpers::pick(
            b,
            vec![helpers::filler("huge.txt", "text/plain", 20 * 1024 * 1024)],
        )
        .await;
        b.wait_for(&format!("{ATTACHMENT}[data-state=uploading]"), secs(10))
            .await;
        let label = b
            .js(
                "return document.querySelector('[data-testid=remove-attachment]').getAttribute('aria-label');",
                vec![],
            )
            .await;
        assert_eq!(label, json!("Cancel upload of huge.txt"));
        b.click("[data-testid=remove-attachment]").await;
        b.wait_gone(ATTACHMENT, secs(5)).await;
        ui::send(b, "no file after all").await;
        b.wait_for(".msg-user:not(.pending)", secs(20)).await;
        assert_eq!(b.count(".msg-user [data-testid=message-files]").await, 0);
        app.assert_no_console_errors().await;
    });
}

#[test]
fn a_pasted_screenshot_and_a_drop_are_attached() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        helpers::paste(b, vec![helpers::png("image.png")]).await;
        helpers::stored(b, 1).await;
        // Dragging files over the thread shows the zone; the drop attaches.
        helpers::drag(b, vec![helpers::text_file("dropped.md", "# hi")], false).await;
        b.wait_for("[data-testid=drop-zone]", secs(5)).await;
        helpers::drag(b, vec![helpers::text_file("dropped.md", "# hi")], true).await;
        b.wait_gone("[data-testid=drop-zone]", secs(5)).await;
        helpers::stored(b, 2).await;
        assert_eq!(
            b.texts_of(".attachment-name").await,
            ["image.png", "dropped.md"]
        );
        // Files alone, without text, make a message.
        b.click("[data-testid=send]").await;
        b.wait_for(
            ".msg-user:not(.pending) [data-testid=image-thumb] img",
            secs(20),
        )
        .await;
        assert_eq!(b.count(".msg-user [data-testid=file-chip]").await, 1);
        app.assert_no_console_errors().await;
    });
}

#[test]
fn limits_refuse_a_file_with_a_sentence_naming_it() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        helpers::pick(
            b,
            vec![
                helpers::filler("too-big.pdf", "application/pdf", 21 * 1024 * 1024),
                helpers::filler("archive.zip", "application/zip", 10),
                helpers::png("fine.png"),
            ],
        )
        .await;
        let refused = b.wait_for("[data-testid=attach-refused]", secs(5)).await;
        let text = refused.text().await.unwrap_or_default();
        assert!(
            text.contains("too-big.pdf is 21 MB; the gateway takes files up to 20 MB."),
            "{text}"
        );
        assert!(
            text.contains("archive.zip: the gateway does not take application/zip files."),
            "{text}"
        );
        helpers::stored(b, 1).await;
        assert_eq!(b.texts_of(".attachment-name").await, ["fine.png"]);
        app.assert_no_console_errors().await;
    });
}

/// Whether the page fetched the digest worker.
async fn worker_loaded(b: &crate::support::Browser) -> bool {
    b.js(
        "return performance.getEntriesByType('resource')\
           .some(e => e.name.endsWith('/digest-worker.js'));",
        vec![],
    )
    .await
        == json!(true)
}

#[test]
fn a_secure_page_hashes_in_a_worker_not_on_its_own_thread() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        // The page's own digest copies its input on the page's thread.
        b.js(
            "window.__pageDigests = 0;
const digest = SubtleCrypto.prototype.digest;
SubtleCrypto.prototype.digest = function (...args) {
  window.__pageDigests += 1;
  return digest.apply(this, args);
};",
            vec![],
        )
        .await;
        helpers::pick(
            b,
            vec![helpers::text_file("worker.txt", &"w".repeat(300_000))],
        )
        .await;
        helpers::stored(b, 1).await;
        assert!(worker_loaded(b).await, "the digest worker was not started");
        assert_eq!(b.js("return window.__pageDigests;", vec![]).await, json!(0));
        app.assert_no_console_errors().await;
    });
}

#[test]
fn without_subtle_crypto_the_digest_is_computed_in_slices() {
    run(|| async {
        let app = ui::demo_app(0).await;
        let b = &app.browser;
        // What a page over plain http on a LAN address sees.
        b.js(
            "Object.defineProperty(window, 'isSecureContext', { get: () => false });
Object.defineProperty(Crypto.prototype, 'subtle', { get: () => undefined, configurable: true });",
            vec![],
        )
        .await;
        // The gateway checks the digest: a wrong one would fail the upload.
        helpers::pick(
            b,
            vec![helpers::text_file(
                "slices.txt",
                &"0123456789abcdef".repeat(100_000),
            )],
        )
        .await;
        helpers::stored(b, 1).await;
        assert!(!worker_loaded(b).await, "a worker has no SubtleCrypto here");
        app.assert_no_console_errors().await;
    });
}

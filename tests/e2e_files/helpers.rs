//! What the file suites do on the page: offer files to the picker, the
//! clipboard or a drop (real `File`s in a real `DataTransfer`, or files on
//! disk through DevTools' `DOM.setFileInputFiles`), and read back the
//! draft's attachments and what was saved.

use serde_json::{json, Value};

use crate::support::{secs, Browser};

/// A 1×1 PNG.
pub const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

pub const ATTACHMENT: &str = "[data-testid=attachment]";
pub const STORED: &str = "[data-testid=attachment][data-state=stored]";

/// A file for the page: `name`, `type`, and its bytes as base64 (`b64`),
/// an array of numbers (`bytes`), text (`text`) or that many bytes of the
/// letter `a` (`size`).
pub fn png(name: &str) -> Value {
    json!({"name": name, "type": "image/png", "b64": PNG_1X1})
}

/// A file of these exact bytes (a fixture of the suite).
pub fn bytes_file(name: &str, mime: &str, bytes: &[u8]) -> Value {
    json!({"name": name, "type": mime, "bytes": bytes})
}

pub fn text_file(name: &str, text: &str) -> Value {
    json!({"name": name, "type": "text/plain", "text": text})
}

pub fn filler(name: &str, mime: &str, size: usize) -> Value {
    json!({"name": name, "type": mime, "size": size})
}

/// Makes `window.__files` a `DataTransfer` holding `files`.
const MAKE_FILES: &str = r#"
const dt = new DataTransfer();
for (const f of arguments[0]) {
  let body;
  if (f.b64 !== undefined) body = Uint8Array.from(atob(f.b64), c => c.charCodeAt(0));
  else if (f.bytes !== undefined) body = new Uint8Array(f.bytes);
  else if (f.text !== undefined) body = f.text;
  else body = 'a'.repeat(f.size);
  dt.items.add(new File([body], f.name, { type: f.type }));
}
window.__files = dt;
"#;

async fn make(b: &Browser, files: Vec<Value>) {
    b.js(MAKE_FILES, vec![Value::Array(files)]).await;
}

/// Picks `files` in the paperclip's file picker.
pub async fn pick(b: &Browser, files: Vec<Value>) {
    make(b, files).await;
    b.js(
        "const i = document.querySelector('[data-testid=file-input]'); \
         i.files = window.__files.files; \
         i.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    )
    .await;
}

/// Picks files on disk through DevTools, as a user's picker does.
pub async fn pick_from_disk(b: &Browser, paths: &[&std::path::Path]) {
    let doc = b.cdp("DOM.getDocument", json!({})).await;
    let root = doc["root"]["nodeId"].clone();
    let node = b
        .cdp(
            "DOM.querySelector",
            json!({"nodeId": root, "selector": "[data-testid=file-input]"}),
        )
        .await;
    let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    b.cdp(
        "DOM.setFileInputFiles",
        json!({"nodeId": node["nodeId"], "files": files}),
    )
    .await;
}

/// Pastes `files` into the message box, as a screenshot is pasted.
pub async fn paste(b: &Browser, files: Vec<Value>) {
    make(b, files).await;
    b.js(
        "document.querySelector(arguments[0]).dispatchEvent(new ClipboardEvent('paste', \
         { clipboardData: window.__files, bubbles: true, cancelable: true }));",
        vec![json!(crate::support::ui::COMPOSER)],
    )
    .await;
}

/// Drags `files` over the thread (the drop zone shows), and drops them
/// when `drop`.
pub async fn drag(b: &Browser, files: Vec<Value>, drop: bool) {
    make(b, files).await;
    let kinds: &[&str] = if drop {
        &["dragenter", "dragover", "drop"]
    } else {
        &["dragenter", "dragover"]
    };
    for kind in kinds {
        b.js(
            "document.querySelector('.timeline').dispatchEvent(new DragEvent(arguments[0], \
             { dataTransfer: window.__files, bubbles: true, cancelable: true }));",
            vec![json!(kind)],
        )
        .await;
    }
}

/// Waits until `n` attachments are stored.
pub async fn stored(b: &Browser, n: usize) {
    b.poll(&format!("{n} attachments stored"), secs(30), || async {
        let all = b.count(ATTACHMENT).await;
        let done = b.count(STORED).await;
        (all == n && done == n).then_some(())
    })
    .await;
}

/// Records what the app saves: every `<a download>` clicked, with the
/// type and size of the Blob behind its URL.
pub async fn record_saves(b: &Browser) {
    b.js(
        r#"
window.__saved = [];
const blobs = new Map();
const make = URL.createObjectURL;
URL.createObjectURL = (o) => { const u = make(o); blobs.set(u, o); return u; };
HTMLAnchorElement.prototype.click = function () {
  const blob = blobs.get(this.href);
  window.__saved.push({ name: this.download, href: this.href,
    type: blob ? blob.type : null, size: blob ? blob.size : null });
};
"#,
        vec![],
    )
    .await;
}

pub async fn saved(b: &Browser) -> Vec<Value> {
    b.js("return window.__saved || [];", vec![])
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

//! The SHA-256 of a file to upload, without a long task: SubtleCrypto in
//! a worker (`js/digest-worker.js`) where the page has it (secure contexts:
//! https or localhost); elsewhere (plain `http://` on a LAN address, or the
//! worker failed) the Rust digest in slices, the main thread given back
//! between them. Not SubtleCrypto on the page's thread: its `digest`
//! copies the input there, a 30 ms task for 20 MiB.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::files::Sha256Stream;

/// Bytes hashed per task by the fallback (a few milliseconds each).
const SLICE: u32 = 256 * 1024;

/// The worker, copied beside index.html by Trunk.
const WORKER_URL: &str = "digest-worker.js";

/// Lowercase hex SHA-256 of `file`, whose bytes are `bytes`.
pub async fn sha256_hex(
    file: &web_sys::Blob,
    bytes: &js_sys::Uint8Array,
) -> Result<String, String> {
    if is_secure() {
        if let Some(hex) = in_worker(file).await {
            return Ok(hex);
        }
    }
    in_slices(bytes).await
}

fn is_secure() -> bool {
    web_sys::window().is_some_and(|w| w.is_secure_context())
}

/// The digest from a worker of its own, ended once it answered; `None` when
/// it could not start, failed or answered something that is not a digest.
async fn in_worker(file: &web_sys::Blob) -> Option<String> {
    let worker = web_sys::Worker::new(WORKER_URL).ok()?;
    let mut settle = None;
    let answered = js_sys::Promise::new(&mut |resolve, _| settle = Some(resolve));
    let settle = settle?;
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new({
        let settle = settle.clone();
        move |ev: web_sys::MessageEvent| {
            let _ = settle.call1(&JsValue::NULL, &ev.data());
        }
    });
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |_| {
        let _ = settle.call1(&JsValue::NULL, &JsValue::NULL);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let answer = match worker.post_message(file) {
        Ok(()) => JsFuture::from(answered).await.ok(),
        Err(_) => None,
    };
    worker.terminate();
    answer?
        .as_string()
        .filter(|hex| crate::protocol::is_sha256_hex(hex))
}

async fn in_slices(bytes: &js_sys::Uint8Array) -> Result<String, String> {
    let mut hash = Sha256Stream::new();
    let len = bytes.length();
    let mut at = 0;
    while at < len {
        let end = at.saturating_add(SLICE).min(len);
        hash.update(&bytes.subarray(at, end).to_vec());
        at = end;
        yield_now().await;
    }
    Ok(hash.finish())
}

/// Gives the main thread back for one task.
async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(promise).await;
}

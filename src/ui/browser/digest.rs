//! The SHA-256 of a file to upload, without a long task: SubtleCrypto,
//! which runs off the main thread, where the page has it (secure contexts:
//! https or localhost); elsewhere (plain `http://` on a LAN address) the
//! Rust digest in slices, the main thread given back between them.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::files::Sha256Stream;

/// Bytes hashed per task by the fallback (a few milliseconds each).
const SLICE: u32 = 256 * 1024;

/// Lowercase hex SHA-256 of `bytes`.
pub async fn sha256_hex(bytes: &js_sys::Uint8Array) -> Result<String, String> {
    if let Some(subtle) = subtle() {
        if let Some(hex) = with_subtle(&subtle, bytes).await {
            return Ok(hex);
        }
    }
    in_slices(bytes).await
}

/// SubtleCrypto, when this page has it.
fn subtle() -> Option<web_sys::SubtleCrypto> {
    let window = web_sys::window()?;
    if !window.is_secure_context() {
        return None;
    }
    let crypto = window.crypto().ok()?;
    let subtle = js_sys::Reflect::get(&crypto, &JsValue::from_str("subtle")).ok()?;
    subtle.dyn_into().ok()
}

async fn with_subtle(subtle: &web_sys::SubtleCrypto, bytes: &js_sys::Uint8Array) -> Option<String> {
    let promise = subtle
        .digest_with_str_and_buffer_source("SHA-256", bytes)
        .ok()?;
    let digest = JsFuture::from(promise).await.ok()?;
    let digest = js_sys::Uint8Array::new(&digest).to_vec();
    Some(crate::files::hex(&digest))
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

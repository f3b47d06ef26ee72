//! A received frame's text, a long one copied into wasm memory by the
//! browser's own `TextEncoder.encodeInto`: one native pass. wasm-bindgen's
//! `as_string` first copies the string's ASCII prefix with a JS loop, char
//! by char, which for a streamed answer's snapshot (the whole text so far,
//! every 10 ms) was the larger part of handling it.

use std::cell::OnceCell;

use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    /// Writes `source` as UTF-8 into `dest` (a view of wasm memory).
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, source: &JsString, dest: &mut [u8]) -> EncodeResult;

    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> u32;
}

/// Shorter frames (in UTF-16 units) take wasm-bindgen's copy: for them
/// the loop costs less than `encodeInto`'s fixed cost (a view of memory
/// and a result object per call). The bench's decode run, frames of about
/// 200 bytes, went 17% slower with `encodeInto` for all.
const ENCODE_FROM: u32 = 2048;

thread_local! {
    static ENCODER: OnceCell<TextEncoder> = const { OnceCell::new() };
}

/// The text of `data` if it is a string (a text frame), else `None`.
pub fn text_of(data: &JsValue) -> Option<String> {
    let s = data.dyn_ref::<JsString>()?;
    if s.length() < ENCODE_FROM {
        return data.as_string();
    }
    // A UTF-16 code unit is at most three bytes of UTF-8 (a surrogate
    // pair, two units, is four).
    let mut bytes = vec![0; s.length() as usize * 3];
    let written = ENCODER.with(|e| {
        e.get_or_init(TextEncoder::new)
            .encode_into(s, &mut bytes)
            .written()
    });
    bytes.truncate(written as usize);
    // encodeInto writes well-formed UTF-8 (a lone surrogate becomes
    // U+FFFD); checked anyway rather than trusted.
    String::from_utf8(bytes).ok()
}

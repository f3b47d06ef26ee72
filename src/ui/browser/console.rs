//! Warnings for whoever reads the browser console.

use wasm_bindgen::JsValue;

pub fn log_warning(text: &str) {
    web_sys::console::warn_1(&JsValue::from_str(text));
}

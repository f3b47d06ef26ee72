//! The system clipboard.

/// Writes `text` to the clipboard; the promise settles with the outcome.
pub fn copy_to_clipboard(text: &str) -> Option<js_sys::Promise> {
    web_sys::window().map(|w| w.navigator().clipboard().write_text(text))
}

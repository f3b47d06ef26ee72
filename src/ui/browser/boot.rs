//! The hand-over from the page's boot to the app: `index.html` paints the
//! app's frame (`#aria-shell`) before the wasm has arrived, and boot.js
//! reports a failed start until the page is marked booted.

/// Removes the static frame, if the page still has it. Called in the task
/// that mounts the app, so the page never shows both, nor has their
/// landmarks twice.
pub fn remove_static_shell() {
    if let Some(shell) = document().and_then(|d| d.get_element_by_id("aria-shell")) {
        shell.remove();
    }
}

/// Marks `<html data-booted="true">` and the performance mark
/// `aria-booted`: the app is mounted (the tests wait for it and check that
/// the page's largest paint came before; boot.js stops reporting errors as
/// a failed start).
pub fn mark_booted() {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Some(root) = window.document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-booted", "true");
    }
    if let Some(performance) = window.performance() {
        let _ = performance.mark("aria-booted");
    }
}

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

/// Runs `f` once boot.js has linked the app's deferred part (soon, if it
/// has): code of that part runs without loading it there and then. Never
/// in a build that is not split, which has no such part, nor when its
/// fetch failed (a call into it would load it synchronously).
pub fn when_deferred_linked(f: impl FnOnce() + 'static) {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    let Some(boot) = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("__ariaDeferred")).ok())
    else {
        return;
    };
    let when = js_sys::Reflect::get(&boot, &JsValue::from_str("whenLinked"))
        .ok()
        .and_then(|w| w.dyn_into::<js_sys::Function>().ok());
    if let Some(when) = when {
        let _ = when.call1(&boot, &Closure::once_into_js(f));
    }
}

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

/// Runs `f` once boot.js has linked the app's deferred part (at once if it
/// has): code of that part runs without loading it there and then. Never
/// in a build that is not split, which has no such part, nor when its
/// fetch failed (a call into it would load it synchronously).
pub fn when_deferred_linked(f: impl FnOnce() + 'static) {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return;
    };
    let state = js_sys::Reflect::get(&window, &JsValue::from_str("__ariaDeferred"))
        .ok()
        .and_then(|d| {
            let status = js_sys::Reflect::get(&d, &JsValue::from_str("status")).ok()?;
            status.dyn_into::<js_sys::Function>().ok()?.call0(&d).ok()
        })
        .and_then(|s| js_sys::Reflect::get(&s, &JsValue::from_str("state")).ok())
        .and_then(|s| s.as_string());
    let split = document()
        .and_then(|d| d.get_element_by_id("aria-boot"))
        .and_then(|tag| tag.get_attribute("data-deferred"))
        .is_some_and(|url| !url.is_empty());
    match state.as_deref() {
        Some("linked") => f(),
        Some("waiting") if split => {
            let linked = Closure::once_into_js(f);
            let options = web_sys::AddEventListenerOptions::new();
            options.set_once(true);
            let _ = window.add_event_listener_with_callback_and_add_event_listener_options(
                DEFERRED_LINKED,
                linked.unchecked_ref(),
                &options,
            );
        }
        _ => {}
    }
}

/// boot.js's event on `window` once the deferred part is linked.
const DEFERRED_LINKED: &str = "aria-deferred-linked";

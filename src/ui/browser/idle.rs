//! Work for when the page has nothing else to do.

use wasm_bindgen::closure::Closure;

/// Runs `f` once, when the page is next idle (`requestIdleCallback`).
pub fn when_idle(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    if let Some(w) = web_sys::window() {
        let f = Closure::once_into_js(f);
        let _ = w.request_idle_callback(f.unchecked_ref());
    }
}

/// Lays `html` out once in a new element of `class` (which the CSS keeps
/// off screen and unpainted), then removes it: the fonts and the layout
/// code it needs are ready after that. `html` must be the sanitizer's.
pub fn lay_out_once(class: &str, html: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(el), Some(body)) = (doc.create_element("div"), doc.body()) else {
        return;
    };
    el.set_class_name(class);
    let _ = el.set_attribute("aria-hidden", "true");
    el.set_inner_html(html);
    let _ = body.append_child(&el);
    // Reading a size lays it out now.
    let _ = el.get_bounding_client_rect();
    el.remove();
}

//! Where the keyboard focus is, and giving it back after a dialog.

/// The focused element, to give the focus back to after a dialog (`None`
/// when nothing is, i.e. the body).
pub fn focused() -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    web_sys::window()?
        .document()?
        .active_element()?
        .dyn_into::<web_sys::HtmlElement>()
        .ok()
        .filter(|el| el.tag_name() != "BODY")
}

/// Gives the focus back to `el` on the next frame (when a closing dialog's
/// inert page can take it), if it is still in the page and nothing else
/// took the focus meanwhile; else to the composer.
pub fn refocus(el: Option<web_sys::HtmlElement>) {
    leptos::prelude::request_animation_frame(move || {
        if focused().is_some() {
            return;
        }
        let el = el.filter(|el| el.is_connected()).or_else(composer);
        if let Some(el) = el {
            let _ = el.focus();
        }
    });
}

/// The composer's text field, where the focus goes by default.
pub fn composer() -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    web_sys::window()?
        .document()?
        .query_selector("form[data-testid=composer] textarea")
        .ok()??
        .dyn_into::<web_sys::HtmlElement>()
        .ok()
}

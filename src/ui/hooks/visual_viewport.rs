//! Keeps the composer above a phone's on-screen keyboard: where the
//! keyboard overlays the page instead of resizing it (iOS Safari; Chrome
//! honours `interactive-widget=resizes-content` in index.html), only the
//! visual viewport shrinks. Its height goes into `--visual-height` on
//! `<html>`, which the app's box uses as its height (style/base.css).
//! Times its scale: pinch-zooming shrinks the visual viewport too, and
//! must not shrink the app.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Follows the visual viewport's size for the page's lifetime.
pub fn track() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(viewport) = window.visual_viewport() else {
        return;
    };
    let follow = {
        let viewport = viewport.clone();
        move || {
            let root = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.document_element())
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(root) = root {
                let _ = root.style().set_property(
                    "--visual-height",
                    &crate::render::px(viewport.height() * viewport.scale()),
                );
            }
        }
    };
    follow();
    let on_resize = Closure::<dyn Fn()>::new(follow);
    let _ = viewport.add_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    on_resize.forget();
}

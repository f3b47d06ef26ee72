//! Copy controls: a button that copies a text and says "Copied" for a
//! moment, visibly and through the page's polite live region. Code blocks
//! carry the same markup from the renderer (markdown/src/render.rs), so one
//! function, [`copy_and_confirm`], serves both.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::browser;
use crate::ui::components::live_regions::Announcer;

/// How long the confirmation stays.
const CONFIRM_FOR: Duration = Duration::from_millis(1500);

/// A copy button; `text` is read when it is pressed.
#[component]
pub fn CopyButton(
    /// The accessible name, e.g. "Copy answer".
    label: &'static str,
    #[prop(into)] text: Signal<String>,
    /// Extra classes for placement.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let say = use_context::<Announcer>();
    let on_click = move |ev: web_sys::MouseEvent| {
        if let Some(button) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            copy_and_confirm(button, &text.get_untracked(), say);
        }
    };
    view! {
        <button type="button" class=format!("copy-button {class}") aria-label=label on:click=on_click>
            // Drawn in CSS: symbol glyphs like ⧉ are missing from many
            // fonts, and content areas hold no SVG at all.
            <span class="copy-icon" aria-hidden="true"></span>
            <span class="copy-label">"Copy"</span>
        </button>
    }
}

/// Copies `text`, then shows the outcome on `button` (a `.copy-button`:
/// its `.copy-label`) for [`CONFIRM_FOR`] and says it through `say`.
pub fn copy_and_confirm(button: web_sys::Element, text: &str, say: Option<Announcer>) {
    let Some(written) = browser::copy_to_clipboard(text) else {
        return;
    };
    // One closure for both outcomes: writeText resolves with `undefined`.
    let settled = Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| {
        let outcome = if v.is_undefined() {
            "Copied"
        } else {
            "Copy failed"
        };
        show(&button, outcome, true);
        if let Some(say) = say {
            say.polite(outcome);
        }
        let button = button.clone();
        set_timeout(move || show(&button, "Copy", false), CONFIRM_FOR);
    });
    let _ = written.then2(&settled, &settled);
    // Called once, by the promise; a few bytes per click.
    settled.forget();
}

fn show(button: &web_sys::Element, label: &str, copied: bool) {
    if let Ok(Some(l)) = button.query_selector(".copy-label") {
        l.set_text_content(Some(label));
    }
    let _ = button.toggle_attribute_with_force("data-copied", copied);
}

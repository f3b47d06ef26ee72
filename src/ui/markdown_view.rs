//! Renders (streaming) markdown into the DOM incrementally: completed blocks
//! are appended once, only the unfinished tail is replaced per update. Only
//! the sanitizer's output ever reaches `innerHTML`.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::render::IncrementalMarkdown;

#[component]
pub fn MarkdownView(#[prop(into)] text: Signal<String>) -> impl IntoView {
    let stable = NodeRef::<Div>::new();
    let tail = NodeRef::<Div>::new();
    let renderer = StoredValue::new(IncrementalMarkdown::new());

    Effect::new(move |_| {
        let (Some(stable), Some(tail)) = (stable.get(), tail.get()) else {
            return;
        };
        let delta = text.with(|t| renderer.try_update_value(|r| r.update(t)));
        let Some(delta) = delta else { return };
        if let Some(keep) = delta.stable_truncated_to {
            while stable.child_element_count() as usize > keep {
                if let Some(last) = stable.last_element_child() {
                    last.remove();
                }
            }
        }
        for html in &delta.stable_appended {
            let block = format!("<div class=\"md-block\">{html}</div>");
            let _ = stable.insert_adjacent_html("beforeend", &block);
        }
        tail.set_inner_html(&delta.tail_html);
    });

    view! {
        <div class="markdown" on:click=load_image_on_click>
            <div class="md-stable" node_ref=stable></div>
            <div class="md-tail" node_ref=tail></div>
        </div>
    }
}

/// Remote images are placeholders until clicked: an image URL can carry
/// data out, so nothing is fetched without the reader's consent.
fn load_image_on_click(ev: web_sys::MouseEvent) {
    let Some(button) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.closest("button.md-img").ok().flatten())
    else {
        return;
    };
    let Some(src) = button.get_attribute("data-src") else {
        return;
    };
    if !(src.starts_with("https://") || src.starts_with("http://")) {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(img) = doc.create_element("img") else {
        return;
    };
    let _ = img.set_attribute("src", &src);
    let _ = img.set_attribute("referrerpolicy", "no-referrer");
    let _ = img.set_attribute("loading", "lazy");
    let alt = button.text_content().unwrap_or_default();
    let _ = img.set_attribute("alt", alt.trim_start_matches("🖼 Load image: "));
    let _ = button.replace_with_with_node_1(&img);
}

//! A tool's output in a scrollable box, a chunk at a time.

use leptos::prelude::*;

/// Output is shown in chunks of this many bytes, more on request, so a
/// 256 KiB output never lands in the DOM at once.
const OUTPUT_CHUNK: usize = 16 * 1024;

/// A scrollable output box that renders big outputs a chunk at a time.
#[component]
pub fn OutputBox(#[prop(into)] text: Signal<String>) -> impl IntoView {
    let shown = RwSignal::new(OUTPUT_CHUNK);
    let visible = move || {
        text.with(|t| {
            let mut end = shown.get().min(t.len());
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            t[..end].to_string()
        })
    };
    let rest = move || text.with(|t| t.len().saturating_sub(shown.get()));
    view! {
        <pre class="tool-output" tabindex="0">{visible}</pre>
        <Show when=move || { rest() > 0 }>
            <button type="button" class="link-button show-more"
                on:click=move |_| shown.update(|s| *s += OUTPUT_CHUNK * 4)>
                {move || format!("Show more ({} KB left)", rest().div_ceil(1024))}
            </button>
        </Show>
        <Show when=move || text.with(|t| t.is_empty())>
            <span class="muted">"(no output)"</span>
        </Show>
    }
}

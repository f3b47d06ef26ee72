//! What shows over the thread while files are dragged over it.

use leptos::prelude::*;

#[component]
pub fn DropZone(shown: Signal<bool>) -> impl IntoView {
    view! {
        <Show when=move || shown.get()>
            <div class="drop-zone" data-testid="drop-zone" aria-hidden="true">
                <span>"Drop files to attach them"</span>
            </div>
        </Show>
    }
}

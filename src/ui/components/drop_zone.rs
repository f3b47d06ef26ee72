//! What shows over the thread while files are dragged over it.

use leptos::prelude::*;

/// The zone, made only while files are dragged (not inlined into the
/// caller, which runs on every visit: see `message_files::files_view`).
#[inline(never)]
pub fn drop_zone_view() -> AnyView {
    view! { <DropZone /> }.into_any()
}

#[component]
pub fn DropZone() -> impl IntoView {
    view! {
        <div class="drop-zone" data-testid="drop-zone" aria-hidden="true">
            <span>"Drop files to attach them"</span>
        </div>
    }
}

//! The thread list: pinned first, then newest activity first (each one a
//! [`ThreadItem`]), with the search field above and the thread menu.

use leptos::prelude::*;

use crate::ui::components::search_box::SearchBox;
use crate::ui::components::thread_item::{RefocusLink, ThreadItem};
use crate::ui::components::thread_menu::{MenuAt, ThreadMenu};
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn Sidebar(drawer_open: RwSignal<bool>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let menu = RwSignal::new(None::<MenuAt>);
    let renaming = RwSignal::new(None::<String>);
    let sorted = Memo::new(move |_| {
        let pins = rt.settings.with(|s| s.pins.clone());
        let mut list = rt.view.channels.get();
        list.sort_by(|a, b| {
            let pa = pins.contains(&a.id);
            let pb = pins.contains(&b.id);
            pb.cmp(&pa)
                .then(b.updated_at.cmp(&a.updated_at))
                .then_with(|| a.id.cmp(&b.id))
        });
        list
    });

    // The rename field gone (committed or cancelled), the focus goes back
    // to that thread's link when it shows again; until the user puts the
    // focus anywhere else.
    let refocus = RefocusLink(StoredValue::new(None));
    Effect::new(move |was: Option<Option<String>>| {
        let now = renaming.get();
        if let (Some(Some(id)), None) = (&was, &now) {
            refocus.0.set_value(Some(id.clone()));
        }
        now
    });
    let _focusin = window_event_listener(leptos::ev::focusin, move |ev| {
        let on_link = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|el| el.closest(".thread-item").ok().flatten())
            .and_then(|li| li.get_attribute("data-channel-id"));
        if on_link != refocus.0.get_value() {
            refocus.0.set_value(None);
        }
    });
    provide_context(refocus);

    view! {
        <nav class="sidebar" data-testid="sidebar" aria-label="Threads">
            <div class="sidebar-head">
                <span class="brand">"aria"</span>
                <a class="new-thread" data-testid="new-thread" href="#/"
                    on:click=move |_| {
                        rt.act(|s| s.open(None));
                        drawer_open.set(false);
                    }>
                    "+ New thread"
                </a>
            </div>
            <SearchBox drawer_open />
            <ul class="thread-list">
                // Keyed by id: an unread, preview or busy change updates the
                // item's fields in place (its timers and an open rename stay).
                <For each=move || sorted.get() key=|c| c.id.clone() let:c>
                    <ThreadItem id=c.id menu renaming />
                </For>
            </ul>
            <ThreadMenu menu renaming />
        </nav>
    }
}

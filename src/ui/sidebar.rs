//! The thread list: pinned first, then newest activity first.

use leptos::prelude::*;

use super::browser;
use super::runtime::Runtime;
use super::view_state::ChannelSummary;

#[component]
pub fn Sidebar(drawer_open: RwSignal<bool>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let sorted = Memo::new(move |_| {
        let pins = rt.settings.with(|s| s.pins.clone());
        let mut list = rt.view.channels.get();
        list.sort_by(|a, b| {
            let pa = pins.contains(&a.id);
            let pb = pins.contains(&b.id);
            pb.cmp(&pa)
                .then(b.updated_at.cmp(&a.updated_at))
                .then_with(|| a.title.cmp(&b.title))
        });
        list
    });

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
            <ul class="thread-list">
                <For each=move || sorted.get() key=|c| (c.id.clone(), c.title.clone(), c.preview.clone(), c.unread, c.busy) let:c>
                    <ThreadItem c />
                </For>
            </ul>
        </nav>
    }
}

#[component]
fn ThreadItem(c: ChannelSummary) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let id = c.id.clone();
    let is_active = {
        let id = id.clone();
        Memo::new(move |_| rt.view.active.with(|a| a.as_deref() == Some(id.as_str())))
    };
    let pinned = {
        let id = id.clone();
        move || rt.settings.with(|s| s.is_pinned(&id))
    };
    let title = if c.title.trim().is_empty() {
        "Untitled".to_string()
    } else {
        c.title.clone()
    };
    view! {
        <li class="thread-item" data-channel-id=id.clone() class:active=is_active>
            <a href=browser::channel_href(Some(&id)) aria-current=move || is_active.get().then_some("page")>
                <span class="thread-title">
                    <Show when=pinned><span class="pin" aria-label="Pinned">"📌"</span></Show>
                    {title}
                </span>
                <span class="thread-preview">{c.preview.clone()}</span>
                <span class="thread-badges">
                    <Show when=move || c.busy>
                        <span class="badge busy" aria-label="Agent working"></span>
                    </Show>
                    <Show when=move || { c.unread > 0 }>
                        <span class="badge unread" aria-label="Unread messages">{c.unread}</span>
                    </Show>
                </span>
            </a>
        </li>
    }
}

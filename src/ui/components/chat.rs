//! The open thread: header, timeline and composer.

use leptos::prelude::*;

use crate::ui::components::branch_offer::BranchOfferBar;
use crate::ui::components::composer::Composer;
use crate::ui::components::drop_zone::drop_zone_view;
use crate::ui::components::status::ConnectionStatus;
use crate::ui::components::timeline::Timeline;
use crate::ui::hooks::file_drop::FileDrop;
use crate::ui::wiring::offline;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn Chat(settings_open: RwSignal<bool>, drawer_open: RwSignal<bool>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let title = move || {
        let active = rt.view.active.get();
        match active {
            None => "New thread".to_string(),
            Some(id) => rt
                .view
                .channels
                .with(|cs| cs.iter().find(|c| c.id == id).map(|c| c.title.clone()))
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| "Untitled".to_string()),
        }
    };
    let offline_thread = move || rt.view.active.get().is_some() && offline::unreachable(rt);
    let drop = FileDrop::new();
    view! {
        <main class="chat" aria-label="Conversation"
            on:dragenter=move |ev| drop.enter(ev) on:dragover=move |ev| drop.over(ev)
            on:dragleave=move |ev| drop.leave(ev) on:drop=move |ev| drop.dropped(rt, ev)>
            {move || drop.shown.get().then(drop_zone_view)}
            <header class="chat-head">
                <button type="button" class="icon-button drawer-toggle" aria-label="Show threads"
                    on:click=move |_| drawer_open.update(|o| *o = !*o)>"☰"</button>
                <h1 class="chat-title" data-testid="chat-title">{title}</h1>
                <Show when=offline_thread>
                    <span class="thread-offline" data-testid="thread-offline"
                        title="The gateway cannot be reached: this is the copy kept on this device">"offline"</span>
                </Show>
                <ConnectionStatus />
                <button type="button" class="icon-button" data-testid="open-settings" aria-label="Settings"
                    on:click=move |_| settings_open.set(true)>"⚙"</button>
            </header>
            <BranchOfferBar />
            <Timeline />
            <Composer />
        </main>
    }
}

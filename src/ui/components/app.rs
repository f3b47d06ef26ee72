//! The page: thread list, open thread, composer, settings, notices and the
//! gateway questions; or, inside another page's frame, only a refusal.

use leptos::prelude::*;

use crate::settings::Theme;
use crate::ui::browser;
use crate::ui::browser::boot;
use crate::ui::browser::markdown_module::MarkdownModule;
use crate::ui::components::chat::Chat;
use crate::ui::components::export_progress::ExportProgress;
use crate::ui::components::frame_refusal::FrameRefusal;
use crate::ui::components::gateway_prompt::GatewayPrompt;
use crate::ui::components::live_regions::{Announcer, LiveRegions};
use crate::ui::components::notices::Notices;
use crate::ui::components::service_worker;
use crate::ui::components::settings_panel::SettingsPanel;
use crate::ui::components::shortcut_help::ShortcutHelp;
use crate::ui::components::sidebar::Sidebar;
use crate::ui::hooks::attention;
use crate::ui::hooks::shortcuts;
use crate::ui::hooks::visual_viewport;
use crate::ui::wiring::offline;
use crate::ui::wiring::rehearsal;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn App() -> impl IntoView {
    boot::remove_static_shell();
    if browser::is_framed() {
        return view! { <FrameRefusal /> }.into_any();
    }
    let rt = Runtime::start();
    provide_context(rt);
    provide_context(Announcer::new());
    let markdown = MarkdownModule::load();
    provide_context(markdown);
    rehearsal::rehearse_when_ready(markdown);
    attention::install(rt);
    offline::install(rt);
    service_worker::register();
    visual_viewport::track();

    // Back/forward and typed deep links: the hash names the open thread.
    let _hash = window_event_listener(leptos::ev::hashchange, move |_| {
        rt.open_hash();
    });

    Effect::new(move |_| {
        let theme = match rt.settings.with(|s| s.theme) {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        };
        browser::apply_theme(theme);
    });

    let settings_open = RwSignal::new(false);
    let help_open = RwSignal::new(false);
    shortcuts::install(rt, help_open);
    let drawer_open = RwSignal::new(false);
    // Opening a thread on a narrow screen closes the drawer.
    Effect::new(move |_| {
        rt.view.active.track();
        drawer_open.set(false);
    });

    // While a dialog is open, the page behind it takes no focus or clicks.
    let modal = move || settings_open.get() || rt.prompt.with(Option::is_some);
    view! {
        <div class="app" class:drawer-open=move || drawer_open.get() inert=modal>
            <Sidebar drawer_open />
            <div class="drawer-scrim" on:click=move |_| drawer_open.set(false)></div>
            <Chat settings_open drawer_open />
            <Notices />
            <ExportProgress />
            <ShortcutHelp open=help_open />
        </div>
        <Show when=move || settings_open.get()>
            <SettingsPanel open=settings_open />
        </Show>
        {move || rt.prompt.get().map(|prompt| view! { <GatewayPrompt prompt /> })}
        <LiveRegions />
    }
    .into_any()
}

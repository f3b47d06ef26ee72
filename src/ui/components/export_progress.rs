//! While a thread is being exported: how far it got, and Cancel. Its
//! start is heard through the page's polite region, not page by page.

use leptos::prelude::*;

use crate::ui::components::live_regions::Announcer;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn ExportProgress() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let progress = move || rt.export.get();
    if let Some(say) = use_context::<Announcer>() {
        Effect::new(move |was_running: Option<bool>| {
            let running = rt.export.with(Option::is_some);
            if running && was_running == Some(false) {
                say.polite("Exporting the thread");
            }
            running
        });
    }
    view! {
        {move || progress().map(|p| view! {
            <div class="export-progress" data-testid="export-progress">
                <span data-testid="export-label">{p.label()}</span>
                <progress max=p.total.max(p.done).max(1) value=p.done></progress>
                <button type="button" data-testid="export-cancel" on:click=move |_| rt.cancel_export()>"Cancel"</button>
            </div>
        })}
    }
}

//! Settings' "Offline copy": what this device keeps of the gateway in use,
//! and the button that clears it.

use leptos::prelude::*;

use crate::ui::wiring::offline;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn OfflineSettings() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let kept = move || rt.offline_view.get().kept;
    view! {
        <fieldset data-testid="offline-copy">
            <legend>"Offline copy"</legend>
            <p class="offline-summary" data-testid="offline-summary" data-threads=move || kept().threads>
                {move || kept().describe()}
            </p>
            <p class="muted">"The thread list and the newest items of the threads opened last are kept on this device, for each gateway, to read while it cannot be reached. Tokens are never kept there."</p>
            <button type="button" data-testid="clear-offline" disabled=move || kept().bytes == 0
                on:click=move |_| offline::clear(rt)>"Clear offline copy"</button>
        </fieldset>
    }
}

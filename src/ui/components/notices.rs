//! One-sentence errors from the gateway, dismissible; and the note that
//! the app was updated.

use leptos::prelude::*;

use crate::ui::components::service_worker::UpdateNotice;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn Notices() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    view! {
        // A named region, so that a notice is inside a landmark.
        <section class="notices" aria-label="Notices">
            <UpdateNotice />
            <For each=move || rt.view.notices.get() key=|n| n.id let:n>
                <div class="notice">
                    <span>{n.text.clone()}</span>
                    <button type="button" class="icon-button" aria-label="Dismiss"
                        on:click=move |_| rt.act(|s| { s.dismiss_notice(n.id); Vec::new() })>"×"</button>
                </div>
            </For>
        </section>
    }
}

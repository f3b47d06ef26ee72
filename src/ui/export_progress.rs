//! While a thread is being exported: how far it got, and Cancel.

use leptos::prelude::*;

use super::runtime::Runtime;

#[component]
pub fn ExportProgress() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let progress = move || rt.export.get();
    view! {
        {move || progress().map(|p| view! {
            <div class="export-progress" data-testid="export-progress" role="status">
                <span data-testid="export-label">{p.label()}</span>
                <progress max=p.total.max(p.done).max(1) value=p.done></progress>
                <button type="button" data-testid="export-cancel" on:click=move |_| rt.cancel_export()>"Cancel"</button>
            </div>
        })}
    }
}

//! The draft's attachments above the message box, why files were not
//! attached (the gateway's limits), and the message waiting for its files.
//! Until a file is offered it is one closure: a first visit builds none
//! of the rest (docs/build.md).

use leptos::prelude::*;

use crate::ui::components::attachment_chip::AttachmentChip;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn AttachmentList() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let used = Memo::new(move |_| {
        rt.files.waiting.get()
            || !rt.files.chips.with(Vec::is_empty)
            || !rt.files.refused.with(Vec::is_empty)
    });
    move || used.get().then(attachments)
}

/// Not inlined: see `message_files::files_view`.
#[inline(never)]
fn attachments() -> AnyView {
    let rt = expect_context::<Runtime>();
    let ids = Memo::new(move |_| {
        rt.files
            .chips
            .with(|c| c.iter().map(|c| c.upload_id.clone()).collect::<Vec<_>>())
    });
    let refused = move || rt.files.refused.get();
    view! {
        <Show when=move || !ids.with(Vec::is_empty)>
            <ul class="attachments" aria-label="Attached files" data-testid="attachments">
                <For each=move || ids.get() key=|id| id.clone() let(id)>
                    <AttachmentChip upload_id=id />
                </For>
            </ul>
        </Show>
        <Show when=move || rt.files.waiting.get()>
            <p class="attach-waiting" data-testid="attach-waiting" role="status">
                "Sending once the files are uploaded… "
                <button type="button" class="link-button" on:click=move |_| rt.hold_draft()>"Keep as draft"</button>
            </p>
        </Show>
        <Show when=move || !rt.files.refused.with(Vec::is_empty)>
            <ul class="attach-refused send-error" role="alert" data-testid="attach-refused">
                {move || refused().into_iter().map(|why| view! { <li>{why}</li> }).collect_view()}
            </ul>
        </Show>
    }
    .into_any()
}

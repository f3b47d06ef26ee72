//! A file attached to the message being written: thumbnail (images, from
//! the picked file's `blob:` URL), name, size, progress, and a button that
//! cancels its upload or removes it. Only the progress and the button's
//! name follow the upload; the rest is drawn once (the button keeps the
//! focus while the bytes go).

use leptos::prelude::*;

use crate::files::{safe_name, size_label, UploadState};
use crate::ui::components::upload_progress::UploadProgress;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn AttachmentChip(upload_id: String) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let chip = {
        let id = upload_id.clone();
        Memo::new(move |_| {
            rt.files
                .chips
                .with(|c| c.iter().find(|c| c.upload_id == id).cloned())
        })
    };
    let Some(first) = chip.get_untracked() else {
        return ().into_any();
    };
    let name = safe_name(&first.name);
    let size = first.size;
    let state = move || {
        chip.with(|c| match c.as_ref().map(|c| &c.state) {
            Some(UploadState::Stored(_)) => "stored",
            Some(UploadState::Failed(_)) => "failed",
            _ => "uploading",
        })
    };
    let label = {
        let name = name.clone();
        move || match state() {
            "uploading" => format!("Cancel upload of {name}"),
            _ => format!("Remove {name}"),
        }
    };
    let progress = {
        let name = name.clone();
        move || {
            chip.get().map(|c| {
                view! { <UploadProgress done=c.done size=c.size state=c.state name=name.clone() /> }
            })
        }
    };
    let id = StoredValue::new(upload_id);
    view! {
        <li class="attachment" data-testid="attachment" data-state=state>
            {match first.thumb {
                Some(url) => view! { <img class="attachment-thumb" src=url alt="" /> }.into_any(),
                None => view! { <span class="attachment-icon" aria-hidden="true">"📄"</span> }.into_any(),
            }}
            <div class="attachment-info">
                <span class="attachment-name" title=name.clone()>{name.clone()}</span>
                <span class="attachment-size">{size_label(size)}</span>
                {progress}
            </div>
            <button type="button" class="icon-button" data-testid="remove-attachment"
                aria-label=label on:click=move |_| rt.remove_attachment(&id.get_value())>"×"</button>
        </li>
    }
    .into_any()
}

//! A stored file that is not an image: its name, type and size; a click
//! saves it (its bytes are never shown in the page).

use leptos::prelude::*;

use crate::files::{safe_name, size_label, type_label};
use crate::protocol::FileRef;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn FileChip(file: FileRef) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let name = safe_name(&file.name);
    let kind = type_label(&file.mime, &file.name);
    let size = size_label(file.size);
    let save = move |_| rt.save_file(&file.file_id, &file.name);
    view! {
        <button type="button" class="file-chip" data-testid="file-chip" on:click=save>
            <span class="file-chip-icon" aria-hidden="true">"📄"</span>
            <span class="visually-hidden">"Save "</span>
            <span class="file-chip-name">{name}</span>
            <span class="file-chip-meta">{format!("{kind} · {size}")}</span>
        </button>
    }
}

//! The paperclip: a file picker for several files at once. Its `accept`
//! names image types, so that a phone offers the camera as well.

use leptos::html::Input;
use leptos::prelude::*;

use crate::ui::browser::file_reader;
use crate::ui::wiring::runtime::Runtime;

/// What the picker offers (the gateway's limits are checked after).
const ACCEPT: &str = "image/*,text/*,application/pdf,.md,.csv,.json,.log";

#[component]
pub fn AttachButton() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let input = NodeRef::<Input>::new();
    let pick = move |_| {
        if let Some(i) = input.get_untracked() {
            i.click();
        }
    };
    let picked = move |_| {
        let Some(i) = input.get_untracked() else {
            return;
        };
        let files = file_reader::files_of(i.files());
        // Picking the same file again is a new attachment.
        i.set_value("");
        rt.attach(files);
    };
    view! {
        <button type="button" class="icon-button attach-button" data-testid="attach"
            aria-label="Attach files" title="Attach files" on:click=pick>"📎"</button>
        <input type="file" multiple hidden accept=ACCEPT data-testid="file-input"
            node_ref=input on:change=picked />
    }
}

//! The files of a message being edited (§13): the edit keeps them unless
//! taken off here, one "Remove" button each. Taking one off puts the
//! focus back in the text, where the edit goes on.

use leptos::html::Textarea;
use leptos::prelude::*;

use crate::files::{safe_name, size_label};
use crate::protocol::FileRef;

#[component]
pub fn EditFiles(
    files: Vec<FileRef>,
    /// The `file_id`s taken off.
    removed: RwSignal<Vec<String>>,
    input: NodeRef<Textarea>,
) -> impl IntoView {
    if files.is_empty() {
        return ().into_any();
    }
    let chips = files
        .into_iter()
        .map(|file| {
            let name = safe_name(&file.name);
            let id = file.file_id.clone();
            let kept = {
                let id = id.clone();
                move || removed.with(|r| !r.contains(&id))
            };
            let take_off = move |_| {
                removed.update(|r| r.push(id.clone()));
                if let Some(el) = input.get_untracked() {
                    let _ = el.focus();
                }
            };
            let icon = if file.mime.starts_with("image/") { "🖼" } else { "📄" };
            view! {
                <Show when=kept.clone()>
                    <li class="attachment" data-testid="edit-file">
                        <span class="attachment-icon" aria-hidden="true">{icon}</span>
                        <div class="attachment-info">
                            <span class="attachment-name" title=name.clone()>{name.clone()}</span>
                            <span class="attachment-size">{size_label(file.size)}</span>
                        </div>
                        <button type="button" class="icon-button" data-testid="edit-remove-file"
                            aria-label=format!("Remove {name}") on:click=take_off.clone()>"×"</button>
                    </li>
                </Show>
            }
        })
        .collect_view();
    view! {
        <ul class="attachments" aria-label="Files kept with the edit">{chips}</ul>
    }
    .into_any()
}

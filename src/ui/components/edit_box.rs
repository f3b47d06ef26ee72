//! A user message edited in place (§12 `message.edit`): its text and
//! files prefilled (a file can be taken off), growing like the message box. Enter or "Save and send"
//! sends the edit as a new branch, Shift+Enter starts a new line, Escape
//! or "Cancel" leaves it; the Enter of an input method never sends. An
//! edit the gateway refused opens again with its text and the reason.

use leptos::html::Textarea;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use crate::protocol::FileRef;
use crate::store::{BranchBlocker, RowKey};
use crate::ui::browser;
use crate::ui::components::edit_files::EditFiles;
use crate::ui::hooks::ime::ImeGuard;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn EditBox(
    row_key: RowKey,
    message_id: String,
    text: String,
    files: Vec<FileRef>,
    /// The `file_id`s already taken off (a refused edit's).
    removed: Vec<String>,
    /// Why the gateway refused this text the last time it was sent.
    refusal: Option<String>,
) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let steering = rt.view.steering;
    let draft = RwSignal::new(text);
    let removed = RwSignal::new(removed);
    let kept_files = {
        let ids: Vec<String> = files.iter().map(|f| f.file_id.clone()).collect();
        Memo::new(move |_| removed.with(|r| ids.iter().any(|id| !r.contains(id))))
    };
    let input = NodeRef::<Textarea>::new();
    let ime = ImeGuard::new();
    let key = StoredValue::new(row_key);
    let message_id = StoredValue::new(message_id);

    // Focus the field with the caret after the text when it opens.
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let end = el.value().encode_utf16().count() as u32;
            let _ = el.set_selection_range(end, end);
            let _ = el.focus();
        }
    });
    let close = move || {
        rt.act(|s| {
            s.forget_refused_edit();
            Vec::new()
        });
        steering.editing.set(None);
        refocus_edit_button(&key.get_value());
    };
    // Nothing left to send: no text and every file taken off.
    let empty = move || draft.with(|t| t.trim().is_empty()) && !kept_files.get();
    let save = move || {
        let text = draft.get_untracked();
        if empty() || steering.blocker.get_untracked().is_some() {
            return;
        }
        let Some(channel) = rt.view.active.get_untracked() else {
            return;
        };
        let id = browser::random_id("e_");
        rt.act(|s| {
            s.forget_refused_edit();
            let removed = removed.get_untracked();
            s.edit_message(&channel, &message_id.get_value(), &text, &removed, id)
        });
        steering.editing.set(None);
        // The edit is sent and its answer comes below: writing goes on in
        // the message box.
        if let Some(el) = browser::composer() {
            let _ = el.focus();
        }
    };
    let on_keydown = move |ev: KeyboardEvent| {
        if ime.owns(&ev) {
            return;
        }
        match ev.key().as_str() {
            "Enter" if !ev.shift_key() => {
                ev.prevent_default();
                save();
            }
            "Escape" => {
                // The global shortcuts must not take it (Stop, search).
                ev.prevent_default();
                close();
            }
            _ => {}
        }
    };
    let has_refusal = refusal.is_some();
    let why = move || steering.blocker.get().map(BranchBlocker::reason);
    view! {
        <form class="edit-box" data-testid="edit-box" aria-label="Edit your message"
            on:submit=move |ev| { ev.prevent_default(); save(); }>
            {refusal.map(|why| view! {
                <p class="edit-refusal" id="edit-refusal" data-testid="edit-refusal">
                    {format!("Not sent: {why}")}
                </p>
            })}
            <textarea node_ref=input rows="1" aria-label="Edited message"
                aria-describedby=has_refusal.then_some("edit-refusal")
                data-testid="edit-input"
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=on_keydown
                on:compositionstart=move |_| ime.start()
                on:compositionend=move |_| ime.end()
                on:blur=move |_| ime.blur()></textarea>
            <EditFiles files removed input />
            <div class="edit-actions">
                <button type="button" class="link-button" data-testid="edit-cancel"
                    on:click=move |_| close()>"Cancel"</button>
                <button type="submit" class="edit-save" data-testid="edit-save"
                    aria-disabled=move || (why().is_some() || empty()).then_some("true")
                    title=why>"Save and send"</button>
            </div>
        </form>
    }
}

/// Gives the focus back to the Edit button of the message left, once the
/// bubble shows it again (the next frame).
fn refocus_edit_button(key: &RowKey) {
    let selector = format!(
        ".row[data-key=\"{}\"] [data-testid=edit-message]",
        key.as_str().replace('\\', "\\\\").replace('"', "\\\"")
    );
    request_animation_frame(move || {
        let el = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(&selector).ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(el) = el {
            let _ = el.focus();
        }
    });
}

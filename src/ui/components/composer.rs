//! The message box: Enter sends (never the Enter of an input method),
//! Shift+Enter starts a new line. Sending works offline too: the message
//! waits with the pending sends. Files come by the paperclip, a paste (a
//! screenshot) or a drop; a message with files is sent once they are
//! uploaded, and the box clears then.

use leptos::prelude::*;
use web_sys::{ClipboardEvent, KeyboardEvent};

use crate::ui::browser::file_reader;
use crate::ui::components::attach_button::AttachButton;
use crate::ui::components::attachment_list::AttachmentList;
use crate::ui::hooks::ime::ImeGuard;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn Composer() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let text = RwSignal::new(String::new());
    let input = NodeRef::<leptos::html::Textarea>::new();

    let clear = move || {
        text.set(String::new());
        if let Some(el) = input.get_untracked() {
            el.set_value("");
            let _ = el.focus();
        }
    };
    let has_files = move || !rt.files.chips.with(Vec::is_empty);
    let submit = move || {
        let t = text.get_untracked();
        if rt.files.waiting.get_untracked()
            || (t.trim().is_empty() && rt.files.chips.with_untracked(Vec::is_empty))
        {
            return;
        }
        if rt.send_draft(&t) {
            clear();
        }
    };
    // A message with files went (once they were stored): clear the box.
    Effect::new(move |seen: Option<u64>| {
        let sent = rt.files.sent.get();
        if seen.is_some_and(|s| s != sent) {
            clear();
        }
        sent
    });
    // A pasted image (a screenshot) is attached; pasted text stays text.
    let on_paste = move |ev: ClipboardEvent| {
        let files = file_reader::transfer_files(ev.clipboard_data());
        if !files.is_empty() {
            ev.prevent_default();
            rt.attach(files);
        }
    };
    let ime = ImeGuard::new();
    let on_keydown = move |ev: KeyboardEvent| {
        // Enter while an IME is composing picks a candidate, not send.
        if ev.key() == "Enter" && !ev.shift_key() && !ime.owns(&ev) {
            ev.prevent_default();
            submit();
        }
    };
    let busy = move || {
        let active = rt.view.active.get();
        active.is_some_and(|id| {
            rt.view
                .channels
                .with(|cs| cs.iter().any(|c| c.id == id && c.busy))
        })
    };
    let stop = move |_| {
        if let Some(id) = rt.view.active.get_untracked() {
            rt.act(|s| s.cancel_turn(&id));
        }
    };
    view! {
        <form class="composer" data-testid="composer" aria-label="Send a message"
            on:submit=move |ev| { ev.prevent_default(); submit(); }>
            <AttachmentList />
            <label class="visually-hidden" for="composer-input">"Message"</label>
            <AttachButton />
            <textarea id="composer-input" node_ref=input rows="1"
                readonly=move || rt.files.waiting.get()
                on:paste=on_paste
                placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=on_keydown
                on:compositionstart=move |_| ime.start()
                on:compositionend=move |_| ime.end()
                on:blur=move |_| ime.blur()></textarea>
            <Show when=busy>
                <button type="button" class="stop-button" data-testid="stop" on:click=stop aria-label="Stop the agent">
                    // Drawn in CSS: a glyph such as ■ that the page's font
                    // lacks sends the browser looking for a font that has
                    // it, milliseconds of layout in the frame a turn starts.
                    <span class="stop-icon" aria-hidden="true"></span>
                </button>
            </Show>
            <button type="submit" class="send-button" data-testid="send" aria-label="Send"
                disabled=move || rt.files.waiting.get() || (text.with(|t| t.trim().is_empty()) && !has_files())>"➤"</button>
        </form>
    }
}

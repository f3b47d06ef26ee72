//! The message box: Enter sends (never the Enter of an input method),
//! Shift+Enter starts a new line. Sending works offline too: the message
//! waits with the pending sends.

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::ui::hooks::ime::ImeGuard;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn Composer() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let text = RwSignal::new(String::new());
    let input = NodeRef::<leptos::html::Textarea>::new();

    let submit = move || {
        let t = text.get_untracked();
        if t.trim().is_empty() {
            return;
        }
        rt.send_message(&t);
        text.set(String::new());
        if let Some(el) = input.get_untracked() {
            el.set_value("");
            let _ = el.focus();
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
            <label class="visually-hidden" for="composer-input">"Message"</label>
            <textarea id="composer-input" node_ref=input rows="1"
                placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=on_keydown
                on:compositionstart=move |_| ime.start()
                on:compositionend=move |_| ime.end()
                on:blur=move |_| ime.blur()></textarea>
            <Show when=busy>
                <button type="button" class="stop-button" data-testid="stop" on:click=stop aria-label="Stop the agent">"■"</button>
            </Show>
            <button type="submit" class="send-button" data-testid="send" aria-label="Send"
                disabled=move || text.with(|t| t.trim().is_empty())>"➤"</button>
        </form>
    }
}

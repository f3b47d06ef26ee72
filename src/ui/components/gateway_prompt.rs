//! The questions asked before connecting: "connect to the gateway this link
//! names?" and "send the token unencrypted?". A modal dialog: the page
//! behind is inert, the focus moves in (to the safe answer) and back
//! afterwards, Escape answers no.

use leptos::html::{Button, Input};
use leptos::prelude::*;

use crate::ui::browser;
use crate::ui::wiring::runtime::{Prompt, Runtime};

#[component]
pub fn GatewayPrompt(prompt: Prompt) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    // The page is inert from the next render on: whatever has the focus
    // now gets it back when the dialog closes.
    let back = StoredValue::new_local(browser::focused());
    let safe = NodeRef::<Button>::new();
    Effect::new(move |_| {
        if let Some(b) = safe.get() {
            let _ = b.focus();
        }
    });
    // Taken now: the dialog (and what it owns) is gone by the next frame,
    // when the page stops being inert and can take the focus. The element
    // may be gone by then (a dialog that led to this one).
    let restore_focus = move || browser::refocus(back.try_get_value().flatten());
    let token = NodeRef::<Input>::new();
    let remember = NodeRef::<Input>::new();

    let (kind, title, before, after, no_label, yes_label) = match &prompt {
        Prompt::Link(_) => (
            "link",
            "Connect to another gateway?",
            "Connect to ",
            "? It is not the gateway this page came from.",
            "No, keep my gateway",
            "Connect",
        ),
        Prompt::Plaintext(_) => (
            "plaintext",
            "Send the token unencrypted?",
            "The connection to ",
            " is not encrypted (ws://, not wss://): anyone on the network between you and it can read the token and your messages.",
            "Don't send it",
            "Send it unencrypted",
        ),
    };
    let url = match &prompt {
        Prompt::Link(g) | Prompt::Plaintext(g) => g.url(),
    };
    // Only a link's gateway can get a token (and be remembered) here.
    let link_fields = matches!(prompt, Prompt::Link(_)).then(|| {
        view! {
            <p class="gateway-prompt-note">
                "A link asked for it. It gets no token saved on this device; enter one only if this is your gateway."
            </p>
            <label>"Token for this gateway (optional)"
                <input type="password" name="link_token" autocomplete="off" node_ref=token />
            </label>
            <label class="check">
                <input type="checkbox" name="remember_gateway" node_ref=remember />
                "Remember this gateway"
            </label>
        }
    });
    let answer = {
        let prompt = prompt.clone();
        move |yes: bool| {
            match prompt.clone() {
                Prompt::Link(gateway) => {
                    let typed = token.get_untracked().map(|i| i.value()).unwrap_or_default();
                    let keep = remember.get_untracked().is_some_and(|i| i.checked());
                    rt.answer_link(gateway, yes, typed.trim(), keep);
                }
                Prompt::Plaintext(gateway) => rt.answer_plaintext(gateway, yes),
            }
            if rt.prompt.get_untracked().is_none() {
                restore_focus();
            }
        }
    };
    let on_key = {
        let answer = answer.clone();
        move |ev: web_sys::KeyboardEvent| {
            if ev.key() == "Escape" {
                ev.prevent_default();
                answer(false);
            }
        }
    };
    let no = answer.clone();
    let yes = answer;

    view! {
        <div class="modal-scrim"></div>
        <div class="gateway-prompt" role="dialog" aria-modal="true" aria-labelledby="gateway-prompt-title"
            aria-describedby="gateway-prompt-desc" data-testid="gateway-prompt" data-kind=kind on:keydown=on_key>
            <h2 id="gateway-prompt-title">{title}</h2>
            <p id="gateway-prompt-desc" data-testid="gateway-prompt-question">
                {before} <code data-testid="gateway-prompt-address">{url}</code> {after}
            </p>
            {link_fields}
            <div class="gateway-prompt-actions">
                <button type="button" data-testid="gateway-decline" node_ref=safe on:click=move |_| no(false)>{no_label}</button>
                <button type="button" class="primary" data-testid="gateway-accept" on:click=move |_| yes(true)>{yes_label}</button>
            </div>
        </div>
    }
}

//! An open approval request: the title, the exact command and why, one
//! button per offered choice, and "Always allow" asked once more. All of
//! it is the gateway's text, shown as text.

use leptos::prelude::*;

use crate::net::Status;
use crate::protocol::Choice;
use crate::render::approval::{button_label, wire_name};
use crate::store::{Approval, ApprovalState};
use crate::ui::wiring::runtime::Runtime;

/// The open request: what waits and the answers.
#[component]
pub fn ApprovalRequest(approval: Memo<Option<Approval>>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let field =
        move |f: fn(&Approval) -> Option<String>| move || approval.with(|a| a.as_ref().and_then(f));
    let title = field(|a| Some(a.title.clone()).filter(|t| !t.trim().is_empty()));
    let command = field(|a| a.command.clone());
    let description = field(|a| a.description.clone());
    let choices =
        move || approval.with(|a| a.as_ref().map(|a| a.choices.clone()).unwrap_or_default());
    let answering = move || {
        approval.with(|a| {
            a.as_ref()
                .is_some_and(|a| a.state == ApprovalState::Pending { answering: true })
        })
    };
    // An answer needs the connection (it is never queued for later).
    let blocked = move || answering() || rt.view.status.with(|s| *s != Status::Connected);
    let confirming = RwSignal::new(false);
    let answer = move |choice: Choice| {
        confirming.set(false);
        let (Some(channel), Some(id)) = (
            rt.view.active.get_untracked(),
            approval.with_untracked(|a| a.as_ref().map(|a| a.request_id.clone())),
        ) else {
            return;
        };
        rt.act(|s| s.respond(&channel, &id, choice));
    };
    view! {
        <div class="approval-title">{move || title().unwrap_or_else(|| "The agent asks for permission".into())}</div>
        {move || command().map(|c| view! { <pre class="approval-command"><code>{c}</code></pre> })}
        {move || description().map(|d| view! { <p class="approval-description">{d}</p> })}
        <Show when=move || !confirming.get() fallback=move || view! {
            <div class="approval-confirm" role="group" aria-label="Confirm always allow">
                <span>"Allow actions like this from now on, without asking?"</span>
                <button type="button" class="approval-button" data-testid="confirm-always"
                    disabled=blocked on:click=move |_| answer(Choice::Always)>"Yes, always allow"</button>
                <button type="button" class="approval-button secondary" data-testid="cancel-always"
                    on:click=move |_| confirming.set(false)>"Cancel"</button>
            </div>
        }>
            <div class="approval-choices">
                {move || choices().into_iter().map(|choice| {
                    let on_click = move |_| {
                        if choice == Choice::Always {
                            confirming.set(true);
                        } else {
                            answer(choice);
                        }
                    };
                    view! {
                        <button type="button" class="approval-button" class:deny={choice == Choice::Deny}
                            data-choice=wire_name(choice) disabled=blocked on:click=on_click>
                            {button_label(choice)}
                        </button>
                    }
                }).collect_view()}
            </div>
        </Show>
        <Show when=answering>
            <div class="approval-sending">"Sending your answer…"</div>
        </Show>
    }
}

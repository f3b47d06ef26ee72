//! An approval request in its turn: what waits (title, the exact command,
//! why), one button per offered choice, "Always allow" asked once more.
//! Once resolved, one line: how, where and when. Everything the gateway
//! sent is shown as text.

use leptos::prelude::*;

use crate::net::Status;
use crate::protocol::Choice;
use crate::store::{Approval, ApprovalState, Row, RowBody};
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn ApprovalCard(row: RwSignal<Row>) -> impl IntoView {
    let approval = Memo::new(move |_| match &row.read().body {
        RowBody::Approval(a) => Some(a.clone()),
        _ => None,
    });
    let state = move || {
        approval.with(|a| match a.as_ref().map(|a| &a.state) {
            Some(ApprovalState::Pending { answering: true }) => "answering",
            Some(ApprovalState::Pending { .. }) | None => "pending",
            Some(ApprovalState::Unanswered) => "unanswered",
            Some(ApprovalState::Resolved { .. }) => "resolved",
        })
    };
    let pending = move || approval.with(|a| a.as_ref().is_some_and(Approval::is_pending));
    let ts = move || row.with(|r| r.ts);
    view! {
        <div class="approval-card" data-testid="approval" data-state=state
            data-request=move || approval.with(|a| a.as_ref().map(|a| a.request_id.clone()))
            role="group" aria-label="Approval request">
            <Show when=pending fallback=move || view! { <Outcome approval ts=Signal::derive(ts) /> }>
                <Request approval />
            </Show>
        </div>
    }
}

/// The open request: what waits and the answers.
#[component]
fn Request(approval: Memo<Option<Approval>>) -> impl IntoView {
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

/// The resolved request, in one line.
#[component]
fn Outcome(approval: Memo<Option<Approval>>, ts: Signal<i64>) -> impl IntoView {
    let outcome = move || {
        approval.with(|a| {
            a.as_ref()
                .map(|a| outcome_text(&a.state))
                .unwrap_or_default()
        })
    };
    let choice = move || {
        approval.with(|a| match a.as_ref().map(|a| &a.state) {
            Some(ApprovalState::Resolved { choice, .. }) => Some(wire_name(*choice)),
            _ => None,
        })
    };
    let what = move || {
        approval.with(|a| {
            a.as_ref()
                .map(|a| match &a.command {
                    Some(c) if !c.trim().is_empty() => c.clone(),
                    _ => a.title.clone(),
                })
                .unwrap_or_default()
        })
    };
    let time = move || clock(ts.get());
    view! {
        <div class="approval-line" data-choice=choice>
            <span class="approval-outcome" data-testid="approval-outcome">{outcome}</span>
            <span class="approval-what">{what}</span>
            <span class="approval-time">{time}</span>
        </div>
    }
}

fn button_label(choice: Choice) -> &'static str {
    match choice {
        Choice::Once => "Allow once",
        Choice::Session => "Allow for this thread",
        Choice::Always => "Always allow",
        _ => "Deny",
    }
}

fn wire_name(choice: Choice) -> &'static str {
    match choice {
        Choice::Once => "once",
        Choice::Session => "session",
        Choice::Always => "always",
        Choice::Deny => "deny",
        Choice::Timeout => "timeout",
        Choice::Cancelled => "cancelled",
        Choice::Other => "other",
    }
}

/// "Allowed once", "Denied", … plus "on another device" when it was.
fn outcome_text(state: &ApprovalState) -> String {
    let ApprovalState::Resolved { choice, elsewhere } = state else {
        return "Not answered".into();
    };
    let label = crate::render::format::choice_label(*choice);
    if *elsewhere {
        format!("{label} on another device")
    } else {
        label.to_string()
    }
}

/// The local time of a timestamp (ms) as `HH:MM`; empty when unknown.
fn clock(ts: i64) -> String {
    if ts <= 0 {
        return String::new();
    }
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ts as f64));
    format!("{:02}:{:02}", d.get_hours(), d.get_minutes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_as_the_choice_and_say_where() {
        let said = |choice, elsewhere| outcome_text(&ApprovalState::Resolved { choice, elsewhere });
        assert_eq!(said(Choice::Once, false), "Allowed once");
        assert_eq!(said(Choice::Session, false), "Allowed for this thread");
        assert_eq!(said(Choice::Always, false), "Always allowed");
        assert_eq!(said(Choice::Deny, true), "Denied on another device");
        assert_eq!(said(Choice::Timeout, false), "Timed out");
        assert_eq!(said(Choice::Cancelled, false), "Cancelled");
        assert_eq!(outcome_text(&ApprovalState::Unanswered), "Not answered");
    }

    #[test]
    fn buttons_say_what_each_choice_does() {
        let labels: Vec<_> = [Choice::Once, Choice::Session, Choice::Always, Choice::Deny]
            .into_iter()
            .map(|c| (wire_name(c), button_label(c)))
            .collect();
        assert_eq!(
            labels,
            [
                ("once", "Allow once"),
                ("session", "Allow for this thread"),
                ("always", "Always allow"),
                ("deny", "Deny")
            ]
        );
    }
}

//! A resolved approval request, in one line: how, where and when.

use leptos::prelude::*;

use crate::render::approval::{outcome_text, wire_name};
use crate::store::{Approval, ApprovalState};

/// The resolved request, in one line.
#[component]
pub fn ApprovalOutcome(approval: Memo<Option<Approval>>, ts: Signal<i64>) -> impl IntoView {
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

/// The local time of a timestamp (ms) as `HH:MM`; empty when unknown.
fn clock(ts: i64) -> String {
    if ts <= 0 {
        return String::new();
    }
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ts as f64));
    format!("{:02}:{:02}", d.get_hours(), d.get_minutes())
}

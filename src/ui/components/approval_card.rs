//! An approval request in its turn: the open request ([`ApprovalRequest`])
//! until it is answered, then its outcome in one line ([`ApprovalOutcome`]).

use leptos::prelude::*;

use crate::store::{Approval, ApprovalState, Row, RowBody};
use crate::ui::components::approval_outcome::ApprovalOutcome;
use crate::ui::components::approval_request::ApprovalRequest;

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
            <Show when=pending fallback=move || view! { <ApprovalOutcome approval ts=Signal::derive(ts) /> }>
                <ApprovalRequest approval />
            </Show>
        </div>
    }
}

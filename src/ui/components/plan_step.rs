//! One step of a plan (§14): its status as a mark with a spoken name, and
//! its text.

use leptos::prelude::*;

use crate::protocol::{PlanItem, PlanStatus};

#[component]
pub fn PlanStep(item: PlanItem) -> impl IntoView {
    let (status, mark, label) = match item.status {
        PlanStatus::Completed => ("completed", "✓", "done"),
        PlanStatus::InProgress => ("in_progress", "▸", "in progress"),
        PlanStatus::Cancelled => ("cancelled", "✗", "cancelled"),
        PlanStatus::Pending | PlanStatus::Unknown => ("pending", "○", "to do"),
    };
    view! {
        <li class="plan-step" data-status=status>
            <span class="plan-mark" role="img" aria-label=label>{mark}</span>
            <span class="plan-text">{item.text}</span>
        </li>
    }
}

//! A plan (§14) in its turn: one checklist with a count ("2/5"), updated
//! in place as the agent sends the list again. Each step is text.

use leptos::prelude::*;

use crate::render::PlanCount;
use crate::store::{Row, RowBody};
use crate::ui::components::plan_step::PlanStep;

#[component]
pub fn PlanCard(row: RwSignal<Row>) -> impl IntoView {
    let items = Memo::new(move |_| match &row.read().body {
        RowBody::Plan(items) => items.clone(),
        _ => Vec::new(),
    });
    let count = move || {
        items.with(|i| {
            let c = PlanCount::of(i);
            format!("{}/{}", c.done, c.total)
        })
    };
    let logged = move || row.with(|r| r.seq.is_some());
    view! {
        <div class="plan-card" data-testid="plan" data-logged=move || logged().to_string()
            role="group" aria-label="Plan">
            <div class="plan-head">
                <span class="plan-title">"Plan"</span>
                <span class="plan-count" data-testid="plan-count">{count}</span>
            </div>
            <ol class="plan-steps">
                {move || items.get().into_iter().map(|item| view! { <PlanStep item /> }).collect_view()}
            </ol>
        </div>
    }
}

//! The calls that run under a call (§14: a delegation's sub-agent's calls),
//! inside its card: folded by default behind a count of the calls inside,
//! with a spinner while any of them runs. Each is a tool card of its own,
//! with its own nested calls.

use leptos::prelude::*;

use crate::store::{Row, RowBody, RowKey, ToolState};
use crate::ui::wiring::runtime::Runtime;

/// `card` draws one nested call: the tool card, which holds this list in
/// turn (passed in, so neither file imports the other).
#[component]
pub fn NestedCalls(parent: RowKey, card: fn(RwSignal<Row>) -> AnyView) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let children = Memo::new(move |_| rt.view.nests.with(|n| n.children(&parent).to_vec()));
    // (calls at any depth, of them running), from the rows' own signals.
    let count = Memo::new(move |_| {
        let mut todo = children.get();
        let (mut calls, mut running) = (0usize, 0usize);
        while let Some(key) = todo.pop() {
            let Some(row) = rt.view.row(&key) else {
                continue;
            };
            calls += 1;
            if row.with(|r| matches!(&r.body, RowBody::Tool(c) if c.state == ToolState::Running)) {
                running += 1;
            }
            todo.extend(rt.view.nests.with(|n| n.children(&key).to_vec()));
        }
        (calls, running)
    });
    let open = RwSignal::new(false);
    let label = move || match count.get().0 {
        1 => "1 call inside".to_string(),
        n => format!("{n} calls inside"),
    };
    let running = move || count.get().1 > 0;
    view! {
        <Show when=move || !children.with(Vec::is_empty)>
            <div class="nested-calls" data-testid="nested-calls" data-running=move || running().to_string()>
                <button type="button" class="nested-toggle" aria-expanded=move || open.get().to_string()
                    on:click=move |_| open.update(|o| *o = !*o)>
                    <span aria-hidden="true">{move || if open.get() { "▾ " } else { "▸ " }}</span>
                    {label}
                    <Show when=running>
                        <span class="nested-spinner" role="img" aria-label="running"></span>
                    </Show>
                </button>
                <Show when=move || open.get()>
                    <div class="nested-list">
                        <For each=move || children.get() key=|k| k.clone() let:key>
                            {rt.view.row(&key).map(card)}
                        </For>
                    </div>
                </Show>
            </div>
        </Show>
    }
}

//! In progress mode, a finished turn's work rows fold behind one
//! "N tool calls" button before its first work row; which turns the
//! reader unfolded is kept for the whole timeline.

use std::collections::HashSet;

use leptos::prelude::*;

use crate::display::expander_shown;
use crate::store::RowKey;
use crate::ui::wiring::runtime::Runtime;

/// Turns whose work rows the reader unfolded (progress mode): one set for
/// the whole timeline, which provides it.
#[derive(Clone, Copy)]
pub struct ExpandedTurns(RwSignal<HashSet<String>>);

impl ExpandedTurns {
    pub fn new() -> Self {
        Self(RwSignal::new(HashSet::new()))
    }

    pub(crate) fn contains(self, turn: &str) -> bool {
        self.0.with(|e| e.contains(turn))
    }

    fn toggle(self, turn: String) {
        self.0.update(|e| {
            if !e.remove(&turn) {
                e.insert(turn);
            }
        });
    }
}

/// In progress mode, "N tool calls" before a finished turn's first work row.
#[derive(Clone, Copy)]
pub(crate) struct Expander {
    rt: Runtime,
    expanded: ExpandedTurns,
    /// The turn and its tool count, when this row is the turn's first work row.
    turn: Memo<Option<(String, usize)>>,
}

impl Expander {
    pub(crate) fn new(rt: Runtime, expanded: ExpandedTurns, key: RowKey) -> Self {
        let turn = Memo::new(move |_| {
            rt.view
                .turn_work
                .with(|w| w.get(&key).map(|tw| (tw.turn.clone(), tw.tools)))
        });
        Self { rt, expanded, turn }
    }

    pub(crate) fn shown(self) -> bool {
        let (mode, detail) = self.rt.settings.with(|s| (s.streaming, s.tool_detail));
        self.turn.with(|t| {
            t.as_ref().is_some_and(|(id, n)| {
                expander_shown(mode, detail, *n, || self.rt.view.is_running(id))
            })
        })
    }

    fn open(self) -> bool {
        self.turn
            .with(|t| t.as_ref().is_some_and(|(id, _)| self.expanded.contains(id)))
    }

    fn toggle(self) {
        if let Some((id, _)) = self.turn.get_untracked() {
            self.expanded.toggle(id);
        }
    }
}

#[component]
pub(crate) fn WorkExpander(e: Expander) -> impl IntoView {
    let label = move || {
        let n = e.turn.with(|t| t.as_ref().map_or(0, |(_, n)| *n));
        if n == 1 {
            "1 tool call".to_string()
        } else {
            format!("{n} tool calls")
        }
    };
    view! {
        <Show when=move || e.shown()>
            <button type="button" class="work-expander" data-testid="tool-calls" aria-expanded=move || e.open().to_string()
                on:click=move |_| e.toggle()>
                <span aria-hidden="true">{move || if e.open() { "▾ " } else { "▸ " }}</span>
                {label}
            </button>
        </Show>
    }
}

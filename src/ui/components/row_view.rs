//! One row of the timeline, drawn by kind; hidden where the display
//! settings say so (streaming off or progress mode, tool detail "Nothing").

use std::collections::HashSet;

use leptos::html::Div;
use leptos::prelude::*;

use crate::display::{expander_shown, row_visible, work_unfolded, RowKind};
use crate::store::{Row, RowBody, RowKey};
use crate::ui::components::answer_bubble::AnswerBubble;
use crate::ui::components::approval_card::ApprovalCard;
use crate::ui::components::branch_nav::BranchNav;
use crate::ui::components::commentary_bubble::CommentaryBubble;
use crate::ui::components::plan_card::PlanCard;
use crate::ui::components::tool_card::ToolCard;
use crate::ui::components::user_bubble::UserBubble;
use crate::ui::wiring::row_mounts::RowMounts;
use crate::ui::wiring::runtime::Runtime;

/// Turns whose work rows the reader unfolded (progress mode): one set for
/// the whole timeline, which provides it.
#[derive(Clone, Copy)]
pub struct ExpandedTurns(RwSignal<HashSet<String>>);

impl ExpandedTurns {
    pub fn new() -> Self {
        Self(RwSignal::new(HashSet::new()))
    }

    fn contains(self, turn: &str) -> bool {
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

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    User,
    Answer,
    Commentary,
    Tool,
    Approval,
    Plan,
}

#[component]
pub fn RowView(row_key: RowKey) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let Some(row) = rt.view.row(&row_key) else {
        return ().into_any();
    };
    let kind = row.with_untracked(|r| match r.body {
        RowBody::User(_) => Kind::User,
        RowBody::Assistant(_) => Kind::Answer,
        RowBody::Commentary(_) => Kind::Commentary,
        RowBody::Tool(_) => Kind::Tool,
        RowBody::Approval(_) => Kind::Approval,
        RowBody::Plan(_) => Kind::Plan,
    });
    let expanded = use_context::<ExpandedTurns>().unwrap_or_else(ExpandedTurns::new);
    let visible = move || visible(rt, expanded, &row.read(), kind);
    let seq = move || row.with(|r| r.seq.map(|s| s.to_string()));
    // The timeline measures mounted rows and anchors scrolling to them.
    let root = NodeRef::<Div>::new();
    if let Some(mounts) = use_context::<RowMounts>() {
        let key = row_key.clone();
        Effect::new(move |_| {
            if let Some(el) = root.get() {
                mounts.mounted(&key, el.into());
            }
        });
        let key = row_key.clone();
        on_cleanup(move || mounts.unmounted(&key));
    }
    let body = match kind {
        Kind::User => view! { <UserBubble row /> }.into_any(),
        Kind::Answer => view! { <AnswerBubble row /> }.into_any(),
        Kind::Commentary => view! { <CommentaryBubble row /> }.into_any(),
        Kind::Tool => view! { <ToolCard row /> }.into_any(),
        Kind::Approval => view! { <ApprovalCard row /> }.into_any(),
        Kind::Plan => view! { <PlanCard row /> }.into_any(),
    };
    // Only a work row can be a turn's first one, where the expander goes:
    // other rows skip its reactive bookkeeping (rows mount while scrolling).
    let expander = matches!(kind, Kind::Tool | Kind::Commentary)
        .then(|| Expander::new(rt, expanded, row_key.clone()));
    // A call that ran under another is drawn inside that call's card.
    let nested = {
        let key = row_key.clone();
        move || kind == Kind::Tool && rt.view.nests.with(|n| n.is_inside(&key))
    };
    // The row stays on screen for its expander while its own body is folded.
    let row_shown = move || !nested() && (visible() || expander.is_some_and(|e| e.shown()));
    view! {
        <div class="row" node_ref=root data-key=row_key.to_string() data-seq=seq class:hidden=move || !row_shown()>
            {expander.map(|e| view! { <WorkExpander e /> })}
            <div class="row-body" class:hidden=move || !visible()>{body}<BranchNav row_key=row_key.clone() /></div>
        </div>
    }
    .into_any()
}

/// Whether a row shows under the current display settings.
fn visible(rt: Runtime, expanded: ExpandedTurns, row: &Row, kind: Kind) -> bool {
    let (mode, detail) = rt.settings.with(|s| (s.streaming, s.tool_detail));
    let kind = match kind {
        Kind::User => RowKind::User,
        Kind::Answer => RowKind::Answer {
            streaming: matches!(&row.body, RowBody::Assistant(a) if a.streaming),
        },
        Kind::Commentary => RowKind::Commentary,
        Kind::Tool => RowKind::Tool,
        Kind::Approval => RowKind::Approval,
        Kind::Plan => RowKind::Plan {
            running: row.turn.as_ref().is_some_and(|t| rt.view.is_running(t)),
        },
    };
    row_visible(kind, mode, detail, || {
        row.turn
            .as_ref()
            .is_some_and(|t| work_unfolded(expanded.contains(t), || rt.view.is_running(t)))
    })
}

/// In progress mode, "N tool calls" before a finished turn's first work row.
#[derive(Clone, Copy)]
struct Expander {
    rt: Runtime,
    expanded: ExpandedTurns,
    /// The turn and its tool count, when this row is the turn's first work row.
    turn: Memo<Option<(String, usize)>>,
}

impl Expander {
    fn new(rt: Runtime, expanded: ExpandedTurns, key: RowKey) -> Self {
        let turn = Memo::new(move |_| {
            rt.view
                .turn_work
                .with(|w| w.get(&key).map(|tw| (tw.turn.clone(), tw.tools)))
        });
        Self { rt, expanded, turn }
    }

    fn shown(self) -> bool {
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
fn WorkExpander(e: Expander) -> impl IntoView {
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

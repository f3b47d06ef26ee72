//! One row of the timeline, drawn by kind; hidden where the display
//! settings say so (streaming off or progress mode, tool detail "Nothing").

use leptos::html::Div;
use leptos::prelude::*;

use crate::display::{row_visible, work_unfolded, RowKind};
use crate::store::{Row, RowBody, RowKey};
use crate::ui::components::answer_bubble::AnswerBubble;
use crate::ui::components::approval_card::ApprovalCard;
use crate::ui::components::branch_nav::BranchNav;
use crate::ui::components::commentary_bubble::CommentaryBubble;
use crate::ui::components::plan_card::PlanCard;
use crate::ui::components::tool_card::ToolCard;
use crate::ui::components::user_bubble::UserBubble;
use crate::ui::components::work_expander::{ExpandedTurns, Expander, WorkExpander};
use crate::ui::wiring::row_mounts::RowMounts;
use crate::ui::wiring::runtime::Runtime;

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

//! The arrows of a "‹ 2/3 ›" navigator (§12): a group named "Answer 2 of
//! 3" with a "Previous answer" and a "Next answer" button, by mouse, touch
//! or keyboard. A switch replaces the rows below the fork: the focus moves
//! to the same button of the node switched to once it shows, so a keyboard
//! walk goes on.

use std::cell::Cell;

use leptos::html::Button;
use leptos::prelude::*;

use crate::store::{BranchBlocker, Navigator, NodeKind};
use crate::ui::wiring::runtime::Runtime;

thread_local! {
    /// The node a navigator button switched to, and the button's step:
    /// its navigator takes the focus when it mounts.
    static WANTED: Cell<Option<(u64, i64)>> = const { Cell::new(None) };
}

#[component]
pub fn BranchArrows(nav: Navigator) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let blocker = rt.view.steering.blocker;
    let why = move || blocker.get().map(BranchBlocker::reason);
    let what = match nav.kind {
        NodeKind::Message => "message",
        NodeKind::Answer => "answer",
    };
    let side = match nav.kind {
        NodeKind::Message => "branch-nav branch-nav-message",
        NodeKind::Answer => "branch-nav branch-nav-answer",
    };
    let seq = nav.seq;
    let own = nav.branch.neighbour(0);
    let branch = StoredValue::new(nav.branch.clone());
    let prev = NodeRef::<Button>::new();
    let next = NodeRef::<Button>::new();
    // This node is the one a button just switched to: take the focus.
    Effect::new(move |_| {
        let wanted = WANTED.with(Cell::get);
        let Some((_, step)) = wanted.filter(|(t, _)| Some(*t) == own) else {
            return;
        };
        let button = if step < 0 { prev.get() } else { next.get() };
        let button = match button {
            Some(b) if !b.disabled() => Some(b),
            _ => prev.get().filter(|b| !b.disabled()).or(next.get()),
        };
        if let Some(b) = button {
            WANTED.with(|w| w.set(None));
            let _ = b.focus();
        }
    });
    let go = move |step: i64| {
        if blocker.get_untracked().is_some() {
            return;
        }
        let Some(channel) = rt.view.active.get_untracked() else {
            return;
        };
        let target = branch.with_value(|b| b.neighbour(step));
        rt.act(|s| s.switch_branch(&channel, seq, step));
        WANTED.with(|w| w.set(target.map(|t| (t, step))));
    };
    let has_prev = nav.has_previous();
    let has_next = nav.has_next();
    view! {
        <div class=side role="group" aria-label=nav.label() data-testid="branch-nav">
            <button type="button" node_ref=prev class="branch-arrow" data-testid="branch-prev"
                aria-label=format!("Previous {what}")
                disabled=!has_prev
                aria-disabled=move || why().is_some().then_some("true")
                title=why
                on:click=move |_| go(-1)>"‹"</button>
            <span class="branch-pos" aria-hidden="true">{nav.position()}</span>
            <button type="button" node_ref=next class="branch-arrow" data-testid="branch-next"
                aria-label=format!("Next {what}")
                disabled=!has_next
                aria-disabled=move || why().is_some().then_some("true")
                title=why
                on:click=move |_| go(1)>"›"</button>
        </div>
    }
}

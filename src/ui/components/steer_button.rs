//! A button that steers the thread (Edit on a user message, Regenerate on
//! an answer). While it cannot work (a turn runs in the thread: §12, the
//! gateway refuses it then; or no connection) it stays in place and in the
//! tab order, marked disabled, with a tooltip that says why. A gateway
//! that cannot branch gets none.

use leptos::prelude::*;

use crate::store::BranchBlocker;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn SteerButton(
    label: &'static str,
    testid: &'static str,
    /// What the button does for the item; only called when it can work.
    on_press: impl Fn() + 'static,
) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let blocker = rt.view.steering.blocker;
    let offered = move || blocker.get() != Some(BranchBlocker::Unsupported);
    let why = move || blocker.get().map(BranchBlocker::reason);
    view! {
        <button type="button" class="link-button steer-button" data-testid=testid
            hidden=move || !offered()
            aria-disabled=move || why().is_some().then_some("true")
            title=why
            on:click=move |_| if blocker.get_untracked().is_none() { on_press() }>
            {label}
        </button>
    }
}

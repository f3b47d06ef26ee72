//! The offer shown when an item on another branch was opened (a search
//! hit, a link): it says so and offers "Show this branch", the only thing
//! that switches the thread to it (§12).

use leptos::prelude::*;

use crate::store::BranchBlocker;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn BranchOfferBar() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let steering = rt.view.steering;
    let switching = move || {
        steering
            .offer
            .with(|o| o.as_ref().is_some_and(|o| o.switching))
    };
    let why = move || steering.blocker.get().map(BranchBlocker::reason);
    let show = move |_| {
        if steering.blocker.get_untracked().is_none() && !switching() {
            rt.act(|s| s.show_offered_branch());
        }
    };
    let dismiss = move |_| {
        rt.update(|s| s.dismiss_branch_offer());
    };
    view! {
        <Show when=move || steering.offer.with(Option::is_some)>
            <div class="branch-offer" role="region" aria-label="Another branch" data-testid="branch-offer">
                <span>"This message is on another branch."</span>
                <button type="button" class="branch-offer-show" data-testid="show-branch"
                    aria-disabled=move || (why().is_some() || switching()).then_some("true")
                    title=why
                    on:click=show>
                    {move || if switching() { "Showing…" } else { "Show this branch" }}
                </button>
                <button type="button" class="link-button" data-testid="branch-offer-dismiss"
                    on:click=dismiss>"Not now"</button>
            </div>
        </Show>
    }
}

//! The "‹ 2/3 ›" navigator of a node that has siblings (§12): on a user
//! message (its edits) or on an agent turn's last answer (its
//! regenerations). Shown while the row's node has siblings; its arrows are
//! [`BranchArrows`].

use leptos::prelude::*;

use crate::store::RowKey;
use crate::ui::components::branch_arrows::BranchArrows;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn BranchNav(row_key: RowKey) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let steering = rt.view.steering;
    let key = StoredValue::new(row_key);
    let nav = Memo::new(move |_| {
        steering
            .navigators
            .with(|n| key.with_value(|k| n.get(k).cloned()))
    });
    move || nav.get().map(|n| view! { <BranchArrows nav=n /> })
}

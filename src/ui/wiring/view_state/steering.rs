//! What the steering controls of the open thread read (§12): each row's
//! "‹ 2/3 ›" navigator, whether edit, regenerate and the arrows work now
//! (no turn runs, the gateway can branch), the offer to show an item on
//! another branch, the user message being edited in place and an edit the
//! gateway refused, reopened with its text.

use std::collections::HashMap;

use leptos::prelude::*;

use super::set_if_changed;
use crate::store::{BranchBlocker, BranchOffer, Navigator, RefusedEdit, RowKey, Store};

#[derive(Clone, Copy)]
pub struct SteeringView {
    pub navigators: RwSignal<HashMap<RowKey, Navigator>>,
    /// Why the controls do not work now (`None`: they do).
    pub blocker: RwSignal<Option<BranchBlocker>>,
    pub offer: RwSignal<Option<BranchOffer>>,
    /// The user message whose edit box is open.
    pub editing: RwSignal<Option<RowKey>>,
    /// A refused edit of the open thread: its box opens again with it.
    pub refused: RwSignal<Option<RefusedEdit>>,
}

impl SteeringView {
    pub fn new() -> SteeringView {
        SteeringView {
            navigators: RwSignal::new(HashMap::new()),
            blocker: RwSignal::new(Some(BranchBlocker::Offline)),
            offer: RwSignal::new(None),
            editing: RwSignal::new(None),
            refused: RwSignal::new(None),
        }
    }

    /// After the open thread changed (`reset`), its rows moved (`order`)
    /// or its state did (`channels`: busy, online, the offer).
    pub(super) fn sync(
        &self,
        store: &Store,
        active: &str,
        reset: bool,
        order: bool,
        channels: bool,
    ) {
        if reset {
            set_if_changed(self.editing, None);
        }
        if order || channels {
            set_if_changed(self.navigators, store.navigators(active));
        }
        if channels || reset {
            set_if_changed(self.blocker, store.branch_blocker(active));
            set_if_changed(self.offer, store.branch_offer().cloned());
            self.reopen_refused(store, active);
        }
        if order {
            // The message being edited left the path (another device's
            // switch): its edit box goes with it.
            let gone = self
                .editing
                .with_untracked(|e| e.as_ref().is_some_and(|k| store.row(active, k).is_none()));
            if gone {
                self.editing.set(None);
            }
        }
    }

    /// Opens the edit box again on the message of a refused edit of the
    /// open thread.
    fn reopen_refused(&self, store: &Store, active: &str) {
        let refused = store.refused_edit().filter(|r| r.channel_id == active);
        let row = refused.and_then(|r| store.user_row(active, &r.message_id));
        let (Some(refused), Some(row)) = (refused, row) else {
            set_if_changed(self.refused, None);
            return;
        };
        if self.refused.with_untracked(|r| r.as_ref() != Some(refused)) {
            self.refused.set(Some(refused.clone()));
            self.editing.set(Some(row.key.clone()));
        }
    }
}

//! The mounted rows of the window, in order, with the fewest DOM operations:
//! a row that stays is never moved.
//!
//! Leptos' `<For>` decides moves index by index and moves every row after
//! one that left when another arrives in the same update, which is what a
//! sliding window does on every step. A moved row is styled and laid out
//! again from scratch: for a long answer that took seconds, for a window of
//! tool cards it was most of each frame.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use leptos::tachys::view::any_view::AnyViewState;
use web_sys::{Element, Node};

use crate::store::RowKey;

/// One mounted row: a `display: contents` box holding the row's view, and
/// the reactive owner of that view (cleaned up when the row leaves).
struct Slot {
    el: Element,
    owner: Owner,
    _view: AnyViewState,
}

pub struct KeyedRows {
    /// Where rows go (`.rows`), before `end` (the bottom spacer).
    parent: Element,
    end: Node,
    /// The owner rows are created under (the timeline's): each row gets a
    /// child of it, so they see the app's context.
    owner: Owner,
    slots: HashMap<RowKey, Slot>,
}

impl KeyedRows {
    pub fn new(parent: Element, end: Node, owner: Owner) -> Self {
        Self {
            parent,
            end,
            owner,
            slots: HashMap::new(),
        }
    }

    /// Makes the rows between the parent's start and `end` be `keys`, in
    /// order: rows no longer wanted are removed, new ones are made by
    /// `view`, and a kept row moves only if the order itself changed.
    pub fn update(&mut self, keys: &[RowKey], view: impl Fn(RowKey) -> AnyView) {
        let wanted: HashSet<&RowKey> = keys.iter().collect();
        self.slots.retain(|key, slot| {
            let keep = wanted.contains(key);
            if !keep {
                slot.owner.cleanup();
                slot.el.remove();
            }
            keep
        });
        // From the last row up: each goes right before the one after it,
        // which is where a kept row already is.
        let mut next = self.end.clone();
        for key in keys.iter().rev() {
            let el = match self.slots.get(key) {
                Some(slot) => slot.el.clone(),
                None => {
                    let Some(slot) = self.make(key, &view) else {
                        continue;
                    };
                    let el = slot.el.clone();
                    self.slots.insert(key.clone(), slot);
                    el
                }
            };
            if el.next_sibling().as_ref() != Some(&next) {
                let _ = self.parent.insert_before(&el, Some(&next));
            }
            next = el.into();
        }
    }

    fn make(&self, key: &RowKey, view: &impl Fn(RowKey) -> AnyView) -> Option<Slot> {
        let el = self.parent.owner_document()?.create_element("div").ok()?;
        el.set_class_name("row-slot");
        let owner = self.owner.child();
        // Building reads signals: they belong to the row's own effects, not
        // to whatever effect called `update`.
        let mut state = owner.with(|| untrack(|| view(key.clone()).build()));
        state.mount(&el, None);
        Some(Slot {
            el,
            owner,
            _view: state,
        })
    }
}

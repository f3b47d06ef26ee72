//! Sub-agents (§14): tool calls that run under another call of their turn
//! (a delegation's sub-agent's calls under the delegation). The timeline
//! keeps, for each call, the calls nested under it (`Timeline::children`
//! and the rest), so the view draws them inside its card rather than as
//! rows of their own.

use std::collections::BTreeMap;

use super::id_map::IdMap;
use super::row::{Row, RowBody};
use super::row_key::RowKey;

/// Each parent call's nested calls, by their index in the turn.
#[derive(Debug, Default, Clone)]
pub struct Nesting {
    children: IdMap<RowKey, BTreeMap<u32, RowKey>>,
}

/// What a card shows of the calls nested under it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NestedCount {
    /// Calls under it, at any depth.
    pub calls: usize,
    /// Of those, the ones still running.
    pub running: usize,
}

/// The key of the call a tool row runs under. A parent starts before its
/// calls, so its index is smaller: any other `parent_index` (the call
/// itself, a later one) is ignored, which also rules out cycles.
pub fn parent_key(row: &Row) -> Option<RowKey> {
    let (RowBody::Tool(call), Some(turn)) = (&row.body, &row.turn) else {
        return None;
    };
    let parent = call.parent.filter(|p| *p < call.index)?;
    Some(RowKey::tool(turn, parent))
}

impl Nesting {
    /// Notes a row that came or changed (idempotent).
    pub fn add(&mut self, row: &Row) {
        if let (Some(parent), RowBody::Tool(call)) = (parent_key(row), &row.body) {
            self.children
                .entry(parent)
                .or_default()
                .insert(call.index, row.key.clone());
        }
    }

    /// Forgets a row that left.
    pub fn remove(&mut self, row: &Row) {
        let (Some(parent), RowBody::Tool(call)) = (parent_key(row), &row.body) else {
            return;
        };
        if let Some(calls) = self.children.get_mut(&parent) {
            calls.remove(&call.index);
            if calls.is_empty() {
                self.children.remove(&parent);
            }
        }
    }

    /// The calls directly under `key`, in the order they started.
    pub fn children(&self, key: &RowKey) -> impl Iterator<Item = &RowKey> {
        self.children.get(key).into_iter().flat_map(|c| c.values())
    }

    /// Every call that has calls under it.
    pub fn parents(&self) -> impl Iterator<Item = &RowKey> {
        self.children.keys()
    }
}

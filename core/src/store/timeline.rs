//! The rows of one channel in display order. Logged rows sort by `seq`; a
//! live row (pending send, streaming bubble, running tool) sorts right after
//! the newest logged row at the moment it arrived, so the thread reads in
//! the order things happened, and moves to its `seq` slot once logged.

use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

use super::id_map::IdMap;

use super::nesting::{parent_key, NestedCount, Nesting};
use super::row::{Row, RowBody, ToolState};
use super::row_key::RowKey;
use super::Change;

/// Where a row sorts: `(seq, 0)` when logged, `(anchor seq, arrival)` live.
type Slot = (u64, u64);

#[derive(Debug, Default, Clone)]
pub struct Timeline {
    rows: IdMap<RowKey, (Row, Slot)>,
    order: BTreeMap<Slot, RowKey>,
    logged: BTreeMap<u64, RowKey>,
    arrivals: u64,
    /// The lowest seq a live row anchors at: the thread's end while its
    /// newest page is not loaded yet (after leaving a window).
    floor: u64,
    /// The calls nested under other calls (§14).
    nesting: Nesting,
}

/// What an insert did, so the caller knows what to re-render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    /// A new row: the order changed.
    Inserted,
    /// An existing row changed in place (and maybe moved to its seq slot).
    Updated { moved: bool },
    /// Nothing new: a duplicate of what is shown.
    Unchanged,
}

impl Upsert {
    /// The change a view must see for `key` in `channel`: the order for a
    /// row that came or moved, the row for one that changed in place.
    pub fn change(self, channel: &str, key: RowKey) -> Option<Change> {
        match self {
            Upsert::Inserted | Upsert::Updated { moved: true } => {
                Some(Change::Order(channel.to_string()))
            }
            Upsert::Updated { moved: false } => Some(Change::Row(channel.to_string(), key)),
            Upsert::Unchanged => None,
        }
    }
}

impl Timeline {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, key: &RowKey) -> Option<&Row> {
        self.rows.get(key).map(|(r, _)| r)
    }

    pub fn get_mut(&mut self, key: &RowKey) -> Option<&mut Row> {
        self.rows.get_mut(key).map(|(r, _)| r)
    }

    pub fn has_seq(&self, seq: u64) -> bool {
        self.logged.contains_key(&seq)
    }

    pub fn oldest_seq(&self) -> Option<u64> {
        self.logged.keys().next().copied()
    }

    pub fn newest_seq(&self) -> Option<u64> {
        self.logged.keys().next_back().copied()
    }

    /// Row keys in display order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &RowKey> + ExactSizeIterator {
        self.order.values()
    }

    pub fn rows(&self) -> impl DoubleEndedIterator<Item = &Row> {
        self.keys().filter_map(|k| self.get(k))
    }

    /// Inserts or merges a row. A logged row whose `seq` is already shown
    /// under another key is a duplicate and is dropped, so pages and live
    /// frames can overlap freely.
    pub fn upsert(&mut self, row: Row) -> Upsert {
        let seq = row.seq;
        if let Some(seq) = seq {
            if self.logged.get(&seq).is_some_and(|k| *k != row.key) {
                return Upsert::Unchanged;
            }
        }
        let key = row.key.clone();
        self.nesting.add(&row);
        let (outcome, slot) = match self.rows.entry(key.clone()) {
            Entry::Occupied(mut entry) => {
                let (old, slot) = entry.get_mut();
                if *old == row {
                    return Upsert::Unchanged;
                }
                let moved = old.seq != seq;
                *old = row;
                if !moved {
                    return Upsert::Updated { moved: false };
                }
                Self::unplace(&mut self.order, &mut self.logged, *slot);
                *slot = Self::next_slot(&self.logged, &mut self.arrivals, self.floor, seq);
                (Upsert::Updated { moved: true }, *slot)
            }
            Entry::Vacant(entry) => {
                let slot = Self::next_slot(&self.logged, &mut self.arrivals, self.floor, seq);
                entry.insert((row, slot));
                (Upsert::Inserted, slot)
            }
        };
        if let Some(s) = seq {
            self.logged.insert(s, key.clone());
        }
        self.order.insert(slot, key);
        outcome
    }

    /// Where a row with `seq` sorts now.
    fn next_slot(
        logged: &BTreeMap<u64, RowKey>,
        arrivals: &mut u64,
        floor: u64,
        seq: Option<u64>,
    ) -> Slot {
        match seq {
            Some(s) => (s, 0),
            None => {
                *arrivals += 1;
                let newest = logged.keys().next_back().copied().unwrap_or(0);
                (newest.max(floor), *arrivals)
            }
        }
    }

    /// Takes a row's slot out of the order (and the seq index if logged).
    /// Borrows the two indexes only, so that `upsert` can call it while it
    /// holds a row of `rows`.
    fn unplace(order: &mut BTreeMap<Slot, RowKey>, logged: &mut BTreeMap<u64, RowKey>, slot: Slot) {
        order.remove(&slot);
        if slot.1 == 0 {
            logged.remove(&slot.0);
        }
    }

    /// Takes out every logged row (a new window replaces them), keeping
    /// live ones; returns them by seq.
    pub fn take_logged(&mut self) -> Vec<Row> {
        let keys: Vec<RowKey> = self.logged.values().cloned().collect();
        keys.iter().filter_map(|k| self.remove(k)).collect()
    }

    /// Live rows (and those to come) sort after `seq` at least, in the
    /// order they arrived: the thread's end, when its newest page is still
    /// to come.
    pub fn anchor_live_at(&mut self, seq: u64) {
        self.floor = seq;
        let live: Vec<(Slot, RowKey)> = self
            .order
            .iter()
            .filter(|(slot, _)| slot.1 != 0)
            .map(|(slot, key)| (*slot, key.clone()))
            .collect();
        for (slot, key) in live {
            self.order.remove(&slot);
            let moved = (slot.0.max(seq), slot.1);
            if let Some((_, s)) = self.rows.get_mut(&key) {
                *s = moved;
            }
            self.order.insert(moved, key);
        }
    }

    /// The key of the first logged row at or after `seq`.
    pub fn key_from(&self, seq: u64) -> Option<&RowKey> {
        self.logged.range(seq..).next().map(|(_, k)| k)
    }

    /// Removes a row wherever it stands.
    pub fn remove(&mut self, key: &RowKey) -> Option<Row> {
        let (row, slot) = self.rows.remove(key)?;
        Self::unplace(&mut self.order, &mut self.logged, slot);
        self.nesting.remove(&row);
        Some(row)
    }
}

/// Calls nested under other calls (§14), read through the index the
/// timeline keeps.
impl Timeline {
    /// The calls directly under the call `key`, in the order they started.
    pub fn children(&self, key: &RowKey) -> Vec<RowKey> {
        self.nesting.children(key).cloned().collect()
    }

    /// The card a row is drawn inside: its parent call, when that call is
    /// in the timeline (otherwise the row stands on its own).
    pub fn nested_in(&self, key: &RowKey) -> Option<RowKey> {
        let parent = parent_key(self.get(key)?)?;
        self.get(&parent).is_some().then_some(parent)
    }

    /// Each call of the timeline that has calls under it, with those
    /// calls (drawn inside its card): empty in a thread without sub-agents.
    pub fn nests(&self) -> Vec<(RowKey, Vec<RowKey>)> {
        self.nesting
            .parents()
            .filter(|p| self.get(p).is_some())
            .map(|p| (p.clone(), self.children(p)))
            .collect()
    }

    /// How many calls run under `key` at any depth, and how many of them
    /// are still running.
    pub fn nested_count(&self, key: &RowKey) -> NestedCount {
        let mut count = NestedCount::default();
        let mut todo: Vec<&RowKey> = self.nesting.children(key).collect();
        while let Some(k) = todo.pop() {
            let Some(row) = self.get(k) else { continue };
            count.calls += 1;
            if matches!(&row.body, RowBody::Tool(c) if c.state == ToolState::Running) {
                count.running += 1;
            }
            todo.extend(self.nesting.children(k));
        }
        count
    }
}

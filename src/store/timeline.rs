//! The rows of one channel in display order. Logged rows sort by `seq`; a
//! live row (pending send, streaming bubble, running tool) sorts right after
//! the newest logged row at the moment it arrived, so the thread reads in
//! the order things happened, and moves to its `seq` slot once logged.

use std::collections::{BTreeMap, HashMap};

use super::row::{Row, RowKey};

/// Where a row sorts: `(seq, 0)` when logged, `(anchor seq, arrival)` live.
type Slot = (u64, u64);

#[derive(Debug, Default, Clone)]
pub struct Timeline {
    rows: HashMap<RowKey, (Row, Slot)>,
    order: BTreeMap<Slot, RowKey>,
    logged: BTreeMap<u64, RowKey>,
    arrivals: u64,
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

impl Timeline {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&Row> {
        self.rows.get(key).map(|(r, _)| r)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Row> {
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
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &RowKey> {
        self.order.values()
    }

    pub fn rows(&self) -> impl DoubleEndedIterator<Item = &Row> {
        self.keys().filter_map(|k| self.get(k))
    }

    /// Inserts or merges a row. A logged row whose `seq` is already shown
    /// under another key is a duplicate and is dropped, so pages and live
    /// frames can overlap freely.
    pub fn upsert(&mut self, row: Row) -> Upsert {
        if let Some(seq) = row.seq {
            if self.logged.get(&seq).is_some_and(|k| *k != row.key) {
                return Upsert::Unchanged;
            }
        }
        let key = row.key.clone();
        let seq = row.seq;
        let outcome = match self.rows.get_mut(&key) {
            Some((old, _)) if *old == row => return Upsert::Unchanged,
            Some((old, slot)) => {
                let moved = old.seq != seq;
                *old = row;
                if !moved {
                    return Upsert::Updated { moved: false };
                }
                let old_slot = *slot;
                self.unplace(old_slot);
                Upsert::Updated { moved: true }
            }
            None => {
                let slot = (0, 0);
                self.rows.insert(key.clone(), (row, slot));
                Upsert::Inserted
            }
        };
        let slot = match seq {
            Some(s) => (s, 0),
            None => {
                self.arrivals += 1;
                (self.newest_seq().unwrap_or(0), self.arrivals)
            }
        };
        if let Some((_, s)) = self.rows.get_mut(&key) {
            *s = slot;
        }
        if let Some(s) = seq {
            self.logged.insert(s, key.clone());
        }
        self.order.insert(slot, key);
        outcome
    }

    fn unplace(&mut self, slot: Slot) {
        self.order.remove(&slot);
        if slot.1 == 0 {
            self.logged.remove(&slot.0);
        }
    }

    /// Removes a row wherever it stands.
    pub fn remove(&mut self, key: &str) -> Option<Row> {
        let (row, slot) = self.rows.remove(key)?;
        self.unplace(slot);
        Some(row)
    }
}

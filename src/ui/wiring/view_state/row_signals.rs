//! One signal per row of the open thread, kept by key: a row that moves
//! (a pending bubble into its new auto-thread, a live row to its `seq`)
//! keeps its signal and so its component. Rows that leave are retired and
//! their signals disposed one sync later, once their components are gone.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;

use crate::store::{Row, RowKey, Timeline};

#[derive(Clone, Copy)]
pub struct RowSignals {
    rows: StoredValue<HashMap<RowKey, RwSignal<Row>>>,
    /// Keys of rows not logged yet (pending, streaming, running): the only
    /// rows the store can move and change with an order change alone.
    live: StoredValue<HashSet<RowKey>>,
    /// Signals of rows that left the thread, disposed at the next sync.
    retired: StoredValue<Vec<RwSignal<Row>>>,
}

impl RowSignals {
    pub fn new() -> Self {
        Self {
            rows: StoredValue::new(HashMap::new()),
            live: StoredValue::new(HashSet::new()),
            retired: StoredValue::new(Vec::new()),
        }
    }

    pub fn get(&self, key: &RowKey) -> Option<RwSignal<Row>> {
        self.rows.with_value(|r| r.get(key).copied())
    }

    /// The store changed this row in place.
    pub fn set(&self, row: &Row) {
        if let Some(sig) = self.get(&row.key) {
            self.track_live(row);
            sig.set(row.clone());
        }
    }

    /// Signals for rows that arrived, retires those of rows that left, and
    /// refreshes live rows (a live row that got logged may have moved).
    pub fn update(&self, timeline: &Timeline, inserted: &[RowKey], gone: &[RowKey]) {
        let staying: HashSet<&RowKey> = inserted.iter().collect();
        let mut retired = Vec::new();
        self.rows.update_value(|signals| {
            for key in gone.iter().filter(|k| !staying.contains(k)) {
                if let Some(sig) = signals.remove(key) {
                    retired.push(sig);
                }
                self.live.update_value(|l| {
                    l.remove(key);
                });
            }
            for key in inserted {
                let Some(row) = timeline.get(key) else {
                    continue;
                };
                self.track_live(row);
                match signals.get(key) {
                    Some(sig) => set_if_changed(*sig, row),
                    None => {
                        signals.insert(key.clone(), RwSignal::new(row.clone()));
                    }
                }
            }
        });
        self.retired.update_value(|r| r.extend(retired));
        let live: Vec<RowKey> = self.live.with_value(|l| l.iter().cloned().collect());
        for key in live {
            if let (Some(sig), Some(row)) = (self.get(&key), timeline.get(&key)) {
                if sig.with_untracked(|r| r != row) {
                    self.track_live(row);
                    sig.set(row.clone());
                }
            }
        }
    }

    fn track_live(&self, row: &Row) {
        self.live.update_value(|l| {
            if row.seq.is_none() {
                l.insert(row.key.clone());
            } else {
                l.remove(&row.key);
            }
        });
    }

    /// Frees the signals retired by the previous sync: the components that
    /// read them were unmounted since.
    pub fn dispose_retired(&self) {
        for sig in self
            .retired
            .try_update_value(std::mem::take)
            .unwrap_or_default()
        {
            sig.dispose();
        }
    }
}

fn set_if_changed(sig: RwSignal<Row>, row: &Row) {
    if sig.with_untracked(|r| r != row) {
        sig.set(row.clone());
    }
}

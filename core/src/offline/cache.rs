//! What to write to the offline copy, and when. The app tells the cache
//! what changed in the store (the same [`Change`]s the view gets); the
//! cache collects the threads to write and, when asked (debounced, off
//! the streaming path), builds their records from the store. A thread
//! whose turn is running waits until the turn ends; a record that would
//! not change is not written again.

use super::item::item_of;
use super::recency::Recency;
use super::record::{index_key, thread_key, Index, Recent, ThreadRecord, MAX_ITEMS};
use crate::protocol::{History, HistoryItem};
use crate::store::{Change, ChannelState, Store};

/// What a kept page holds, to tell whether it changed: its newest seq and
/// its number of items (rows only join a timeline, and keep their seq).
type Mark = (u64, usize);

/// Records to put (key, text) and keys to delete, in one transaction.
#[derive(Debug, Default, PartialEq)]
pub struct Writes {
    pub put: Vec<(String, String)>,
    pub delete: Vec<String>,
}

impl Writes {
    pub fn is_empty(&self) -> bool {
        self.put.is_empty() && self.delete.is_empty()
    }
}

/// What the view shows about the copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OfflineView {
    /// The threads shown came from the copy (the gateway had not answered).
    pub restored: bool,
    pub kept: Summary,
}

/// What Settings says about the copy of the gateway in use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub threads: usize,
    pub bytes: usize,
}

impl Summary {
    /// "2 threads, 14 KB", or that nothing is kept.
    pub fn describe(&self) -> String {
        if self.bytes == 0 {
            return "Nothing is kept.".into();
        }
        let s = if self.threads == 1 { "" } else { "s" };
        format!(
            "{} thread{s}, {} KB",
            self.threads,
            self.bytes.div_ceil(1024)
        )
    }
}

#[derive(Debug, Default)]
pub struct OfflineCache {
    /// The gateway the cache is about (its canonical address).
    gateway: Option<String>,
    /// Its kept index was read (or there was none): writing may start
    /// without losing the threads it lists.
    loaded: bool,
    /// The store holds this gateway's threads (its `ready` came, or its
    /// copy was restored), not still those of a gateway used before.
    ours: bool,
    recency: Recency,
    list_dirty: bool,
    /// Threads to write (a handful: plain vectors, no map code in the wasm).
    dirty: Vec<String>,
    evicted: Vec<String>,
    /// Each kept thread's record: its size in bytes and what it holds.
    kept: Vec<(String, usize, Mark)>,
    last_index: String,
    /// Bytes of the kept index (0: none).
    index_bytes: usize,
}

/// The kept page of a thread: its newest logged rows as history items.
pub fn page_of(c: &ChannelState) -> Option<History> {
    let mut items: Vec<HistoryItem> = c
        .timeline
        .rows()
        .rev()
        .filter_map(item_of)
        .take(MAX_ITEMS + 1)
        .collect();
    if items.is_empty() {
        return None;
    }
    let cut = items.len() > MAX_ITEMS;
    items.truncate(MAX_ITEMS);
    items.reverse();
    Some(History {
        channel_id: c.meta.channel_id.clone(),
        items,
        has_more: cut || c.has_older,
        has_newer: None,
        before: None,
        after: None,
        around: None,
        branch_rev: None,
    })
}

pub fn mark_of(page: &History) -> Mark {
    let newest = page.items.iter().filter_map(HistoryItem::seq).max();
    (newest.unwrap_or(0), page.items.len())
}

impl OfflineCache {
    pub fn gateway(&self) -> Option<&str> {
        self.gateway.as_deref()
    }

    /// The app points at `gateway`. True if it is another gateway than
    /// before: the cache starts over and its index must be read.
    pub fn target(&mut self, gateway: &str) -> bool {
        if self.gateway.as_deref() == Some(gateway) {
            return false;
        }
        *self = OfflineCache {
            gateway: Some(gateway.to_string()),
            ..OfflineCache::default()
        };
        true
    }

    /// The kept index of `gateway` was read: `recent` as kept, the kept
    /// records' sizes and pages (those restored into the store: `ours`).
    pub fn loaded(
        &mut self,
        gateway: &str,
        index: Option<Index>,
        kept: &[(usize, History)],
        ours: bool,
    ) {
        if self.gateway.as_deref() != Some(gateway) || self.loaded {
            return;
        }
        let opened_since: Vec<Recent> = self.recency.entries().to_vec();
        let (recent, index_bytes) = match index {
            Some(i) => {
                let bytes = i.encode().len();
                (i.recent, bytes)
            }
            None => (Vec::new(), 0),
        };
        self.recency = Recency::from_kept(recent);
        // Threads opened while the index was being read stay the newest.
        for r in opened_since.iter().rev() {
            if let Some(gone) = self.recency.opened(&r.channel_id, r.opened_ms) {
                self.evict(gone);
            }
        }
        self.index_bytes = index_bytes;
        for (bytes, page) in kept {
            self.set_kept(&page.channel_id, *bytes, mark_of(page));
        }
        self.loaded = true;
        self.ours |= ours;
    }

    /// The gateway's `ready` arrived: the store's threads are its own.
    pub fn connected(&mut self, gateway: &str) {
        if self.gateway.as_deref() == Some(gateway) {
            self.ours = true;
            self.list_dirty = true;
        }
    }

    /// Notes what changed in the store; `active` is its open thread.
    pub fn note(&mut self, changes: &[Change], active: Option<&str>, now_ms: f64) {
        for change in changes {
            match change {
                Change::Active => {
                    if let Some(id) = active {
                        self.opened(id, now_ms);
                    }
                }
                Change::Channels => self.list_dirty = true,
                Change::Order(id) | Change::Window(id) if self.recency.contains(id) => {
                    self.mark_dirty(id);
                }
                _ => {}
            }
        }
    }

    fn opened(&mut self, id: &str, now_ms: f64) {
        if id.is_empty() {
            return;
        }
        if let Some(gone) = self.recency.opened(id, now_ms) {
            self.evict(gone);
        }
        self.mark_dirty(id);
        self.list_dirty = true;
    }

    fn evict(&mut self, id: String) {
        self.dirty.retain(|d| *d != id);
        self.evicted.push(id);
    }

    fn mark_dirty(&mut self, id: &str) {
        if !self.dirty.iter().any(|d| d == id) {
            self.dirty.push(id.to_string());
        }
    }

    fn set_kept(&mut self, id: &str, bytes: usize, mark: Mark) {
        self.kept.retain(|(k, _, _)| k != id);
        self.kept.push((id.to_string(), bytes, mark));
    }

    /// Whether something waits to be written.
    pub fn pending(&self) -> bool {
        self.list_dirty || !self.dirty.is_empty() || !self.evicted.is_empty()
    }

    /// The records to write now, built from the store. A thread whose turn
    /// is running stays pending.
    pub fn take(&mut self, store: &Store) -> Option<Writes> {
        let gateway = self.gateway.clone()?;
        if !self.loaded || !self.ours {
            return None;
        }
        let gone = self.recency.retain(|id| store.channel(id).is_some());
        self.evicted.extend(gone);
        let mut writes = Writes::default();
        for id in std::mem::take(&mut self.evicted) {
            self.dirty.retain(|d| *d != id);
            let before = self.kept.len();
            self.kept.retain(|(k, _, _)| *k != id);
            if self.kept.len() < before {
                writes.delete.push(thread_key(&gateway, &id));
            }
        }
        let mut waiting = Vec::new();
        for id in std::mem::take(&mut self.dirty) {
            let Some(c) = store.channel(&id) else {
                continue;
            };
            if !self.recency.contains(&id) {
                continue;
            }
            if c.is_busy() {
                waiting.push(id);
                continue;
            }
            let Some(page) = page_of(c) else {
                continue;
            };
            let mark = mark_of(&page);
            if self.kept.iter().any(|(k, _, m)| *k == id && *m == mark) {
                continue;
            }
            let text = ThreadRecord::new(page).encode();
            self.set_kept(&id, text.len(), mark);
            writes.put.push((thread_key(&gateway, &id), text));
        }
        self.dirty = waiting;
        if std::mem::take(&mut self.list_dirty) || !writes.is_empty() {
            self.write_index(store, &gateway, &mut writes);
        }
        (!writes.is_empty()).then_some(writes)
    }

    /// The list is kept with the threads: with none kept, nothing is.
    fn write_index(&mut self, store: &Store, gateway: &str, writes: &mut Writes) {
        if self.recency.entries().is_empty() {
            if std::mem::take(&mut self.index_bytes) > 0 {
                writes.delete.push(index_key(gateway));
            }
            self.last_index.clear();
            return;
        }
        let channels = store
            .channels()
            .filter(|c| !c.is_placeholder())
            .map(|c| c.meta.clone())
            .collect();
        let text = Index::new(channels, self.recency.entries().to_vec()).encode();
        if text == self.last_index {
            return;
        }
        self.index_bytes = text.len();
        writes.put.push((index_key(gateway), text.clone()));
        self.last_index = text;
    }

    /// The user cleared the copy: forgets it all (the threads opened from
    /// now on are kept again). Returns the gateway whose records to delete.
    pub fn clear(&mut self) -> Option<String> {
        let gateway = self.gateway.clone()?;
        self.recency = Recency::default();
        self.dirty.clear();
        self.evicted.clear();
        self.kept.clear();
        self.index_bytes = 0;
        self.last_index.clear();
        self.list_dirty = false;
        Some(gateway)
    }

    pub fn summary(&self) -> Summary {
        Summary {
            threads: self.kept.len(),
            bytes: self.index_bytes + self.kept.iter().map(|(_, b, _)| b).sum::<usize>(),
        }
    }
}

#[cfg(test)]
mod tests;

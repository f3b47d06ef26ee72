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
        // The path it was read on: a device that comes back after a
        // switch then reloads instead of joining two paths (§12).
        branch_rev: c.branches.rev,
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
mod tests {
    use serde_json::json;

    use super::*;
    use crate::offline::record::{MAX_THREADS, VERSION};
    use crate::protocol::ServerFrame;

    const GW: &str = "ws://127.0.0.1:1/ws";

    fn apply(s: &mut Store, v: serde_json::Value) {
        match ServerFrame::decode(&v.to_string()) {
            Ok(f) => {
                s.apply(f, 0.0);
            }
            Err(e) => panic!("{e}"),
        }
    }

    fn channel(id: &str) -> serde_json::Value {
        json!({"channel_id": id, "title": id, "created_at": 1, "updated_at": 1, "last_seq": 0})
    }

    fn items(n: u64) -> Vec<serde_json::Value> {
        (1..=n)
            .map(|s| json!({"type":"message","seq":s,"message_id":format!("m{s}"),"role":"assistant","text":format!("a{s}")}))
            .collect()
    }

    /// A connected store with threads c0..c{n-1}, each of `len` items.
    fn store(n: usize, len: u64) -> Store {
        let mut s = Store::new();
        let list: Vec<_> = (0..n).map(|i| channel(&format!("c{i}"))).collect();
        apply(
            &mut s,
            json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":list}),
        );
        for i in 0..n {
            let id = format!("c{i}");
            s.open(Some(id.clone()));
            apply(
                &mut s,
                json!({"type":"history","channel_id":id,"items":items(len),"has_more":false}),
            );
        }
        s.open(None);
        s.take_changes();
        s
    }

    fn ready_cache() -> OfflineCache {
        let mut cache = OfflineCache::default();
        assert!(cache.target(GW));
        cache.loaded(GW, None, &[], false);
        cache.connected(GW);
        cache
    }

    fn open(cache: &mut OfflineCache, s: &mut Store, id: &str) {
        s.open(Some(id.to_string()));
        cache.note(&s.take_changes(), s.active(), 0.0);
    }

    /// The record written for thread `id`.
    fn kept_text<'a>(w: &'a Writes, id: &str) -> &'a str {
        match w.put.iter().find(|(k, _)| *k == thread_key(GW, id)) {
            Some((_, text)) => text,
            None => panic!("no record written for {id}: {w:?}"),
        }
    }

    fn kept_threads(w: &Writes) -> Vec<String> {
        w.put
            .iter()
            .filter_map(|(k, _)| k.strip_prefix(&format!("{GW}\n")))
            .filter(|id| !id.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_summary_reads_as_a_sentence() {
        assert_eq!(Summary::default().describe(), "Nothing is kept.");
        let one = Summary {
            threads: 1,
            bytes: 1500,
        };
        assert_eq!(one.describe(), "1 thread, 2 KB");
        let two = Summary {
            threads: 2,
            bytes: 2048,
        };
        assert_eq!(two.describe(), "2 threads, 2 KB");
    }

    #[test]
    fn opened_threads_are_written_with_the_list() {
        let mut s = store(2, 3);
        let mut cache = ready_cache();
        open(&mut cache, &mut s, "c1");
        let w = cache.take(&s).unwrap();
        assert_eq!(kept_threads(&w), ["c1"]);
        let text = kept_text(&w, "c1");
        let record = ThreadRecord::decode(text, "c1").unwrap();
        assert_eq!(record.v, VERSION);
        assert_eq!(record.page.items.len(), 3);
        let (_, text) = w.put.iter().find(|(k, _)| *k == index_key(GW)).unwrap();
        let index = Index::decode(text).unwrap();
        assert_eq!(index.channels.len(), 2);
        assert_eq!(index.recent[0].channel_id, "c1");
        assert_eq!(cache.summary().threads, 1);
        assert_eq!(
            cache.summary().bytes,
            w.put.iter().map(|(_, t)| t.len()).sum::<usize>()
        );
        // Nothing changed: nothing to write.
        cache.note(
            &[Change::Order("c1".into()), Change::Channels],
            s.active(),
            0.0,
        );
        assert_eq!(cache.take(&s), None);
    }

    #[test]
    fn the_thread_opened_longest_ago_is_evicted_and_deleted() {
        let n = MAX_THREADS + 1;
        let mut s = store(n, 1);
        let mut cache = ready_cache();
        for i in 0..MAX_THREADS {
            open(&mut cache, &mut s, &format!("c{i}"));
        }
        assert_eq!(kept_threads(&cache.take(&s).unwrap()).len(), MAX_THREADS);
        open(&mut cache, &mut s, &format!("c{MAX_THREADS}"));
        let w = cache.take(&s).unwrap();
        assert_eq!(w.delete, [thread_key(GW, "c0")]);
        assert_eq!(kept_threads(&w), [format!("c{MAX_THREADS}")]);
        assert_eq!(cache.summary().threads, MAX_THREADS);
    }

    #[test]
    fn a_long_thread_keeps_its_newest_items() {
        let mut s = store(1, MAX_ITEMS as u64 + 30);
        let mut cache = ready_cache();
        open(&mut cache, &mut s, "c0");
        let w = cache.take(&s).unwrap();
        let text = kept_text(&w, "c0");
        let page = ThreadRecord::decode(text, "c0").unwrap().page;
        assert_eq!(page.items.len(), MAX_ITEMS);
        assert_eq!(page.items[0].seq(), Some(31));
        assert_eq!(
            page.items.last().and_then(HistoryItem::seq),
            Some(MAX_ITEMS as u64 + 30)
        );
        assert!(page.has_more);
    }

    #[test]
    fn a_running_turn_is_written_when_it_ends() {
        let mut s = store(1, 1);
        let mut cache = ready_cache();
        open(&mut cache, &mut s, "c0");
        cache.take(&s);
        apply(&mut s, json!({"type":"typing","channel_id":"c0","on":true}));
        apply(
            &mut s,
            json!({"type":"message.start","channel_id":"c0","message_id":"m2"}),
        );
        apply(
            &mut s,
            json!({"type":"message.update","channel_id":"c0","message_id":"m2","text":"par"}),
        );
        cache.note(&s.take_changes(), s.active(), 0.0);
        let w = cache.take(&s);
        assert!(
            w.is_none_or(|w| kept_threads(&w).is_empty()),
            "not while streaming"
        );
        assert!(cache.pending());
        apply(
            &mut s,
            json!({"type":"message.stop","channel_id":"c0","message_id":"m2","seq":2,"final_text":"partial answer"}),
        );
        apply(
            &mut s,
            json!({"type":"typing","channel_id":"c0","on":false}),
        );
        cache.note(&s.take_changes(), s.active(), 0.0);
        let w = cache.take(&s).unwrap();
        let text = kept_text(&w, "c0");
        let page = ThreadRecord::decode(text, "c0").unwrap().page;
        assert_eq!(page.items.len(), 2);
        assert!(text.contains("partial answer"));
    }

    #[test]
    fn nothing_is_written_before_the_store_holds_this_gateways_threads() {
        let mut s = store(1, 1);
        let mut cache = OfflineCache::default();
        cache.target("ws://a/ws");
        cache.loaded("ws://a/ws", None, &[], false);
        cache.connected("ws://a/ws");
        open(&mut cache, &mut s, "c0");
        assert!(cache.take(&s).is_some());
        // Pointed at another gateway: the store still shows the first's
        // threads until the second's `ready`.
        assert!(cache.target("ws://b/ws"));
        cache.loaded("ws://b/ws", None, &[], false);
        s.open(None);
        open(&mut cache, &mut s, "c0");
        assert_eq!(cache.take(&s), None);
        cache.connected("ws://a/ws");
        assert_eq!(cache.take(&s), None, "another gateway's ready");
        cache.connected("ws://b/ws");
        let w = cache.take(&s).unwrap();
        assert!(w.put.iter().all(|(k, _)| k.starts_with("ws://b/ws\n")));
    }

    #[test]
    fn the_kept_index_is_read_before_anything_is_written() {
        let mut s = store(3, 1);
        let mut cache = OfflineCache::default();
        cache.target(GW);
        cache.connected(GW);
        open(&mut cache, &mut s, "c2");
        assert_eq!(cache.take(&s), None, "the kept index is not read yet");
        let kept = Index::new(
            Vec::new(),
            vec![
                Recent {
                    channel_id: "c0".into(),
                    opened_ms: 1.0,
                },
                Recent {
                    channel_id: "c1".into(),
                    opened_ms: 0.0,
                },
            ],
        );
        cache.loaded(GW, Some(kept), &[], false);
        cache.take(&s).unwrap();
        let ids: Vec<&str> = cache.recency.ids().collect();
        assert_eq!(ids, ["c2", "c0", "c1"], "opened meanwhile, then as kept");
    }

    #[test]
    fn a_restored_thread_is_not_written_again_unchanged() {
        let mut s = store(1, 4);
        let page = page_of(s.channel("c0").unwrap()).unwrap();
        let mut cache = OfflineCache::default();
        cache.target(GW);
        let index = Index::new(
            Vec::new(),
            vec![Recent {
                channel_id: "c0".into(),
                opened_ms: 0.0,
            }],
        );
        cache.loaded(GW, Some(index), &[(100, page)], true);
        assert_eq!(cache.summary().threads, 1);
        open(&mut cache, &mut s, "c0");
        let w = cache.take(&s).unwrap();
        assert!(kept_threads(&w).is_empty());
    }

    #[test]
    fn clearing_forgets_everything_until_a_thread_is_opened() {
        let mut s = store(2, 2);
        let mut cache = ready_cache();
        open(&mut cache, &mut s, "c0");
        cache.take(&s);
        assert_eq!(cache.clear().as_deref(), Some(GW));
        assert_eq!(cache.summary(), Summary::default());
        cache.note(
            &[Change::Channels, Change::Order("c0".into())],
            s.active(),
            0.0,
        );
        assert_eq!(cache.take(&s), None, "no list without a kept thread");
        open(&mut cache, &mut s, "c1");
        assert_eq!(kept_threads(&cache.take(&s).unwrap()), ["c1"]);
    }

    #[test]
    fn a_deleted_thread_loses_its_record() {
        let mut s = store(2, 1);
        let mut cache = ready_cache();
        open(&mut cache, &mut s, "c0");
        open(&mut cache, &mut s, "c1");
        cache.take(&s);
        apply(&mut s, json!({"type":"channel.deleted","channel_id":"c0"}));
        cache.note(&s.take_changes(), s.active(), 0.0);
        let w = cache.take(&s).unwrap();
        assert_eq!(w.delete, [thread_key(GW, "c0")]);
        assert_eq!(cache.summary().threads, 1);
    }
}

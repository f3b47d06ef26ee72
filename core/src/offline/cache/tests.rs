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

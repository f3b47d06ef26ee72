//! The two-way window: opening a thread at one item, paging both ways,
//! live frames past the window, and gateways that ignore `around`.

use serde_json::json;

use super::tests::{channel, frame, sent};
use super::*;
use crate::protocol::HistoryGet;

/// A store connected to a gateway whose channel c1 has `n` logged items
/// (none loaded yet, not open).
fn store_with(n: u64) -> Store {
    let mut s = Store::new();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", n)]})), 0.0);
    s.take_changes();
    s
}

fn item(seq: u64) -> serde_json::Value {
    json!({"type":"message","seq":seq,"message_id":format!("m{seq}"),"role":"user","text":format!("item {seq}"),"ts":seq})
}

/// What a §6 gateway with items 1..=n answers to `get`.
fn answer(n: u64, get: &HistoryGet) -> serde_json::Value {
    let limit = u64::from(get.limit.unwrap_or(50));
    let all: Vec<u64> = (1..=n).collect();
    let (page, has_more, has_newer): (Vec<u64>, bool, Option<bool>) = if let Some(a) = get.around {
        let older: Vec<u64> = all.iter().copied().filter(|s| *s < a).collect();
        let take_older = (limit / 2).min(older.len() as u64) as usize;
        let mut page: Vec<u64> = older[older.len() - take_older..].to_vec();
        let newer: Vec<u64> = all.iter().copied().filter(|s| *s >= a).collect();
        let room = limit as usize - page.len();
        page.extend(newer.iter().take(room));
        // Fewer newer than room: older ones fill the page.
        while page.len() < limit as usize && page.first().is_some_and(|f| *f > 1) {
            page.insert(0, page[0] - 1);
        }
        let first = page.first().copied().unwrap_or(a);
        let last = page.last().copied().unwrap_or(a);
        (page, first > 1, Some(last < n))
    } else if let Some(b) = get.before {
        let older: Vec<u64> = all.iter().copied().filter(|s| *s < b).collect();
        let page = older[older.len().saturating_sub(limit as usize)..].to_vec();
        let more = page.first().is_some_and(|f| *f > 1);
        (page, more, None)
    } else if let Some(after) = get.after {
        let page: Vec<u64> = all
            .iter()
            .copied()
            .filter(|s| *s > after)
            .take(limit as usize)
            .collect();
        let more = page.last().is_some_and(|l| *l < n);
        (page, more, Some(more))
    } else {
        let page = all[all.len().saturating_sub(limit as usize)..].to_vec();
        (page, n > limit, None)
    };
    let mut v = json!({"type":"history","channel_id":get.channel_id,"items":page.iter().map(|s| item(*s)).collect::<Vec<_>>(),"has_more":has_more});
    if let Some(h) = has_newer {
        v["has_newer"] = json!(h);
    }
    for (name, echo) in [
        ("before", get.before),
        ("after", get.after),
        ("around", get.around),
    ] {
        if let Some(e) = echo {
            v[name] = json!(e);
        }
    }
    v
}

fn history_gets(effects: &[Effect]) -> Vec<HistoryGet> {
    sent(effects)
        .into_iter()
        .filter_map(|f| match f {
            ClientFrame::HistoryGet(g) => Some(g),
            _ => None,
        })
        .collect()
}

/// Answers every `history.get` in `effects` (and those its replies cause).
fn serve(s: &mut Store, n: u64, effects: Vec<Effect>) {
    let mut queue = history_gets(&effects);
    while let Some(get) = queue.pop() {
        let more = s.apply(frame(answer(n, &get)), 0.0);
        queue.extend(history_gets(&more));
    }
}

fn seqs(s: &Store) -> Vec<u64> {
    s.timeline("c1")
        .map(|t| t.rows().filter_map(|r| r.seq).collect())
        .unwrap_or_default()
}

#[test]
fn a_jump_loads_one_page_around_the_item_and_focuses_it() {
    let mut s = store_with(5000);
    let effects = s.open_at("c1".into(), 2500);
    let gets = history_gets(&effects);
    assert_eq!(gets.len(), 1, "one round trip: {gets:?}");
    assert_eq!(gets[0].around, Some(2500));
    assert_eq!((gets[0].before, gets[0].after), (None, None));
    serve(&mut s, 5000, effects);
    assert_eq!(seqs(&s), (2475..2525).collect::<Vec<_>>());
    let c = s.channel("c1").unwrap();
    assert!(c.has_older && c.has_newer && c.loaded);
    assert_eq!(
        s.focus(),
        Some(&Focus {
            channel: "c1".into(),
            key: RowKey::message("m2500"),
            seq: 2500
        })
    );
    assert!(s.take_changes().contains(&Change::Window("c1".into())));
}

#[test]
fn paging_both_ways_shows_every_seq_once_in_order() {
    let n = 1234;
    let mut s = store_with(n);
    let effects = s.open_at("c1".into(), 600);
    serve(&mut s, n, effects);
    // Down to the end, then up to the start.
    loop {
        let effects = s.load_newer("c1");
        if effects.is_empty() {
            break;
        }
        serve(&mut s, n, effects);
    }
    assert!(!s.channel("c1").unwrap().has_newer);
    loop {
        let effects = s.load_older("c1");
        if effects.is_empty() {
            break;
        }
        serve(&mut s, n, effects);
    }
    assert_eq!(seqs(&s), (1..=n).collect::<Vec<_>>());
    // At the end the window is the live thread again: gaps are filled.
    let c = s.channel("c1").unwrap();
    assert_eq!(c.contiguous_seq, n);
    let effects = s.apply(frame(json!({"type":"message","channel_id":"c1","message_id":"late","seq":n + 2,"role":"user","text":"x","ts":1})), 0.0);
    assert_eq!(history_gets(&effects)[0].after, Some(n));
}

#[test]
fn live_frames_past_the_window_wait_and_show_once_at_the_end() {
    let n = 300;
    let mut s = store_with(n);
    let effects = s.open_at("c1".into(), 100);
    serve(&mut s, n, effects);
    s.take_changes();
    // Two new items are logged while the reader is at item 100.
    let live = |s: &mut Store, seq: u64| {
        let mut v = item(seq);
        v["channel_id"] = json!("c1");
        s.apply(frame(v), 0.0)
    };
    let fx = live(&mut s, n + 1);
    assert!(history_gets(&fx).is_empty(), "no gap fill from a window");
    live(&mut s, n + 2);
    assert_eq!(seqs(&s).last(), Some(&124));
    assert_eq!(s.channel("c1").unwrap().ahead.len(), 2);
    assert!(!s
        .take_changes()
        .iter()
        .any(|c| matches!(c, Change::Order(_))));
    // Paging down reaches them; the gateway's pages overlap them too.
    loop {
        let effects = s.load_newer("c1");
        if effects.is_empty() {
            break;
        }
        serve(&mut s, n + 2, effects);
    }
    assert_eq!(seqs(&s), (75..=n + 2).collect::<Vec<_>>());
    assert!(s.channel("c1").unwrap().ahead.is_empty());
}

#[test]
fn a_loaded_item_is_focused_without_a_request() {
    let mut s = store_with(30);
    let effects = s.open(Some("c1".into()));
    serve(&mut s, 30, effects);
    s.take_changes();
    let effects = s.open_at("c1".into(), 7);
    assert!(history_gets(&effects).is_empty());
    assert_eq!(s.focus().map(|f| f.seq), Some(7));
    assert!(s.take_changes().contains(&Change::Focus("c1".into())));
}

#[test]
fn a_gateway_that_ignores_around_gets_the_newest_page_and_a_notice() {
    let mut s = store_with(500);
    s.open_at("c1".into(), 100);
    // The old gateway's reply: the newest page, no `around` echo.
    let newest = (451..=500).map(item).collect::<Vec<_>>();
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","items":newest,"has_more":true})),
        0.0,
    );
    let c = s.channel("c1").unwrap();
    assert!(!c.has_newer && c.has_older && c.loaded);
    assert_eq!(seqs(&s), (451..=500).collect::<Vec<_>>());
    assert!(s
        .notices()
        .any(|n| n.text.contains("cannot open a message in place")));
    // Nothing to focus: the item is not in the page.
    assert_eq!(s.focus(), None);
}

#[test]
fn jump_to_latest_replaces_the_window_and_drops_replies_for_the_old_one() {
    let n = 400;
    let mut s = store_with(n);
    let effects = s.open_at("c1".into(), 50);
    serve(&mut s, n, effects);
    let newer = s.load_newer("c1");
    let latest = s.jump_to_latest("c1");
    assert_eq!(seqs(&s), Vec::<u64>::new());
    let gets = history_gets(&latest);
    assert_eq!(
        (gets.len(), gets[0].before, gets[0].after, gets[0].around),
        (1, None, None, None)
    );
    // The newer page asked for the old window arrives first: dropped.
    serve(&mut s, n, newer);
    assert_eq!(seqs(&s), Vec::<u64>::new());
    serve(&mut s, n, latest);
    assert_eq!(seqs(&s), (351..=n).collect::<Vec<_>>());
    let c = s.channel("c1").unwrap();
    assert!(!c.has_newer && c.has_older);
    assert_eq!(s.focus(), None);
}

#[test]
fn sending_from_a_window_goes_to_the_end_first() {
    let mut s = store_with(400);
    let effects = s.open_at("c1".into(), 50);
    serve(&mut s, 400, effects);
    let effects = s.send("hello", "k1".into(), 1.0);
    let gets = history_gets(&effects);
    assert_eq!(gets.len(), 1);
    assert_eq!(gets[0].around, None);
    assert!(sent(&effects)
        .iter()
        .any(|f| matches!(f, ClientFrame::MessageSend(_))));
    serve(&mut s, 400, effects);
    let rows: Vec<Option<u64>> = s.timeline("c1").unwrap().rows().map(|r| r.seq).collect();
    assert_eq!(rows.last(), Some(&None), "the pending bubble is last");
    assert_eq!(rows.len(), 51);
}

#[test]
fn a_deep_link_before_ready_asks_around_once_connected() {
    let mut s = Store::new();
    assert!(s.open_at("c1".into(), 42).is_empty());
    let effects = s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 100)]})), 0.0);
    let gets = history_gets(&effects);
    assert_eq!(gets.len(), 1, "{gets:?}");
    assert_eq!(gets[0].around, Some(42));
    serve(&mut s, 100, effects);
    assert_eq!(s.focus().map(|f| &f.key), Some(&RowKey::message("m42")));
    assert_eq!(seqs(&s), (17..=66).collect::<Vec<_>>());
}

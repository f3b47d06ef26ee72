//! The incremental sync against the store: after every step, the keys, the
//! row signals and the work counts equal what a full rebuild would give,
//! and the edits describe the change.

use serde_json::{json, Value};

use super::*;
use crate::protocol::ServerFrame;

fn frame(v: Value) -> ServerFrame {
    match ServerFrame::decode(&v.to_string()) {
        Ok(f) => f,
        Err(e) => panic!("test frame does not decode: {e}"),
    }
}

fn item(seq: u64) -> Value {
    // Turns of four items: a question, two tool calls, an answer.
    let turn = format!("t{}", (seq - 1) / 4);
    match (seq - 1) % 4 {
        0 => {
            json!({"type":"message","seq":seq,"message_id":format!("m{seq}"),"role":"user","text":format!("q{seq}"),"ts":seq})
        }
        1 | 2 => {
            json!({"type":"tool","seq":seq,"turn_id":turn,"index":(seq - 1) % 4,"name":"read_file","preview":"p","args":{},"ok":true,"duration":0.1,"output_preview":"o","ts":seq})
        }
        _ => {
            json!({"type":"message","seq":seq,"message_id":format!("m{seq}"),"role":"assistant","text":format!("a{seq}"),"turn_id":turn,"ts":seq})
        }
    }
}

fn page(seqs: std::ops::RangeInclusive<u64>, has_more: bool) -> ServerFrame {
    let items: Vec<Value> = seqs.map(item).collect();
    frame(json!({"type":"history","channel_id":"c1","items":items,"has_more":has_more}))
}

/// A store with channel c1 of `last_seq` logged items, open, nothing loaded.
fn store(last_seq: u64) -> Store {
    let mut s = Store::new();
    let channel = json!({"channel_id":"c1","title":"c1","created_at":1,"updated_at":1,"auto":false,"last_seq":last_seq});
    s.apply(
        frame(
            json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel]}),
        ),
        0.0,
    );
    s.open(Some("c1".into()));
    s
}

fn sync(view: &ViewState, s: &mut Store) -> Vec<OrderEdit> {
    let changes = s.take_changes();
    view.sync(s, changes);
    view.take_order_edits()
}

/// What a full rebuild gives: every key in order, every row, work counts.
fn assert_in_step(view: &ViewState, s: &Store) {
    let timeline = s.timeline("c1").expect("c1");
    let keys: Vec<RowKey> = timeline.keys().cloned().collect();
    assert_eq!(view.order.get_untracked(), keys, "keys");
    for row in timeline.rows() {
        let sig = view.row(&row.key).expect("a signal per row");
        assert_eq!(&sig.get_untracked(), row, "row {}", row.key);
    }
    assert_eq!(
        view.turn_work.get_untracked(),
        WorkCount::of(timeline.rows()),
        "work counts"
    );
}

#[test]
fn pages_and_live_rows_keep_the_view_in_step_with_small_edits() {
    let view = ViewState::new();
    let mut s = store(100);
    assert_eq!(sync(&view, &mut s), vec![OrderEdit::Reset]);

    s.apply(page(51..=100, true), 0.0);
    let edits = sync(&view, &mut s);
    assert_eq!(
        edits,
        vec![OrderEdit::Splice {
            at: 0,
            removed: 0,
            inserted: 50
        }]
    );
    assert_in_step(&view, &s);

    // An older page lands in front, splitting turn t12 across pages.
    s.apply(page(47..=50, true), 0.0);
    let edits = sync(&view, &mut s);
    assert_eq!(
        edits,
        vec![OrderEdit::Splice {
            at: 0,
            removed: 0,
            inserted: 4
        }]
    );
    assert_in_step(&view, &s);

    // A live turn: a running tool appends, then is logged in place.
    for f in [
        json!({"type":"typing","channel_id":"c1","on":true}),
        json!({"type":"tool.start","channel_id":"c1","turn_id":"live","index":1,"name":"terminal","preview":"ls","args":{}}),
    ] {
        s.apply(frame(f), 1.0);
    }
    let edits = sync(&view, &mut s);
    assert_eq!(
        edits,
        vec![OrderEdit::Splice {
            at: 54,
            removed: 0,
            inserted: 1
        }]
    );
    assert_in_step(&view, &s);
    s.apply(
        frame(json!({"type":"tool.end","channel_id":"c1","turn_id":"live","index":1,"seq":101,"name":"terminal","ok":true,"duration":0.2,"output_preview":"2 files"})),
        2.0,
    );
    sync(&view, &mut s);
    assert_in_step(&view, &s);

    // A streamed answer, stopped with its seq.
    for f in [
        json!({"type":"message.start","channel_id":"c1","turn_id":"live","message_id":"ans","role":"assistant","ts":3}),
        json!({"type":"message.update","channel_id":"c1","turn_id":"live","message_id":"ans","text":"Hel"}),
    ] {
        s.apply(frame(f), 3.0);
    }
    sync(&view, &mut s);
    assert_in_step(&view, &s);
    s.apply(
        frame(json!({"type":"message.stop","channel_id":"c1","turn_id":"live","message_id":"ans","seq":102,"final_text":"Hello","ts":4})),
        4.0,
    );
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":false})),
        4.0,
    );
    sync(&view, &mut s);
    assert_in_step(&view, &s);
}

#[test]
fn another_thread_resets_and_retires_the_old_rows() {
    let view = ViewState::new();
    let mut s = store(8);
    sync(&view, &mut s);
    s.apply(page(1..=8, false), 0.0);
    sync(&view, &mut s);
    let old = view.row(&RowKey::message("m1")).expect("row m1");
    s.open(None);
    assert_eq!(sync(&view, &mut s), vec![OrderEdit::Reset]);
    assert!(view.order.get_untracked().is_empty());
    assert!(view.row(&RowKey::message("m1")).is_none());
    // Disposed one sync later, when its component is gone.
    assert!(old.try_get_untracked().is_some());
    sync(&view, &mut s);
    assert!(old.try_get_untracked().is_none());
}

fn diff(old: &[RowKey], timeline: &Timeline) -> (usize, usize, Vec<RowKey>) {
    order_edits::splice(old, || timeline.keys())
}

#[test]
fn diff_finds_the_one_splice() {
    let mut s = store(12);
    s.apply(page(1..=12, false), 0.0);
    let timeline = s.timeline("c1").expect("c1");
    let keys: Vec<RowKey> = timeline.keys().cloned().collect();

    assert_eq!(diff(&keys, timeline), (12, 0, vec![]));
    assert_eq!(diff(&[], timeline), (0, 0, keys.clone()));
    assert_eq!(diff(&keys[..9], timeline), (9, 0, keys[9..].to_vec()));
    assert_eq!(diff(&keys[3..], timeline), (0, 0, keys[..3].to_vec()));
    let mut swapped = keys.clone();
    swapped.swap(4, 6);
    assert_eq!(diff(&swapped, timeline), (4, 3, keys[4..7].to_vec()));
    let extra: Vec<RowKey> = keys
        .iter()
        .cloned()
        .chain([RowKey::message("zz")])
        .collect();
    assert_eq!(diff(&extra, timeline), (12, 1, vec![]));
}

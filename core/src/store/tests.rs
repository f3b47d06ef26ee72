//! Scenario tests of the store: frames in, state and effects out.

use serde_json::json;

use super::*;
use crate::protocol::ServerFrame;

pub(super) fn frame(v: serde_json::Value) -> ServerFrame {
    match ServerFrame::decode(&v.to_string()) {
        Ok(f) => f,
        Err(e) => panic!("test frame does not decode: {e}"),
    }
}

pub(super) fn channel(id: &str, last_seq: u64) -> serde_json::Value {
    json!({"channel_id": id, "title": id, "created_at": 1, "updated_at": 1, "auto": false, "last_seq": last_seq})
}

/// A store connected to a gateway with channel c1 (empty, loaded, open).
pub(super) fn ready_store() -> Store {
    let mut s = Store::new();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 0)]})), 0.0);
    s.open(Some("c1".into()));
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","items":[],"has_more":false})),
        0.0,
    );
    s.take_changes();
    s
}

pub(super) fn texts(s: &Store, ch: &str) -> Vec<String> {
    s.timeline(ch)
        .map(|t| {
            t.rows()
                .map(|r| match &r.body {
                    RowBody::User(u) => format!("user:{}", u.text),
                    RowBody::Assistant(a) => format!("assistant:{}", a.text),
                    RowBody::Commentary(c) => format!("commentary:{c}"),
                    RowBody::Tool(t) => format!("tool:{}:{:?}", t.name, t.state),
                    RowBody::Approval(a) => format!("approval:{}:{:?}", a.request_id, a.state),
                    RowBody::Plan(items) => format!("plan:{}", items.len()),
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn sent(effects: &[Effect]) -> Vec<ClientFrame> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn message(
    ch: &str,
    seq: u64,
    role: &str,
    text: &str,
    cmid: Option<&str>,
) -> serde_json::Value {
    let mut v = json!({"type":"message","channel_id":ch,"message_id":format!("m{seq}"),"seq":seq,"role":role,"text":text,"ts":seq});
    if let Some(c) = cmid {
        v["client_msg_id"] = json!(c);
    }
    v
}

#[test]
fn a_typical_turn_renders_in_order() {
    let mut s = ready_store();
    let effects = s.send("summarize the repo", "k1".into(), 1.0);
    assert!(
        matches!(sent(&effects)[..], [ClientFrame::MessageSend(ref m)] if m.channel_id.as_deref() == Some("c1"))
    );
    assert_eq!(texts(&s, "c1"), vec!["user:summarize the repo"]);
    let frames = [
        message("c1", 1, "user", "summarize the repo", Some("k1")),
        json!({"type":"typing","channel_id":"c1","on":true}),
        json!({"type":"message.start","channel_id":"c1","turn_id":"t1","message_id":"a1","role":"assistant","ts":2}),
        json!({"type":"message.update","channel_id":"c1","turn_id":"t1","message_id":"a1","text":"Let me look…"}),
        json!({"type":"tool.start","channel_id":"c1","turn_id":"t1","index":1,"name":"terminal","preview":"ls -la","args":{"command":"ls -la"}}),
        json!({"type":"tool.end","channel_id":"c1","turn_id":"t1","index":1,"seq":2,"name":"terminal","ok":true,"duration":0.4,"output_preview":"12 files"}),
        json!({"type":"commentary","channel_id":"c1","turn_id":"t1","message_id":"m2","seq":3,"text":"Found 12 files.","ts":3}),
        json!({"type":"message.start","channel_id":"c1","turn_id":"t1","message_id":"m3","role":"assistant","ts":4}),
        json!({"type":"message.update","channel_id":"c1","turn_id":"t1","message_id":"m3","text":"The repo has"}),
        json!({"type":"message.stop","channel_id":"c1","turn_id":"t1","message_id":"m3","seq":4,"final_text":"The repo has 12 files.","reasoning":"r","model":"demo","tokens":42,"ts":5}),
        json!({"type":"typing","channel_id":"c1","on":false}),
    ];
    for f in frames {
        let effects = s.apply(frame(f), 2.0);
        assert!(
            sent(&effects).is_empty(),
            "no gap fill expected: {effects:?}"
        );
    }
    assert_eq!(
        texts(&s, "c1"),
        vec![
            "user:summarize the repo",
            "assistant:Let me look…",
            "tool:terminal:Ok",
            "commentary:Found 12 files.",
            "assistant:The repo has 12 files.",
        ]
    );
    assert!(s.pending_sends().is_empty());
    let c = s.channel("c1").unwrap();
    assert_eq!(c.contiguous_seq, 4);
    assert!(c.turn.is_none() && !c.typing);
    let RowBody::Assistant(a) = &s.row("c1", &RowKey::message("a1")).unwrap().body else {
        panic!()
    };
    assert!(
        a.interim && !a.streaming,
        "unstopped bubble stays as interim"
    );
    let RowBody::Assistant(a) = &s.row("c1", &RowKey::message("m3")).unwrap().body else {
        panic!()
    };
    assert_eq!((a.model.as_deref(), a.tokens), (Some("demo"), Some(42)));
}

#[test]
fn history_pages_and_live_frames_merge_by_seq() {
    let mut s = Store::new();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 60)]})), 0.0);
    let effects = s.open(Some("c1".into()));
    assert!(
        matches!(&sent(&effects)[..], [ClientFrame::HistoryGet(h)] if h.before.is_none() && h.after.is_none())
    );
    // A live frame arrives before the page that also contains it.
    s.apply(frame(message("c1", 60, "assistant", "sixty", None)), 0.0);
    let page: Vec<_> = (11..=60)
        .map(|i| json!({"type":"message","seq":i,"message_id":format!("m{i}"),"role":"assistant","text":format!("n{i}"),"ts":i}))
        .collect();
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","items":page,"has_more":true})),
        0.0,
    );
    let t = s.timeline("c1").unwrap();
    assert_eq!(t.len(), 50);
    assert_eq!((t.oldest_seq(), t.newest_seq()), (Some(11), Some(60)));
    let effects = s.load_older("c1");
    assert!(matches!(&sent(&effects)[..], [ClientFrame::HistoryGet(h)] if h.before == Some(11)));
    assert!(s.load_older("c1").is_empty(), "one page request at a time");
    let older: Vec<_> = (1..=10)
        .map(
            |i| json!({"type":"commentary","seq":i,"message_id":format!("c{i}"),"text":"x","ts":i}),
        )
        .collect();
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","items":older,"has_more":false})),
        0.0,
    );
    let seqs: Vec<_> = s
        .timeline("c1")
        .unwrap()
        .rows()
        .map(|r| r.seq.unwrap())
        .collect();
    assert_eq!(seqs, (1..=60).collect::<Vec<_>>());
    assert!(!s.channel("c1").unwrap().has_older);
    assert!(s.load_older("c1").is_empty());
}

#[test]
fn a_seq_jump_asks_for_the_gap_once() {
    let mut s = ready_store();
    s.apply(frame(message("c1", 1, "user", "a", None)), 0.0);
    let effects = s.apply(frame(message("c1", 4, "assistant", "d", None)), 0.0);
    assert!(matches!(&sent(&effects)[..], [ClientFrame::HistoryGet(h)] if h.after == Some(1)));
    let effects = s.apply(frame(message("c1", 5, "assistant", "e", None)), 0.0);
    assert!(sent(&effects).is_empty(), "gap fill already in flight");
    let gap: Vec<_> = (2..=3)
        .map(|i| json!({"type":"message","seq":i,"message_id":format!("m{i}"),"role":"assistant","text":"g","ts":i}))
        .collect();
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","items":gap,"has_more":false})),
        0.0,
    );
    assert_eq!(s.channel("c1").unwrap().contiguous_seq, 5);
    assert_eq!(s.timeline("c1").unwrap().len(), 5);
}

#[test]
fn a_turn_that_ended_while_away_is_closed_after_the_resume_burst() {
    let mut s = ready_store();
    for f in [
        json!({"type":"typing","channel_id":"c1","on":true}),
        json!({"type":"tool.start","channel_id":"c1","turn_id":"t1","index":1,"name":"a","preview":"","args":{}}),
        json!({"type":"tool.start","channel_id":"c2x","turn_id":"t9","index":1,"name":"ghost","preview":"","args":{}}),
    ] {
        s.apply(frame(f), 0.0);
    }
    s.connection_lost();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 0)]})), 1.0);
    assert!(
        s.channel("c1").unwrap().turn.is_some(),
        "kept until the barrier"
    );
    s.apply(
        frame(json!({"type":"channel.list","channels":[channel("c1", 0)]})),
        1.0,
    );
    assert!(s.channel("c1").unwrap().turn.is_none());
    assert_eq!(texts(&s, "c1"), vec!["tool:a:Unknown"]);
}

#[test]
fn a_turn_still_running_survives_the_reconnect() {
    let mut s = ready_store();
    s.apply(frame(json!({"type":"message.start","channel_id":"c1","turn_id":"t1","message_id":"a","role":"assistant"})), 0.0);
    s.apply(frame(json!({"type":"message.update","channel_id":"c1","turn_id":"t1","message_id":"a","text":"Hello wor"})), 0.0);
    s.connection_lost();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 0)]})), 1.0);
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        1.0,
    );
    s.apply(frame(json!({"type":"message.start","channel_id":"c1","turn_id":"t1","message_id":"a","role":"assistant"})), 1.0);
    assert_eq!(
        texts(&s, "c1"),
        vec!["assistant:Hello wor"],
        "a re-sent start keeps the text"
    );
    s.apply(frame(json!({"type":"message.update","channel_id":"c1","turn_id":"t1","message_id":"a","text":"Hello world"})), 1.0);
    s.apply(
        frame(json!({"type":"channel.list","channels":[channel("c1", 0)]})),
        1.0,
    );
    assert!(s.channel("c1").unwrap().turn.is_some());
    assert_eq!(texts(&s, "c1"), vec!["assistant:Hello world"]);
}

#[test]
fn out_of_order_and_repeated_frames_are_harmless() {
    let mut s = ready_store();
    let frames = [
        // update before start
        json!({"type":"message.update","channel_id":"c1","turn_id":"t1","message_id":"a","text":"early"}),
        json!({"type":"message.start","channel_id":"c1","turn_id":"t1","message_id":"a","role":"assistant"}),
        // end before start: a completed card
        json!({"type":"tool.end","channel_id":"c1","turn_id":"t1","index":2,"seq":1,"name":"grep","ok":false,"duration":1.0,"output_preview":"no"}),
        json!({"type":"tool.start","channel_id":"c1","turn_id":"t1","index":2,"name":"grep","preview":"x","args":{}}),
        json!({"type":"message.stop","channel_id":"c1","turn_id":"t1","message_id":"a","seq":2,"final_text":"final","ts":1}),
        // stop twice, then a late update
        json!({"type":"message.stop","channel_id":"c1","turn_id":"t1","message_id":"a","seq":2,"final_text":"final","ts":1}),
        json!({"type":"message.update","channel_id":"c1","turn_id":"t1","message_id":"a","text":"late"}),
        // unknown channel ids
        json!({"type":"message.update","channel_id":"nope","message_id":"z","text":"x"}),
        json!({"type":"typing","channel_id":"nope","on":true}),
        // seq going backwards: a duplicate of seq 1 under another key
        message("c1", 1, "assistant", "dup", None),
        json!({"type":"typing","channel_id":"c1","on":false}),
    ];
    for f in frames {
        s.apply(frame(f), 0.0);
    }
    assert_eq!(texts(&s, "c1"), vec!["tool:grep:Failed", "assistant:final"]);
}

#[test]
fn tools_without_end_become_unknown_when_the_turn_ends() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        0.0,
    );
    s.apply(frame(json!({"type":"tool.start","channel_id":"c1","index":1,"name":"slow","preview":"","args":{}})), 0.0);
    s.apply(
        frame(
            json!({"type":"tool.progress","channel_id":"c1","index":1,"name":"slow","note":"50%"}),
        ),
        0.0,
    );
    let turn = s.channel("c1").unwrap().turn.clone().unwrap();
    assert_eq!(turn.work_count, 2);
    let key = RowKey::tool(&turn.id, 1);
    let RowBody::Tool(t) = &s.row("c1", &key).unwrap().body else {
        panic!()
    };
    assert_eq!(t.notes, vec!["50%"]);
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":false})),
        0.0,
    );
    assert_eq!(texts(&s, "c1"), vec!["tool:slow:Unknown"]);
}

#[test]
fn unread_counts_and_deleted_threads() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"channel.created","channel":channel("c2", 0),"auto":false})),
        0.0,
    );
    s.apply(frame(message("c2", 1, "assistant", "ping", None)), 0.0);
    assert_eq!(s.channel("c2").unwrap().unread, 1);
    assert_eq!(
        s.channel("c2").unwrap().meta.preview.as_deref(),
        Some("ping")
    );
    s.open(Some("c2".into()));
    assert_eq!(s.channel("c2").unwrap().unread, 0);
    let effects = s.apply(
        frame(json!({"type":"channel.deleted","channel_id":"c2"})),
        0.0,
    );
    assert_eq!(effects, vec![Effect::Navigate(None)]);
    assert!(s.channel("c2").is_none() && s.active().is_none());
}

#[test]
fn a_deep_link_to_an_unknown_thread_falls_back_with_a_notice() {
    let mut s = Store::new();
    s.open(Some("ghost".into()));
    let effects = s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 0)]})), 0.0);
    assert!(effects.contains(&Effect::Navigate(None)));
    assert_eq!(s.notices().count(), 1);
}

#[test]
fn changes_name_only_the_row_that_streamed() {
    let mut s = ready_store();
    s.apply(frame(json!({"type":"message.start","channel_id":"c1","turn_id":"t","message_id":"a","role":"assistant"})), 0.0);
    s.take_changes();
    s.apply(frame(json!({"type":"message.update","channel_id":"c1","turn_id":"t","message_id":"a","text":"more"})), 0.0);
    let changes = s.take_changes();
    assert!(changes.contains(&Change::Row("c1".into(), RowKey::message("a"))));
    assert!(!changes
        .iter()
        .any(|c| matches!(c, Change::Order(_) | Change::Channels)));
}

#[test]
fn previews_are_plain_first_lines() {
    let mut s = ready_store();
    s.apply(
        frame(message(
            "c1",
            1,
            "assistant",
            "```\ncode\n```\n## **Bold** `title`\nmore",
            None,
        )),
        0.0,
    );
    assert_eq!(
        s.channel("c1").unwrap().meta.preview.as_deref(),
        Some("code")
    );
    s.apply(
        frame(message(
            "c1",
            2,
            "assistant",
            "\n\n## **Bold** `title`\nmore",
            None,
        )),
        0.0,
    );
    assert_eq!(
        s.channel("c1").unwrap().meta.preview.as_deref(),
        Some("Bold title")
    );
}

/// "Frames received" in the diagnostics view follows every frame, not only
/// dropped ones; reported once per batch, not once per frame.
#[test]
fn every_applied_frame_reports_the_diagnostics_once_per_batch() {
    let mut s = ready_store();
    for _ in 0..3 {
        s.apply(frame(json!({"type":"pong","t":1})), 0.0);
    }
    let changes = s.take_changes();
    let reported = changes
        .iter()
        .filter(|c| **c == Change::Diagnostics)
        .count();
    assert_eq!(reported, 1, "{changes:?}");
    assert_eq!(s.diagnostics().frames, 5);
    assert!(!s.take_changes().contains(&Change::Diagnostics));
}

/// A gateway's preview takes the shape the client gives its own (one rule,
/// `thread_preview`), so it does not change after a reconnect.
#[test]
fn previews_from_the_gateway_follow_the_same_rule() {
    let mut s = Store::new();
    let mut c = channel("c1", 3);
    c["preview"] = json!("## **Bold** `title`\nmore lines");
    s.apply(
        frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[c]})),
        0.0,
    );
    assert_eq!(
        s.channel("c1").unwrap().meta.preview.as_deref(),
        Some("Bold title")
    );
    let mut created = channel("c2", 0);
    created["preview"] = json!("- item");
    s.apply(
        frame(json!({"type":"channel.created","channel":created,"auto":false})),
        0.0,
    );
    assert_eq!(
        s.channel("c2").unwrap().meta.preview.as_deref(),
        Some("item")
    );
}

//! Files on items (§13): the echo, the agent's answers (live and logged),
//! history, sending with files, editing a message that has files, and the
//! offline copy.

use serde_json::json;

use super::tests::{frame, ready_store, sent};
use super::*;
use crate::protocol::{FileRef, HistoryItem};

fn file_json(id: &str, name: &str, mime: &str) -> serde_json::Value {
    json!({"file_id":id,"name":name,"mime":mime,"size":3,"sha256":"ab".repeat(32),"width":2,"height":1})
}

fn file(id: &str) -> FileRef {
    serde_json::from_value(file_json(id, "a.png", "image/png")).expect("file")
}

fn row_files(s: &Store, key: &RowKey) -> Vec<String> {
    match s.row("c1", key).map(|r| &r.body) {
        Some(RowBody::User(u)) => u.files.iter().map(|f| f.file_id.clone()).collect(),
        Some(RowBody::Assistant(a)) => a.files.iter().map(|f| f.file_id.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn a_message_with_files_sends_their_ids_and_shows_them_until_echoed() {
    let mut s = ready_store();
    let effects = s.send_with_files(
        Some("c1".into()),
        "  ",
        vec![file("f1"), file("f2")],
        "k1".into(),
        1.0,
    );
    let frames = sent(&effects);
    let Some(ClientFrame::MessageSend(m)) = frames.first() else {
        panic!("no send: {frames:?}");
    };
    assert_eq!(
        (m.text.as_str(), m.files.as_slice()),
        ("", ["f1".to_string(), "f2".into()].as_slice())
    );
    assert!(effects.contains(&Effect::PersistPendingSends));
    let key = RowKey::send("k1");
    assert_eq!(row_files(&s, &key), ["f1", "f2"]);
    // The pending send keeps them for a reload and a resend.
    let kept = serde_json::to_string(s.pending_sends()).expect("json");
    let back: Vec<PendingSend> = serde_json::from_str(&kept).expect("back");
    assert_eq!(back[0].files.len(), 2);
    // The echo carries the gateway's references, in the order given.
    s.apply(frame(json!({"type":"message","channel_id":"c1","message_id":"m1","seq":1,"role":"user","text":"",
        "client_msg_id":"k1","ts":1,"files":[file_json("f1","a.png","image/png"), file_json("f2","b.pdf","application/pdf")]})), 2.0);
    assert!(s.pending_sends().is_empty());
    assert_eq!(row_files(&s, &key), ["f1", "f2"]);
}

#[test]
fn nothing_to_send_sends_nothing() {
    let mut s = ready_store();
    assert!(s
        .send_with_files(Some("c1".into()), " ", Vec::new(), "k1".into(), 1.0)
        .is_empty());
    assert!(s.pending_sends().is_empty());
}

#[test]
fn a_resend_after_reconnecting_carries_the_files() {
    let mut s = ready_store();
    s.send_with_files(Some("c1".into()), "x", vec![file("f1")], "k1".into(), 1.0);
    s.connection_lost();
    let effects = s.apply(
        frame(
            json!({"type":"ready","protocol":1,"server":"t","device_id":"d",
        "channels":[super::tests::channel("c1", 0)]}),
        ),
        3.0,
    );
    let resent: Vec<_> = sent(&effects)
        .into_iter()
        .filter_map(|f| match f {
            ClientFrame::MessageSend(m) => Some(m.files),
            _ => None,
        })
        .collect();
    assert_eq!(resent, vec![vec!["f1".to_string()]]);
}

#[test]
fn the_agents_files_show_on_its_answer_live_and_from_history() {
    let mut s = ready_store();
    s.apply(frame(json!({"type":"message.start","channel_id":"c1","turn_id":"t1","message_id":"a1","role":"assistant","ts":1})), 1.0);
    s.apply(frame(json!({"type":"message.stop","channel_id":"c1","turn_id":"t1","message_id":"a1","seq":2,"final_text":"chart",
        "ts":2,"files":[file_json("f9","chart.png","image/png"), {"file_id": 5}]})), 2.0);
    // The reference that does not decode is dropped, the rest kept.
    assert_eq!(row_files(&s, &RowKey::message("a1")), ["f9"]);

    s.apply(frame(json!({"type":"history","channel_id":"c1","items":[
        {"type":"message","seq":3,"message_id":"a2","role":"assistant","text":"","files":[file_json("f10","r.pdf","application/pdf")]}
    ],"has_more":false})), 3.0);
    assert_eq!(row_files(&s, &RowKey::message("a2")), ["f10"]);
}

#[test]
fn an_edit_keeps_the_messages_files() {
    let mut s = ready_store();
    s.apply(frame(json!({"type":"history","channel_id":"c1","items":[
        {"type":"message","seq":1,"message_id":"m1","role":"user","text":"see","turn_id":"t1","files":[file_json("f1","a.png","image/png")]}
    ],"has_more":false,"branch_rev":1})), 1.0);
    let frames = sent(&s.edit_message("c1", "m1", "see this", &[], "e1".into()));
    let Some(ClientFrame::MessageEdit(e)) = frames.first() else {
        panic!("no edit: {frames:?}");
    };
    assert_eq!(e.files, ["f1"]);
    // With files, an empty text is a valid edit.
    assert_eq!(
        sent(&s.edit_message("c1", "m1", "", &[], "e2".into())).len(),
        1
    );
    // A file taken off goes; with no text left nothing is sent.
    let off = ["f1".to_string()];
    let frames = sent(&s.edit_message("c1", "m1", "only text", &off, "e3".into()));
    assert!(matches!(&frames[..], [ClientFrame::MessageEdit(e)] if e.files.is_empty()));
    assert!(s
        .edit_message("c1", "m1", " ", &off, "e4".into())
        .is_empty());
}

#[test]
fn the_offline_copy_keeps_files() {
    let mut s = ready_store();
    s.apply(frame(json!({"type":"message","channel_id":"c1","message_id":"m1","seq":1,"role":"assistant","text":"x",
        "ts":1,"files":[file_json("f1","a.png","image/png")]})), 1.0);
    let row = s.row("c1", &RowKey::message("m1")).expect("row");
    let Some(HistoryItem::Message(item)) = crate::offline::item_of(row) else {
        panic!("not kept");
    };
    assert_eq!(item.files.len(), 1);
    assert_eq!(item.files[0].file_id, "f1");
}

//! `Files`: which frames it keeps, limits from `ready`, resuming on a new
//! connection, and the message sent exactly once when its files are in.

use serde_json::json;

use super::action::FileAction;
use super::router::Files;
use super::upload::UploadState;
use crate::protocol::{ClientFrame, FileRef, ServerFrame};

fn frame(v: serde_json::Value) -> ServerFrame {
    ServerFrame::decode(&v.to_string()).expect("frame")
}

fn ready(limits: bool) -> ServerFrame {
    let mut r = json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[]});
    if limits {
        r["limits"] = json!({"file_max_bytes": 1000, "files_per_message": 2, "file_types": ["image/png","text/plain"]});
    }
    frame(r)
}

fn stored(upload_id: &str, file_id: &str) -> ServerFrame {
    frame(json!({"type":"file.stored","upload_id":upload_id,"file":{
        "file_id":file_id,"name":"a.png","mime":"image/png","size":3,"sha256":"ab".repeat(32)}}))
}

fn connected() -> Files {
    let mut f = Files::default();
    let (actions, back) = f.route(ready(true));
    assert!(actions.is_empty());
    assert!(
        matches!(back, Some(ServerFrame::Ready(_))),
        "the store sees ready too"
    );
    f
}

fn started(f: &mut Files, id: &str) {
    f.add(id.into(), "a.png".into(), "image/png".into(), 3);
    let out = f.hashed(id, "ab".repeat(32));
    assert!(out
        .iter()
        .any(|a| matches!(a, FileAction::Send(ClientFrame::FileBegin(b)) if b.upload_id == id)));
}

fn sent_messages(actions: &[FileAction]) -> Vec<(Option<String>, String, Vec<FileRef>)> {
    actions
        .iter()
        .filter_map(|a| match a {
            FileAction::SendMessage {
                channel,
                text,
                files,
            } => Some((channel.clone(), text.clone(), files.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn limits_come_from_ready_and_go_with_a_gateway_without_files() {
    let mut f = connected();
    assert_eq!(f.limits().map(|l| l.files_per_message), Some(2));
    assert_eq!(f.check(0, "a.png", "image/png", 10), Ok(()));
    assert!(f.check(0, "a.png", "image/png", 1001).is_err());
    assert!(f.check(2, "a.png", "image/png", 1).is_err());
    f.connection_lost();
    f.route(ready(false));
    assert!(f.limits().is_none());
    assert!(f.check(0, "a.png", "image/png", 1).is_err());
}

#[test]
fn frames_not_about_files_go_on_to_the_store() {
    let mut f = connected();
    // An error about an upload or read it does not know, or an approval's.
    for e in [
        json!({"type":"error","code":"not_found","message":"x","upload_id":"other"}),
        json!({"type":"error","code":"not_found","message":"x","request_id":"approval-1"}),
        json!({"type":"typing","channel_id":"c","on":true}),
    ] {
        let (actions, back) = f.route(frame(e));
        assert!(actions.is_empty());
        assert!(back.is_some());
    }
    // A file frame for nothing it knows is dropped quietly.
    let (actions, back) = f.route(stored("nope", "f"));
    assert!(actions.is_empty() && back.is_none());
}

#[test]
fn accept_sends_chunks_and_stored_sends_the_waiting_message_once() {
    let mut f = connected();
    started(&mut f, "u1");
    started(&mut f, "u2");
    let (out, _) = f.route(frame(
        json!({"type":"file.accept","upload_id":"u1","offset":0}),
    ));
    assert!(out.contains(&FileAction::SendChunk {
        upload_id: "u1".into(),
        offset: 0,
        end: 3
    }));
    // Sent while uploading: it waits.
    let out = f.send_when_stored(
        Some("c1".into()),
        "look".into(),
        vec!["u1".into(), "u2".into()],
    );
    assert!(sent_messages(&out.expect("waits")).is_empty());
    assert!(f.is_waiting());
    let (out, _) = f.route(stored("u2", "f2"));
    assert!(out.contains(&FileAction::Ended("u2".into())));
    assert!(sent_messages(&out).is_empty(), "u1 is not stored yet");
    let (out, _) = f.route(stored("u1", "f1"));
    let sent = sent_messages(&out);
    assert_eq!(sent.len(), 1);
    let (channel, text, files) = &sent[0];
    assert_eq!((channel.as_deref(), text.as_str()), (Some("c1"), "look"));
    // In the order attached, not the order stored.
    assert_eq!(
        files.iter().map(|f| f.file_id.as_str()).collect::<Vec<_>>(),
        ["f1", "f2"]
    );
    assert!(!f.is_waiting());
    // A repeated file.stored sends nothing again.
    let (out, _) = f.route(stored("u1", "f1"));
    assert!(sent_messages(&out).is_empty());
    assert!(f.progress("u1").is_none(), "sent uploads leave the draft");
}

#[test]
fn a_failed_file_holds_the_message_and_removing_it_lets_it_go() {
    let mut f = connected();
    started(&mut f, "u1");
    started(&mut f, "u2");
    f.route(stored("u1", "f1"));
    f.send_when_stored(None, String::new(), vec!["u1".into(), "u2".into()])
        .expect("waits");
    let (out, _) = f.route(frame(
        json!({"type":"error","code":"unsupported","message":"no","upload_id":"u2"}),
    ));
    assert!(out.contains(&FileAction::Ended("u2".into())));
    assert!(!f.is_waiting(), "the draft is back for the user");
    assert!(matches!(
        f.progress("u2").map(|p| p.state),
        Some(UploadState::Failed(_))
    ));
    // Sent again with the failed file: held, saying which file.
    let held = f.send_when_stored(None, String::new(), vec!["u1".into(), "u2".into()]);
    assert_eq!(
        held,
        Err("a.png was not uploaded: remove it to send the message.".into())
    );
    assert!(!f.is_waiting());
    assert!(f
        .send_when_stored(None, String::new(), vec!["gone".into()])
        .is_err());
    // The user removes the failed file and sends again.
    f.remove("u2");
    let out = f
        .send_when_stored(None, String::new(), vec!["u1".into()])
        .expect("sent");
    assert_eq!(sent_messages(&out).len(), 1);
}

#[test]
fn removing_the_last_unstored_file_of_a_waiting_message_sends_it() {
    let mut f = connected();
    started(&mut f, "u1");
    started(&mut f, "u2");
    f.route(stored("u1", "f1"));
    f.send_when_stored(None, "hi".into(), vec!["u1".into(), "u2".into()])
        .expect("waits");
    let out = f.remove("u2");
    let sent = sent_messages(&out);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].2.len(), 1);
}

#[test]
fn nothing_to_send_sends_nothing() {
    let mut f = connected();
    assert_eq!(
        f.send_when_stored(None, "  ".into(), Vec::new()),
        Ok(Vec::new())
    );
    assert!(!f.is_waiting());
}

#[test]
fn a_new_connection_begins_every_unfinished_upload_again() {
    let mut f = connected();
    started(&mut f, "u1");
    started(&mut f, "u2");
    f.route(stored("u2", "f2"));
    f.connection_lost();
    // Hashed while offline: begins once connected.
    f.add("u3".into(), "b.png".into(), "image/png".into(), 3);
    assert!(!f
        .hashed("u3", "cd".repeat(32))
        .iter()
        .any(|a| matches!(a, FileAction::Send(_))));
    let (out, _) = f.route(ready(true));
    let begun: Vec<&str> = out
        .iter()
        .filter_map(|a| match a {
            FileAction::Send(ClientFrame::FileBegin(b)) => Some(b.upload_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(begun, ["u1", "u3"]);
}

/// A connection with `u1` (600,000 bytes) accepted at 0 and its first
/// chunks out.
fn sending() -> Files {
    let mut f = connected();
    f.add("u1".into(), "a.png".into(), "image/png".into(), 600_000);
    f.hashed("u1", "ab".repeat(32));
    f.route(frame(
        json!({"type":"file.accept","upload_id":"u1","offset":0}),
    ));
    f
}

/// Wakes the timer in `out` and checks that `u1` goes on from offset 0.
fn wakes_at_zero(f: &mut Files, out: &[FileAction]) {
    let Some(FileAction::Later { wake, .. }) =
        out.iter().find(|a| matches!(a, FileAction::Later { .. }))
    else {
        panic!("no timer: {out:?}");
    };
    let again = f.wake(wake.clone());
    assert!(matches!(
        again.first(),
        Some(FileAction::SendChunk { offset: 0, .. })
    ));
}

#[test]
fn rate_limited_chunks_wait_for_a_wake() {
    let mut f = sending();
    let (out, _) = f.route(frame(
        json!({"type":"error","code":"rate_limited","message":"slow","upload_id":"u1"}),
    ));
    wakes_at_zero(&mut f, &out);
}

#[test]
fn an_unnamed_rate_limit_sends_chunks_again_from_the_acknowledged_offset() {
    let mut f = sending();
    let (out, back) = f.route(frame(
        json!({"type":"error","code":"rate_limited","message":"Too many frames"}),
    ));
    assert!(back.is_some(), "the store still hears of it");
    wakes_at_zero(&mut f, &out);
}

#[test]
fn a_rate_limit_about_something_else_leaves_files_alone() {
    let mut f = sending();
    let (out, back) = f.route(frame(
        json!({"type":"error","code":"rate_limited","message":"slow","client_msg_id":"m1"}),
    ));
    assert!(out.is_empty(), "{out:?}");
    assert!(back.is_some());
}

//! Pending sends: the bubble shown before the echo, its delivery, failure,
//! retry, and the sends a reload restores.

use serde_json::json;

use super::tests::{channel, frame, message, ready_store, sent, texts};
use super::*;

#[test]
fn the_echo_replaces_the_pending_bubble_in_place() {
    let mut s = ready_store();
    s.send("hi", "k1".into(), 1.0);
    let row = s.row("c1", &RowKey::send("k1")).unwrap();
    assert!(matches!(&row.body, RowBody::User(u) if u.send == SendState::Pending));
    s.apply(frame(message("c1", 1, "user", "hi", Some("k1"))), 2.0);
    assert_eq!(s.timeline("c1").unwrap().len(), 1);
    let row = s.row("c1", &RowKey::send("k1")).unwrap();
    assert_eq!(row.seq, Some(1));
    assert!(matches!(&row.body, RowBody::User(u) if u.send == SendState::Delivered));
}

#[test]
fn auto_thread_moves_the_pending_bubble_and_jumps() {
    let mut s = ready_store();
    s.open(None);
    let effects = s.send("plan a trip", "k9".into(), 1.0);
    assert!(
        matches!(&sent(&effects)[..], [ClientFrame::MessageSend(m)] if m.auto_thread == Some(true) && m.channel_id.is_none())
    );
    assert_eq!(texts(&s, NEW_THREAD), vec!["user:plan a trip"]);
    let mut ch = channel("c2", 0);
    ch["auto"] = json!(true);
    let effects = s.apply(
        frame(json!({"type":"channel.created","channel":ch,"auto":true,"client_msg_id":"k9"})),
        2.0,
    );
    assert!(effects.contains(&Effect::Navigate(Some("c2".into()))));
    assert_eq!(s.active(), Some("c2"));
    assert!(texts(&s, NEW_THREAD).is_empty());
    assert_eq!(texts(&s, "c2"), vec!["user:plan a trip"]);
    s.apply(
        frame(message("c2", 1, "user", "plan a trip", Some("k9"))),
        3.0,
    );
    assert_eq!(texts(&s, "c2"), vec!["user:plan a trip"]);
    s.apply(
        frame(
            json!({"type":"channel.renamed","channel_id":"c2","title":"Trip planning","auto":true}),
        ),
        4.0,
    );
    assert_eq!(s.channel("c2").unwrap().meta.title, "Trip planning");
}

#[test]
fn reconnect_resends_pending_sends_and_fills_gaps() {
    let mut s = ready_store();
    s.apply(frame(message("c1", 1, "user", "a", None)), 0.0);
    s.connection_lost();
    let effects = s.send("typed offline", "k2".into(), 1.0);
    assert!(sent(&effects).is_empty(), "nothing sent while offline");
    assert_eq!(s.pending_sends().len(), 1);
    let effects = s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 3)]})), 2.0);
    let frames = sent(&effects);
    assert!(frames
        .iter()
        .any(|f| matches!(f, ClientFrame::HistoryGet(h) if h.after == Some(1))));
    assert!(frames
        .iter()
        .any(|f| matches!(f, ClientFrame::MessageSend(m) if m.client_msg_id == "k2")));
    assert!(frames
        .iter()
        .any(|f| matches!(f, ClientFrame::ChannelList(_))));
}

#[test]
fn a_rejected_send_is_marked_failed_and_can_be_retried() {
    let mut s = ready_store();
    s.send("x".repeat(10).as_str(), "k1".into(), 0.0);
    let effects = s.apply(frame(json!({"type":"error","code":"too_large","message":"Message too long.","client_msg_id":"k1"})), 0.0);
    assert_eq!(effects, vec![Effect::PersistPendingSends]);
    assert!(
        matches!(&s.row("c1", &RowKey::send("k1")).unwrap().body, RowBody::User(u) if u.send == SendState::Failed("Message too long.".into()))
    );
    let effects = s.retry("k1");
    assert!(
        matches!(&sent(&effects)[..], [ClientFrame::MessageSend(m)] if m.client_msg_id == "k1")
    );
    assert!(
        matches!(&s.row("c1", &RowKey::send("k1")).unwrap().body, RowBody::User(u) if u.send == SendState::Pending)
    );
    s.discard("k1");
    assert!(s.pending_sends().is_empty() && texts(&s, "c1").is_empty());
}

#[test]
fn restored_pending_sends_show_bubbles_and_send_on_ready() {
    let mut s = Store::new();
    s.restore_pending_sends(vec![PendingSend {
        client_msg_id: "k7".into(),
        channel_id: None,
        text: "from before the reload".into(),
        created_ms: 1.0,
        failed: None,
        channel_title: None,
        files: Vec::new(),
    }]);
    assert_eq!(texts(&s, NEW_THREAD), vec!["user:from before the reload"]);
    let effects = s.apply(
        frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[]})),
        0.0,
    );
    assert!(sent(&effects).iter().any(|f| matches!(f, ClientFrame::MessageSend(m) if m.client_msg_id == "k7" && m.auto_thread == Some(true))));
}

/// A send kept from before a reload, in a thread: shown (pending) at once,
/// before the gateway lists its threads, and still after `ready`.
#[test]
fn restored_pending_sends_in_a_thread_show_before_and_after_ready() {
    let mut s = Store::new();
    s.restore_pending_sends(vec![
        PendingSend {
            client_msg_id: "k8".into(),
            channel_id: Some("c1".into()),
            text: "typed offline".into(),
            created_ms: 1.0,
            failed: None,
            channel_title: Some("Trip".into()),
            files: Vec::new(),
        },
        PendingSend {
            client_msg_id: "k9".into(),
            channel_id: Some("c1".into()),
            text: "refused before".into(),
            created_ms: 2.0,
            failed: Some("No.".into()),
            channel_title: Some("Trip".into()),
            files: Vec::new(),
        },
    ]);
    s.open(Some("c1".into()));
    assert_eq!(
        texts(&s, "c1"),
        vec!["user:typed offline", "user:refused before"],
        "offline, right after the reload"
    );
    assert_eq!(s.channel("c1").unwrap().meta.title, "Trip");
    let effects = s.apply(
        frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 4)]})),
        0.0,
    );
    assert_eq!(
        texts(&s, "c1"),
        vec!["user:typed offline", "user:refused before"],
        "after ready"
    );
    // Only the pending one is resent; the failed one waits for "Retry".
    let sends: Vec<String> = sent(&effects)
        .into_iter()
        .filter_map(|f| match f {
            ClientFrame::MessageSend(m) => Some(m.client_msg_id),
            _ => None,
        })
        .collect();
    assert_eq!(sends, vec!["k8".to_string()]);
    // The thread is really loaded from the gateway, not taken as empty.
    assert!(sent(&effects)
        .iter()
        .any(|f| matches!(f, ClientFrame::HistoryGet(h) if h.channel_id == "c1")));
    let row = s.row("c1", &RowKey::send("k9")).unwrap();
    assert!(matches!(&row.body, RowBody::User(u) if matches!(u.send, SendState::Failed(_))));
}

/// A kept send whose thread is gone from the gateway is not lost silently:
/// it is marked failed where the user can see it (the new thread pane).
#[test]
fn restored_pending_sends_of_a_deleted_thread_move_to_the_new_thread_pane_as_failed() {
    let mut s = Store::new();
    s.restore_pending_sends(vec![PendingSend {
        client_msg_id: "k10".into(),
        channel_id: Some("gone".into()),
        text: "orphan".into(),
        created_ms: 1.0,
        failed: None,
        channel_title: None,
        files: Vec::new(),
    }]);
    let effects = s.apply(
        frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 0)]})),
        0.0,
    );
    assert!(s.channel("gone").is_none());
    assert!(effects.contains(&Effect::PersistPendingSends));
    assert_eq!(s.pending_sends().len(), 1);
    assert!(s.pending_sends()[0].failed.is_some());
    assert_eq!(texts(&s, NEW_THREAD), vec!["user:orphan"]);
    assert!(!sent(&effects)
        .iter()
        .any(|f| matches!(f, ClientFrame::MessageSend(_))));
}

/// The echo of a send whose `seq` is already shown by another row (a
/// gateway that reuses seqs): the bubble must not stay "sending" forever
/// once the pending sends have let go of it.
#[test]
fn an_echo_with_a_taken_seq_still_delivers_the_bubble() {
    let mut s = ready_store();
    s.apply(
        frame(message("c1", 1, "assistant", "already here", None)),
        0.0,
    );
    s.send("mine", "k1".into(), 1.0);
    s.apply(frame(message("c1", 1, "user", "mine", Some("k1"))), 0.0);
    assert!(s.pending_sends().is_empty());
    let row = s
        .row("c1", &RowKey::send("k1"))
        .expect("the bubble stays shown");
    assert!(
        matches!(&row.body, RowBody::User(u) if u.send == SendState::Delivered),
        "{row:?}"
    );
    assert_eq!(texts(&s, "c1"), vec!["assistant:already here", "user:mine"]);
}

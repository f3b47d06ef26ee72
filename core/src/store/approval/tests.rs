//! Approval scenarios: requests, answers, resolutions live and from
//! history, errors, turn ends and reconnects.

use serde_json::json;

use super::super::tests::{frame, ready_store, sent, texts};
use super::super::*;
use crate::protocol::{Choice, ClientFrame};

fn request(id: &str, choices: serde_json::Value) -> serde_json::Value {
    json!({"type":"approval.request","channel_id":"c1","turn_id":"t1","request_id":id,
        "title":"Run a shell command?","command":"rm -rf build","description":"recursive delete",
        "choices":choices,"ts":5})
}

fn resolved(id: &str, seq: u64, choice: &str, device: Option<&str>) -> serde_json::Value {
    let mut f = json!({"type":"approval.resolved","channel_id":"c1","turn_id":"t1","request_id":id,
        "seq":seq,"choice":choice,"title":"Run a shell command?","command":"rm -rf build","ts":9});
    if let Some(d) = device {
        f["device_id"] = json!(d);
    }
    f
}

fn approval<'a>(s: &'a Store, id: &str) -> &'a Approval {
    match s.row("c1", &RowKey::approval(id)).map(|r| &r.body) {
        Some(RowBody::Approval(a)) => a,
        other => panic!("no approval row {id}: {other:?}"),
    }
}

const OPEN: ApprovalState = ApprovalState::Pending { answering: false };
const ANSWERING: ApprovalState = ApprovalState::Pending { answering: true };

fn waiting(s: &Store) -> usize {
    s.channel("c1").map_or(0, |c| c.waiting.len())
}

fn alerts(effects: &[Effect]) -> Vec<Alert> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Alert(a) => Some(a.clone()),
            _ => None,
        })
        .collect()
}

/// A running turn in c1: the user's message (seq 1) and a tool call that waits.
fn turn_waiting(choices: serde_json::Value) -> (Store, Vec<Effect>) {
    let mut s = ready_store();
    for f in [
        json!({"type":"message","channel_id":"c1","message_id":"u1","seq":1,"role":"user","text":"clean up","ts":1}),
        json!({"type":"typing","channel_id":"c1","on":true}),
        json!({"type":"tool.start","channel_id":"c1","turn_id":"t1","index":1,"name":"terminal","preview":"rm -rf build","args":{"command":"rm -rf build"}}),
    ] {
        s.apply(frame(f), 1.0);
    }
    let effects = s.apply(frame(request("r1", choices)), 2.0);
    (s, effects)
}

fn all() -> serde_json::Value {
    json!(["once", "session", "always", "deny"])
}

#[test]
fn a_request_waits_in_its_turn_with_the_known_choices_in_order() {
    let (s, effects) = turn_waiting(json!(["deny", "sudo", "once", "timeout", "once", "always"]));
    let a = approval(&s, "r1");
    assert_eq!(a.choices, vec![Choice::Deny, Choice::Once, Choice::Always]);
    assert_eq!(a.state, OPEN);
    assert_eq!(
        (
            a.title.as_str(),
            a.command.as_deref(),
            a.description.as_deref()
        ),
        (
            "Run a shell command?",
            Some("rm -rf build"),
            Some("recursive delete")
        )
    );
    assert_eq!(
        texts(&s, "c1"),
        vec![
            "user:clean up",
            "tool:terminal:Running",
            "approval:r1:Pending { answering: false }"
        ]
    );
    let row = s.row("c1", &RowKey::approval("r1")).unwrap();
    assert_eq!((row.seq, row.turn.as_deref()), (None, Some("t1")));
    assert_eq!(waiting(&s), 1);
    assert!(
        sent(&effects).is_empty(),
        "the store never answers by itself"
    );
    assert_eq!(
        alerts(&effects),
        vec![Alert::Approval {
            channel: "c1".into(),
            title: "Run a shell command?".into()
        }]
    );
}

#[test]
fn a_re_sent_request_changes_nothing_and_alerts_once() {
    let (mut s, _) = turn_waiting(all());
    s.respond("c1", "r1", Choice::Once);
    s.take_changes();
    let effects = s.apply(frame(request("r1", all())), 3.0);
    assert!(alerts(&effects).is_empty());
    assert_eq!(s.timeline("c1").unwrap().len(), 3);
    assert_eq!(waiting(&s), 1);
    assert_eq!(
        approval(&s, "r1").state,
        ANSWERING,
        "a re-send keeps this device's answer in flight"
    );
}

#[test]
fn an_answer_is_sent_once_and_only_for_an_offered_choice() {
    let (mut s, _) = turn_waiting(json!(["once", "deny"]));
    assert!(
        s.respond("c1", "r1", Choice::Always).is_empty(),
        "not offered"
    );
    assert!(s.respond("c1", "r1", Choice::Other).is_empty());
    assert!(
        s.respond("c1", "nope", Choice::Once).is_empty(),
        "unknown request"
    );
    assert!(
        s.respond("c2", "r1", Choice::Once).is_empty(),
        "other thread"
    );
    let first = s.respond("c1", "r1", Choice::Deny);
    assert_eq!(
        sent(&first),
        vec![ClientFrame::ApprovalRespond(
            crate::protocol::ApprovalRespond {
                channel_id: "c1".into(),
                request_id: "r1".into(),
                choice: Choice::Deny,
            }
        )]
    );
    assert_eq!(approval(&s, "r1").state, ANSWERING);
    assert!(s
        .take_changes()
        .contains(&Change::Row("c1".into(), RowKey::approval("r1"))));
    // A double click, or another choice after the first.
    assert!(s.respond("c1", "r1", Choice::Deny).is_empty());
    assert!(s.respond("c1", "r1", Choice::Once).is_empty());
}

#[test]
fn nothing_is_sent_while_offline() {
    let (mut s, _) = turn_waiting(all());
    s.connection_lost();
    assert!(s.respond("c1", "r1", Choice::Once).is_empty());
    assert_eq!(approval(&s, "r1").state, OPEN);
}

#[test]
fn a_resolution_moves_the_request_to_its_seq_and_shows_it_once() {
    let (mut s, _) = turn_waiting(all());
    s.respond("c1", "r1", Choice::Session);
    // Something else got logged while the request waited.
    s.apply(
        frame(json!({"type":"commentary","channel_id":"c1","turn_id":"t1","message_id":"m2","seq":2,"text":"Waiting.","ts":3})),
        3.0,
    );
    assert_eq!(
        texts(&s, "c1")[2..],
        [
            "approval:r1:Pending { answering: true }".to_string(),
            "commentary:Waiting.".to_string()
        ]
    );
    let effects = s.apply(frame(resolved("r1", 3, "session", Some("d"))), 4.0);
    assert!(sent(&effects).is_empty());
    assert_eq!(waiting(&s), 0);
    let row = s.row("c1", &RowKey::approval("r1")).unwrap();
    assert_eq!(
        (row.seq, row.ts, row.turn.as_deref()),
        (Some(3), 9, Some("t1"))
    );
    assert_eq!(
        approval(&s, "r1").state,
        ApprovalState::Resolved {
            choice: Choice::Session,
            elsewhere: false
        }
    );
    assert_eq!(
        approval(&s, "r1").choices.len(),
        4,
        "the request's choices are kept"
    );
    assert_eq!(
        texts(&s, "c1")[2..],
        [
            "commentary:Waiting.".to_string(),
            "approval:r1:Resolved { choice: Session, elsewhere: false }".to_string()
        ]
    );
    // The same resolution again, live and in a history page: still one row.
    s.apply(frame(resolved("r1", 3, "session", Some("d"))), 5.0);
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","has_more":false,"items":[
            {"type":"approval","seq":3,"turn_id":"t1","request_id":"r1","title":"Run a shell command?",
             "choice":"session","device_id":"d","ts":9}]})),
        5.0,
    );
    assert_eq!(s.timeline("c1").unwrap().len(), 4);
    assert_eq!(s.channel("c1").unwrap().meta.last_seq, 3);
    // A resolved request stays resolved whatever comes later.
    let effects = s.apply(frame(request("r1", all())), 6.0);
    assert!(alerts(&effects).is_empty());
    assert!(!approval(&s, "r1").is_pending());
    assert!(s.respond("c1", "r1", Choice::Once).is_empty());
}

#[test]
fn a_resolution_from_another_device_or_the_gateway_says_so() {
    let (mut s, _) = turn_waiting(all());
    s.apply(frame(resolved("r1", 2, "deny", Some("phone"))), 3.0);
    assert_eq!(
        approval(&s, "r1").state,
        ApprovalState::Resolved {
            choice: Choice::Deny,
            elsewhere: true
        }
    );
    for (id, seq, choice, want) in [
        ("r2", 3, "timeout", Choice::Timeout),
        ("r3", 4, "cancelled", Choice::Cancelled),
    ] {
        s.apply(frame(request(id, all())), 4.0);
        assert!(approval(&s, id).is_pending());
        s.apply(frame(resolved(id, seq, choice, None)), 4.0);
        assert_eq!(
            approval(&s, id).state,
            ApprovalState::Resolved {
                choice: want,
                elsewhere: false
            }
        );
    }
    assert_eq!(waiting(&s), 0);
}

#[test]
fn history_shows_resolved_requests_never_seen_live() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","has_more":false,"items":[
            {"type":"message","seq":1,"message_id":"u1","role":"user","text":"go","ts":1},
            {"type":"approval","seq":2,"request_id":"old","title":"Delete?","command":"rm x",
             "choice":"always","device_id":"laptop","ts":2},
            {"type":"approval","seq":3,"request_id":"late","title":"Wait?","choice":"timeout","ts":3}]})),
        1.0,
    );
    assert_eq!(
        texts(&s, "c1"),
        vec![
            "user:go",
            "approval:old:Resolved { choice: Always, elsewhere: true }",
            "approval:late:Resolved { choice: Timeout, elsewhere: false }",
        ]
    );
    assert!(approval(&s, "old").choices.is_empty());
    assert_eq!(s.channel("c1").unwrap().unread, 0);
}

#[test]
fn a_history_page_resolves_a_waiting_request() {
    let mut s = reconnected_while_waiting();
    s.apply(
        frame(json!({"type":"history","channel_id":"c1","has_more":false,"items":[
            {"type":"approval","seq":2,"turn_id":"t1","request_id":"r1","title":"Run a shell command?",
             "choice":"once","device_id":"phone","ts":8}]})),
        3.0,
    );
    assert_eq!(waiting(&s), 0);
    assert_eq!(
        approval(&s, "r1").state,
        ApprovalState::Resolved {
            choice: Choice::Once,
            elsewhere: true
        }
    );
    assert_eq!(s.timeline("c1").unwrap().len(), 3);
}

fn channel_json() -> serde_json::Value {
    super::super::tests::channel("c1", 1)
}

/// [`turn_waiting`], then the socket dropped and the gateway said `ready`.
fn reconnected_while_waiting() -> Store {
    let (mut s, _) = turn_waiting(all());
    s.connection_lost();
    s.apply(
        frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel_json()]})),
        3.0,
    );
    s
}

#[test]
fn errors_about_a_request_free_the_answer_and_keep_the_thread() {
    for code in ["not_found", "bad_request"] {
        let (mut s, _) = turn_waiting(all());
        s.respond("c1", "r1", Choice::Once);
        s.apply(
            frame(json!({"type":"error","code":code,"message":"","channel_id":"c1","request_id":"r1"})),
            3.0,
        );
        assert!(s.channel("c1").is_some(), "{code}: the thread stays");
        assert_eq!(approval(&s, "r1").state, OPEN, "{code}");
        assert_eq!(s.notices().count(), 1, "{code}");
        assert_eq!(
            sent(&s.respond("c1", "r1", Choice::Once)).len(),
            1,
            "{code}: can answer again"
        );
    }
    // Without a channel id the request is found by its id.
    let (mut s, _) = turn_waiting(all());
    s.respond("c1", "r1", Choice::Once);
    s.apply(
        frame(json!({"type":"error","code":"bad_request","message":"no","request_id":"r1"})),
        3.0,
    );
    assert_eq!(approval(&s, "r1").state, OPEN);
}

#[test]
fn a_turn_that_ends_leaves_nothing_waiting_unless_re_sent() {
    let (mut s, _) = turn_waiting(all());
    let effects = s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":false})),
        3.0,
    );
    assert_eq!(
        alerts(&effects),
        vec![Alert::TurnEnded {
            channel: "c1".into()
        }]
    );
    assert_eq!(approval(&s, "r1").state, ApprovalState::Unanswered);
    assert_eq!(waiting(&s), 0);
    assert!(s.respond("c1", "r1", Choice::Once).is_empty());
    // The gateway says it still waits: pending again, in the same row.
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        4.0,
    );
    let effects = s.apply(frame(request("r1", all())), 4.0);
    assert_eq!(alerts(&effects).len(), 1);
    assert!(approval(&s, "r1").is_pending());
    assert_eq!((waiting(&s), s.timeline("c1").unwrap().len()), (1, 3));
}

#[test]
fn a_reconnect_frees_the_answer_and_the_re_sent_request_is_answered_once() {
    let (mut s, _) = turn_waiting(all());
    assert_eq!(sent(&s.respond("c1", "r1", Choice::Once)).len(), 1);
    s.connection_lost();
    assert_eq!(approval(&s, "r1").state, OPEN);
    s.apply(
        frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel_json()]})),
        3.0,
    );
    // §9: the gateway re-sends the turn and the request, then lists channels.
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        3.0,
    );
    let effects = s.apply(frame(request("r1", all())), 3.0);
    assert!(alerts(&effects).is_empty(), "the same request is no news");
    s.apply(
        frame(json!({"type":"channel.list","channels":[channel_json()]})),
        3.0,
    );
    assert!(approval(&s, "r1").is_pending());
    assert_eq!(waiting(&s), 1);
    assert_eq!(sent(&s.respond("c1", "r1", Choice::Once)).len(), 1);
    assert!(s.respond("c1", "r1", Choice::Once).is_empty());
}

#[test]
fn a_request_that_ended_while_away_waits_no_more() {
    let mut s = reconnected_while_waiting();
    // Nothing re-sent: the turn is over.
    s.apply(
        frame(json!({"type":"channel.list","channels":[channel_json()]})),
        3.0,
    );
    assert_eq!(approval(&s, "r1").state, ApprovalState::Unanswered);
    assert_eq!(waiting(&s), 0);
}

#[test]
fn requests_in_unknown_threads_are_ignored() {
    let mut s = ready_store();
    let mut f = request("r1", all());
    f["channel_id"] = json!("nope");
    let effects = s.apply(frame(f), 1.0);
    assert!(effects.is_empty());
    assert!(s.channel("nope").is_none());
    let mut r = resolved("r1", 1, "deny", None);
    r["channel_id"] = json!("nope");
    assert!(s.apply(frame(r), 1.0).is_empty());
}

#[test]
fn a_resolution_after_the_turn_ended_still_says_how() {
    let (mut s, _) = turn_waiting(all());
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":false})),
        3.0,
    );
    assert_eq!(approval(&s, "r1").state, ApprovalState::Unanswered);
    s.apply(frame(resolved("r1", 2, "cancelled", None)), 4.0);
    assert_eq!(
        approval(&s, "r1").state,
        ApprovalState::Resolved {
            choice: Choice::Cancelled,
            elsewhere: false
        }
    );
    assert_eq!(
        s.row("c1", &RowKey::approval("r1")).and_then(|r| r.seq),
        Some(2)
    );
}

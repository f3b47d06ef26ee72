//! What the view's steering controls stand on (§12): where each navigator
//! goes, what the shortcuts edit and regenerate, items on another branch
//! (a search hit, a deep link) offered but never switched to by
//! themselves, refusals that leave the thread in place, and the offline
//! copy of a path the gateway has left.

use serde_json::json;

use super::branch_tests::{branched_store, history_get, newest_reload, switched};
use super::tests::{channel, frame, sent, texts};
use super::*;

fn user(seq: u64, text: &str) -> serde_json::Value {
    json!({"type":"message","seq":seq,"message_id":format!("m{seq}"),"role":"user","text":text})
}

#[test]
fn a_navigator_goes_on_the_user_message_and_on_the_turns_last_answer() {
    let mut s = branched_store();
    // A new turn logs two answers, both carrying the turn's branch.
    let b = json!({"siblings":[7, 10], "index":0});
    for (seq, id) in [(7, "m7"), (8, "m8")] {
        s.apply(frame(json!({"type":"message","channel_id":"c1","seq":seq,"message_id":id,"role":"assistant","text":id,"turn_id":"turnx","branch":b})), 0.0);
    }
    let navs = s.navigators("c1");
    let user_nav = &navs[&RowKey::message("m3")];
    assert_eq!(user_nav.kind, NodeKind::Message);
    assert_eq!(user_nav.position(), "1/2");
    assert_eq!(user_nav.label(), "Message 1 of 2");
    assert!(!user_nav.has_previous() && user_nav.has_next());
    // One per turn, on its last answer.
    let answer = &navs[&RowKey::message("m8")];
    assert_eq!(answer.kind, NodeKind::Answer);
    assert_eq!(answer.label(), "Answer 1 of 2");
    assert!(!navs.contains_key(&RowKey::message("m7")));
    assert_eq!(navs.len(), 2);
}

#[test]
fn a_turn_without_an_answer_shows_its_navigator_on_its_last_item() {
    let mut s = branched_store();
    let b = json!({"siblings":[7, 8], "index":1});
    s.apply(frame(json!({"type":"tool.end","channel_id":"c1","turn_id":"turn9","index":0,"seq":8,"ok":false,"duration":0.1,"name":"t","branch":b})), 0.0);
    let navs = s.navigators("c1");
    let nav = navs.values().find(|n| n.seq == 8).expect("a navigator");
    assert_eq!(nav.label(), "Answer 2 of 2");
    assert!(nav.has_previous() && !nav.has_next());
}

#[test]
fn the_last_own_message_and_the_last_answer_are_the_shortcuts_targets() {
    let mut s = branched_store();
    let last = s.last_editable("c1").expect("a message to edit");
    assert_eq!((last.message_id.as_str(), last.text.as_str()), ("m5", "t5"));
    assert_eq!(s.last_answer_turn("c1").as_deref(), Some("turn3"));
    // A message waiting for its answer: nothing to regenerate, and a
    // pending send is not edited (the gateway has no id for it yet).
    s.send("waiting", "k1".into(), 1.0);
    assert_eq!(s.last_answer_turn("c1"), None);
    assert_eq!(
        s.last_editable("c1").map(|e| e.message_id),
        Some("m5".into())
    );
    // Its echo carries the id an edit names.
    s.apply(frame(json!({"type":"message","channel_id":"c1","seq":7,"message_id":"m7","role":"user","text":"waiting","client_msg_id":"k1"})), 1.0);
    assert_eq!(
        s.last_editable("c1").map(|e| e.message_id),
        Some("m7".into())
    );
}

#[test]
fn a_hit_on_another_branch_opens_the_newest_page_and_only_the_offer_switches() {
    let mut s = branched_store();
    s.open(None);
    let effects = s.open_hit("c1".into(), 7, Some(false));
    assert!(history_get(&effects).iter().all(|h| h.around.is_none()));
    assert!(sent(&effects)
        .iter()
        .all(|f| !matches!(f, ClientFrame::BranchSelect(_))));
    assert_eq!(
        s.branch_offer().map(|o| (o.seq, o.switching)),
        Some((7, false))
    );
    let effects = s.show_offered_branch();
    assert!(matches!(&sent(&effects)[..], [ClientFrame::BranchSelect(b)] if b.seq == 7));
    assert_eq!(s.branch_offer().map(|o| o.switching), Some(true));
    // The switch loads the new path; the item is brought on screen.
    s.apply(switched(2, 2), 1.0);
    s.apply(frame(json!({"type":"history","channel_id":"c1","after":2,"has_more":false,"has_newer":false,"branch_rev":2,"items":[user(7, "t7")]})), 1.0);
    assert_eq!(s.branch_offer(), None);
    assert_eq!(s.focus().map(|f| f.seq), Some(7));
    assert_eq!(texts(&s, "c1"), ["user:t1", "assistant:t2", "user:t7"]);
}

#[test]
fn a_hit_on_the_path_opens_in_place_and_another_thread_drops_the_offer() {
    let mut s = branched_store();
    s.open_hit("c1".into(), 9, Some(false));
    assert!(s.branch_offer().is_some());
    let effects = s.open_hit("c1".into(), 4, Some(true));
    assert!(s.branch_offer().is_none());
    assert!(effects.is_empty(), "item 4 is loaded: {effects:?}");
    assert_eq!(s.focus().map(|f| f.seq), Some(4));
    s.open_hit("c1".into(), 9, Some(false));
    s.open(None);
    assert!(s.branch_offer().is_none());
}

#[test]
fn a_deep_link_off_the_path_offers_its_branch_and_keeps_the_thread() {
    let mut s = branched_store();
    s.open(None);
    let effects = s.open_at("c1".into(), 9);
    assert_eq!(history_get(&effects)[0].around, Some(9));
    // §12: `around` for an item off the active path is `not_found`.
    let effects = s.apply(
        frame(json!({"type":"error","code":"not_found","message":"","channel_id":"c1"})),
        1.0,
    );
    assert!(newest_reload(&effects), "{effects:?}");
    assert!(s.channel("c1").is_some(), "the thread stays");
    assert_eq!(s.branch_offer().map(|o| o.seq), Some(9));
    assert_eq!(s.active(), Some("c1"));
}

#[test]
fn refusals_of_branch_requests_leave_the_thread_and_unsupported_ends_them() {
    let mut s = branched_store();
    // An edit of a message the gateway does not know.
    s.edit_message("c1", "gone", "x", &[], "e1".into());
    s.apply(frame(json!({"type":"error","code":"not_found","message":"no such message","channel_id":"c1","client_msg_id":"e1"})), 1.0);
    assert!(s.channel("c1").is_some());
    assert!(s.notices().any(|n| n.text == "no such message"));
    // A selection of a seq it does not know.
    s.open_hit("c1".into(), 99, Some(false));
    s.show_offered_branch();
    s.apply(
        frame(json!({"type":"error","code":"not_found","message":"","channel_id":"c1"})),
        1.0,
    );
    assert!(s.channel("c1").is_some());
    assert_eq!(s.branch_offer().map(|o| o.switching), Some(false));
    assert!(s.can_branch("c1"));
    // A gateway that cannot branch: none of the three is offered again.
    s.regenerate("c1", "turn1", "r1".into());
    s.apply(frame(json!({"type":"error","code":"unsupported","message":"","channel_id":"c1","client_msg_id":"r1"})), 1.0);
    assert!(!s.can_branch("c1"));
    assert!(s.switch_branch("c1", 3, 1).is_empty());
    assert_eq!(texts(&s, "c1").len(), 6);
}

/// A refused edit comes back with what was typed and why; one the
/// gateway accepted (its switch came) or another request's refusal does
/// not reopen anything.
#[test]
fn a_refused_edit_gives_its_text_back_and_an_accepted_one_does_not() {
    let mut s = branched_store();
    let refusal = |id: &str| {
        frame(
            json!({"type":"error","code":"bad_request","message":"A turn is running.","channel_id":"c1","client_msg_id":id}),
        )
    };
    assert_eq!(s.user_row("c1", "m3").map(|r| r.seq), Some(Some(3)));
    assert!(
        s.user_row("c1", "m2").is_none(),
        "an answer is not a user message"
    );

    let removed = vec!["f_gone".to_string()];
    assert!(!s
        .edit_message("c1", "m3", "  typed with care ", &removed, "e1".into())
        .is_empty());
    s.apply(refusal("other"), 1.0);
    assert_eq!(s.refused_edit(), None, "another request's refusal");
    s.apply(refusal("e1"), 1.0);
    assert_eq!(
        s.refused_edit(),
        Some(&RefusedEdit {
            channel_id: "c1".into(),
            message_id: "m3".into(),
            text: "typed with care".into(),
            removed,
            why: "A turn is running.".into(),
        })
    );
    assert!(s.take_changes().contains(&Change::Channels));
    assert!(s.notices().any(|n| n.text == "A turn is running."));
    s.forget_refused_edit();
    assert_eq!(s.refused_edit(), None);

    // Accepted: the switch answers it, and a late duplicate error finds
    // nothing to give back.
    s.edit_message("c1", "m3", "again", &[], "e2".into());
    s.apply(
        frame(json!({"type":"branch.switched","channel_id":"c1","fork_seq":2,"branch_rev":2,"cause":"edit"})),
        1.0,
    );
    s.apply(refusal("e2"), 1.0);
    assert_eq!(s.refused_edit(), None);
}

#[test]
fn a_switch_in_a_background_thread_leaves_its_unread_count() {
    let mut s = branched_store();
    s.open(None);
    s.apply(frame(json!({"type":"message","channel_id":"c1","seq":7,"message_id":"m7","role":"assistant","text":"new"})), 1.0);
    let unread = s.channel("c1").map(|c| c.unread);
    s.apply(switched(2, 2), 1.0);
    assert_eq!(s.channel("c1").map(|c| c.unread), unread);
}

#[test]
fn an_offline_copy_of_a_path_the_gateway_left_is_replaced_whole() {
    let s = branched_store();
    let kept = crate::offline::page_of(s.channel("c1").expect("c1")).expect("a kept page");
    assert_eq!(kept.branch_rev, Some(1));
    let meta: crate::protocol::Channel = serde_json::from_value(channel("c1", 8)).expect("meta");
    let mut s = Store::new();
    s.open(Some("c1".into()));
    s.restore_offline(vec![meta], vec![kept], 0.0);
    assert_eq!(texts(&s, "c1").len(), 6);
    let mut listed = channel("c1", 8);
    listed["branch_rev"] = json!(2);
    let effects = s.apply(
        frame(
            json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[listed]}),
        ),
        1.0,
    );
    assert!(newest_reload(&effects), "{effects:?}");
    // The newest page of the new path overlaps the copy's seqs but is
    // read at another revision: the copy goes, the page is asked again.
    let page = json!({"type":"history","channel_id":"c1","has_more":false,"branch_rev":2,"items":[
        user(1, "t1"), {"type":"message","seq":2,"message_id":"m2","role":"assistant","text":"t2"}, user(7, "t7")]});
    let effects = s.apply(frame(page.clone()), 1.0);
    assert!(newest_reload(&effects), "{effects:?}");
    s.apply(frame(page), 1.0);
    assert_eq!(texts(&s, "c1"), ["user:t1", "assistant:t2", "user:t7"]);
}

#[test]
fn a_switch_in_a_window_opened_mid_thread_keeps_the_rows_above_the_fork() {
    let mut s = Store::new();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 100)]})), 0.0);
    let effects = s.open_at("c1".into(), 50);
    assert_eq!(history_get(&effects)[0].around, Some(50));
    let items: Vec<_> = (45..=55).map(|seq| user(seq, &format!("t{seq}"))).collect();
    s.apply(frame(json!({"type":"history","channel_id":"c1","around":50,"has_more":true,"has_newer":true,"branch_rev":1,"items":items})), 0.0);
    // The path changes below item 48: the rows above stay, and the window
    // goes on below the fork one page at a time (not the newest page).
    let effects = s.apply(switched(48, 2), 1.0);
    assert_eq!(
        texts(&s, "c1"),
        ["user:t45", "user:t46", "user:t47", "user:t48"]
    );
    let asked = history_get(&effects);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!((asked[0].after, asked[0].limit), (Some(48), None));
    s.apply(frame(json!({"type":"history","channel_id":"c1","after":48,"has_more":false,"has_newer":false,"branch_rev":2,"items":[user(101, "new")]})), 1.0);
    assert_eq!(texts(&s, "c1").last().map(String::as_str), Some("user:new"));
    assert!(!s.channel("c1").is_some_and(|c| c.has_newer));
}

//! The client's branch state (§12): a switch drops what left the path and
//! loads the rest, pages read on another path are dropped, and every bad
//! input of a hostile gateway ends in a reload of the newest page, never
//! a crash or a lost row of the active path.

use serde_json::json;

use super::tests::{channel, frame, sent, texts};
use super::*;
use crate::protocol::{Branch, HistoryGet, ServerFrame};

/// Thread c1 with six logged messages read at `branch_rev` 1, item 3 a
/// user message with a sibling at 7.
pub(super) fn branched_store() -> Store {
    let mut s = Store::new();
    s.apply(frame(json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[channel("c1", 7)]})), 0.0);
    s.open(Some("c1".into()));
    let items: Vec<_> = (1..=6)
        .map(|seq| {
            let role = if seq % 2 == 1 { "user" } else { "assistant" };
            let mut item = json!({"type":"message","seq":seq,"message_id":format!("m{seq}"),"role":role,"text":format!("t{seq}"),"turn_id":format!("turn{}", (seq + 1) / 2)});
            if seq == 3 {
                item["branch"] = json!({"siblings":[3, 7], "index":0});
            }
            item
        })
        .collect();
    s.apply(frame(json!({"type":"history","channel_id":"c1","items":items,"has_more":false,"branch_rev":1})), 0.0);
    s.take_changes();
    s
}

pub(super) fn history_get(effects: &[Effect]) -> Vec<HistoryGet> {
    sent(effects)
        .into_iter()
        .filter_map(|f| match f {
            ClientFrame::HistoryGet(h) => Some(h),
            _ => None,
        })
        .collect()
}

pub(super) fn newest_reload(effects: &[Effect]) -> bool {
    matches!(&history_get(effects)[..], [h] if h.before.is_none() && h.after.is_none() && h.around.is_none())
}

pub(super) fn switched(fork_seq: u64, branch_rev: u64) -> ServerFrame {
    frame(
        json!({"type":"branch.switched","channel_id":"c1","fork_seq":fork_seq,"branch_rev":branch_rev,"cause":"select"}),
    )
}

#[test]
fn a_switch_drops_the_rows_past_the_fork_and_loads_the_new_path_after_it() {
    let mut s = branched_store();
    assert_eq!(
        s.branch_at("c1", 3),
        Some(&Branch {
            siblings: vec![3, 7],
            index: 0
        })
    );
    let effects = s.apply(switched(2, 2), 1.0);
    assert_eq!(texts(&s, "c1"), ["user:t1", "assistant:t2"]);
    assert_eq!(s.branch_at("c1", 3), None);
    let asked = history_get(&effects);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].after, Some(2));
    // The new path's page, read at the new revision, merges with a live
    // frame that arrived first: nothing twice.
    s.apply(frame(json!({"type":"message","channel_id":"c1","seq":8,"message_id":"m8","role":"assistant","text":"t8","turn_id":"turnb"})), 1.0);
    let page = json!({"type":"history","channel_id":"c1","after":2,"has_more":false,"has_newer":false,"branch_rev":2,"items":[
        {"type":"message","seq":7,"message_id":"m7","role":"user","text":"t7","branch":{"siblings":[3,7],"index":1}},
        {"type":"message","seq":8,"message_id":"m8","role":"assistant","text":"t8","turn_id":"turnb"}]});
    s.apply(frame(page), 1.0);
    assert_eq!(
        texts(&s, "c1"),
        ["user:t1", "assistant:t2", "user:t7", "assistant:t8"]
    );
    assert_eq!(s.branch_at("c1", 7).map(|b| b.index), Some(1));
    // The same switch again (another device's echo of it) changes nothing.
    assert!(s.apply(switched(2, 2), 1.0).is_empty());
    assert_eq!(texts(&s, "c1").len(), 4);
}

#[test]
fn a_page_read_on_another_path_is_dropped_for_the_newest_page() {
    let mut s = branched_store();
    s.connection_lost();
    let mut listed = channel("c1", 7);
    listed["branch_rev"] = json!(1);
    let effects = s.apply(
        frame(
            json!({"type":"ready","protocol":1,"server":"t","device_id":"d","channels":[listed]}),
        ),
        1.0,
    );
    assert!(
        history_get(&effects).iter().any(|h| h.after == Some(6)),
        "a gap fill: {effects:?}"
    );
    let stale = json!({"type":"history","channel_id":"c1","after":6,"has_more":false,"has_newer":false,"branch_rev":3,"items":[
        {"type":"message","seq":9,"message_id":"m9","role":"user","text":"elsewhere"}]});
    let effects = s.apply(frame(stale), 2.0);
    assert!(newest_reload(&effects), "{effects:?}");
    assert!(!texts(&s, "c1").iter().any(|t| t.contains("elsewhere")));
}

#[test]
fn a_listed_revision_past_the_held_one_reloads_instead_of_filling_a_gap() {
    let mut s = branched_store();
    let mut listed = channel("c1", 9);
    listed["branch_rev"] = json!(4);
    let effects = s.apply(
        frame(json!({"type":"channel.list","channels":[listed]})),
        1.0,
    );
    assert!(newest_reload(&effects), "{effects:?}");
    // The reload's page is read at the new revision and shown whole.
    let page = json!({"type":"history","channel_id":"c1","has_more":false,"branch_rev":4,"items":[
        {"type":"message","seq":1,"message_id":"m1","role":"user","text":"t1"},
        {"type":"message","seq":9,"message_id":"m9","role":"user","text":"t9"}]});
    s.apply(frame(page), 1.0);
    assert_eq!(texts(&s, "c1"), ["user:t1", "user:t9"]);
}

#[test]
fn hostile_switches_never_crash_or_lose_the_path() {
    // An unknown thread: ignored.
    let mut s = branched_store();
    let other = frame(
        json!({"type":"branch.switched","channel_id":"nope","fork_seq":1,"branch_rev":9,"cause":"edit"}),
    );
    assert!(s.apply(other, 1.0).is_empty());
    assert_eq!(texts(&s, "c1").len(), 6);
    // A fork past the thread's end: the newest page again.
    let effects = s.apply(switched(99, 2), 1.0);
    assert!(newest_reload(&effects));
    // A revision that goes back: the newest page again.
    let mut s = branched_store();
    s.apply(switched(4, 5), 1.0);
    let effects = s.apply(switched(2, 3), 1.0);
    assert!(newest_reload(&effects), "{effects:?}");
    // A huge fork seq does not overflow.
    let mut s = branched_store();
    assert!(newest_reload(&s.apply(switched(u64::MAX, 2), 1.0)));
}

#[test]
fn a_branch_that_does_not_fit_its_item_is_ignored_and_the_item_kept() {
    let mut s = branched_store();
    for bad in [
        json!({"siblings":[1, 2], "index":0}),
        json!({"siblings":[3, 9], "index":5}),
        json!({"siblings":[9, 3], "index":1}),
    ] {
        s.apply(frame(json!({"type":"message","channel_id":"c1","seq":3,"message_id":"m3","role":"user","text":"t3","branch":bad})), 1.0);
        assert_eq!(s.branch_at("c1", 3), None, "{bad}");
        assert_eq!(s.switch_branch("c1", 3, 1), Vec::new());
        assert_eq!(texts(&s, "c1").len(), 6);
    }
}

#[test]
fn the_three_requests_go_out_only_while_no_turn_runs() {
    let mut s = branched_store();
    let effects = s.switch_branch("c1", 3, 1);
    assert!(matches!(&sent(&effects)[..], [ClientFrame::BranchSelect(b)] if b.seq == 7));
    assert!(
        s.switch_branch("c1", 3, -1).is_empty(),
        "no previous sibling"
    );
    let effects = s.edit_message("c1", "m3", "  fixed  ", &[], "e1".into());
    assert!(
        matches!(&sent(&effects)[..], [ClientFrame::MessageEdit(e)] if e.text == "fixed" && e.message_id == "m3")
    );
    assert!(s
        .edit_message("c1", "m3", "   ", &[], "e2".into())
        .is_empty());
    let effects = s.regenerate("c1", "turn1", "r1".into());
    assert!(
        matches!(&sent(&effects)[..], [ClientFrame::TurnRegenerate(r)] if r.turn_id == "turn1")
    );
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        1.0,
    );
    assert!(!s.can_branch("c1"));
    assert!(s.switch_branch("c1", 3, 1).is_empty());
    assert!(s.edit_message("c1", "m3", "x", &[], "e3".into()).is_empty());
    assert!(s.regenerate("c1", "turn1", "r2".into()).is_empty());
}

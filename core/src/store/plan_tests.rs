//! Plans and nested calls (§14): frames in, checklist and nesting out.

use serde_json::json;

use super::tests::{frame, ready_store, texts};
use super::*;
use crate::protocol::PlanStatus;
use crate::render::PlanCount;

fn plan(seq: Option<u64>, turn: &str, statuses: &[&str]) -> serde_json::Value {
    let items: Vec<_> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"id": (i + 1).to_string(), "text": format!("step {}", i + 1), "status": s}))
        .collect();
    let mut v =
        json!({"type": "plan", "channel_id": "c1", "turn_id": turn, "items": items, "ts": 5});
    if let Some(seq) = seq {
        v["seq"] = json!(seq);
    }
    v
}

fn plan_row(s: &Store, turn: &str) -> (Option<u64>, Vec<PlanStatus>) {
    match s.row("c1", &RowKey::plan(turn)) {
        Some(Row {
            seq,
            body: RowBody::Plan(items),
            ..
        }) => (*seq, items.iter().map(|i| i.status).collect()),
        other => panic!("no plan row: {other:?}"),
    }
}

fn tool_start(index: u32, parent: Option<u32>) -> serde_json::Value {
    let mut v = json!({"type": "tool.start", "channel_id": "c1", "turn_id": "t1", "index": index,
        "name": format!("tool{index}"), "preview": "", "args": {}});
    if let Some(p) = parent {
        v["parent_index"] = json!(p);
    }
    v
}

fn tool_end(index: u32, seq: u64, parent: Option<u32>) -> serde_json::Value {
    let mut v = json!({"type": "tool.end", "channel_id": "c1", "turn_id": "t1", "index": index,
        "seq": seq, "name": format!("tool{index}"), "ok": true, "duration": 0.1, "output_preview": ""});
    if let Some(p) = parent {
        v["parent_index"] = json!(p);
    }
    v
}

#[test]
fn live_plans_update_one_checklist_and_the_logged_state_takes_its_place() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        1.0,
    );
    s.apply(frame(plan(None, "t1", &["in_progress", "pending"])), 2.0);
    s.apply(frame(tool_end(1, 1, None)), 2.0);
    s.apply(frame(plan(None, "t1", &["completed", "in_progress"])), 3.0);
    assert_eq!(texts(&s, "c1"), ["plan:2", "tool:tool1:Ok"]);
    assert_eq!(
        plan_row(&s, "t1"),
        (None, vec![PlanStatus::Completed, PlanStatus::InProgress])
    );
    let turn = s.channel("c1").and_then(|c| c.turn.as_ref()).expect("turn");
    let count = PlanCount::of(turn.plan.as_deref().expect("turn keeps the plan"));
    assert_eq!(
        count,
        PlanCount {
            done: 1,
            total: 2,
            current: Some("step 2".into())
        }
    );
    // Logged right before the answer: the same row, now at its seq.
    s.apply(frame(plan(Some(2), "t1", &["completed", "completed"])), 4.0);
    s.apply(frame(json!({"type":"message.stop","channel_id":"c1","turn_id":"t1","message_id":"a1","seq":3,"final_text":"done","ts":5})), 4.0);
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":false})),
        5.0,
    );
    assert_eq!(
        texts(&s, "c1"),
        ["tool:tool1:Ok", "plan:2", "assistant:done"]
    );
    assert_eq!(
        plan_row(&s, "t1"),
        (Some(2), vec![PlanStatus::Completed, PlanStatus::Completed])
    );
    assert_eq!(s.channel("c1").map(|c| c.contiguous_seq), Some(3));
}

#[test]
fn each_turn_keeps_its_own_plan_and_history_brings_it_back() {
    let mut s = ready_store();
    s.apply(frame(json!({"type":"history","channel_id":"c1","after":0,"has_more":false,"items":[
        {"type":"plan","seq":1,"turn_id":"t0","ts":1,"items":[{"id":"1","text":"old","status":"in_progress"}]},
        {"type":"message","seq":2,"message_id":"m2","role":"assistant","text":"first","turn_id":"t0","ts":1},
    ]})), 1.0);
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        2.0,
    );
    s.apply(frame(plan(None, "t1", &["completed"])), 2.0);
    assert_eq!(plan_row(&s, "t0"), (Some(1), vec![PlanStatus::InProgress]));
    assert_eq!(plan_row(&s, "t1"), (None, vec![PlanStatus::Completed]));
    assert_eq!(texts(&s, "c1"), ["plan:1", "assistant:first", "plan:1"]);
}

#[test]
fn a_late_live_plan_does_not_undo_the_logged_one() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        1.0,
    );
    s.apply(frame(plan(Some(1), "t1", &["completed"])), 2.0);
    s.apply(frame(plan(None, "t1", &["pending"])), 3.0);
    assert_eq!(plan_row(&s, "t1"), (Some(1), vec![PlanStatus::Completed]));
}

#[test]
fn sub_agent_calls_nest_under_their_delegation() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        1.0,
    );
    s.apply(frame(tool_start(1, None)), 1.0);
    s.apply(frame(tool_start(2, Some(1))), 1.0);
    s.apply(frame(tool_start(3, Some(2))), 1.0);
    let t = s.timeline("c1").expect("timeline");
    let parent = RowKey::tool("t1", 1);
    assert_eq!(t.children(&parent), [RowKey::tool("t1", 2)]);
    assert_eq!(
        t.nested_in(&RowKey::tool("t1", 3)),
        Some(RowKey::tool("t1", 2))
    );
    assert_eq!(t.nested_in(&parent), None);
    let mut nests = t.nests();
    nests.sort();
    assert_eq!(
        nests,
        [
            (parent.clone(), vec![RowKey::tool("t1", 2)]),
            (RowKey::tool("t1", 2), vec![RowKey::tool("t1", 3)]),
        ]
    );
    assert_eq!(
        t.nested_count(&parent),
        NestedCount {
            calls: 2,
            running: 2
        }
    );
    s.apply(frame(tool_end(3, 1, Some(2))), 2.0);
    s.apply(frame(tool_end(2, 2, None)), 2.0);
    let t = s.timeline("c1").expect("timeline");
    assert_eq!(
        t.nested_count(&parent),
        NestedCount {
            calls: 2,
            running: 0
        }
    );
    // The end kept the parent its start said.
    assert_eq!(t.nested_in(&RowKey::tool("t1", 2)), Some(parent.clone()));
    // A reloaded thread nests the same from the logged items.
    let mut again = ready_store();
    again.apply(frame(json!({"type":"history","channel_id":"c1","after":0,"has_more":false,"items":[
        {"type":"tool","seq":1,"turn_id":"t1","index":3,"parent_index":2,"name":"c","ok":true,"ts":1},
        {"type":"tool","seq":2,"turn_id":"t1","index":2,"parent_index":1,"name":"b","ok":true,"ts":1},
        {"type":"tool","seq":3,"turn_id":"t1","index":1,"name":"a","ok":true,"ts":1},
    ]})), 1.0);
    let t = again.timeline("c1").expect("timeline");
    assert_eq!(t.children(&parent), [RowKey::tool("t1", 2)]);
    assert_eq!(t.nested_count(&parent).calls, 2);
}

#[test]
fn a_parent_index_that_cannot_be_a_parent_is_ignored() {
    let mut s = ready_store();
    s.apply(
        frame(json!({"type":"typing","channel_id":"c1","on":true})),
        1.0,
    );
    s.apply(frame(tool_start(1, Some(2))), 1.0);
    s.apply(frame(tool_start(2, Some(1))), 1.0);
    s.apply(frame(tool_start(3, Some(3))), 1.0);
    let t = s.timeline("c1").expect("timeline");
    // 1 names a later call and 3 itself: both stand on their own, no cycle.
    assert_eq!(t.nested_in(&RowKey::tool("t1", 1)), None);
    assert_eq!(t.nested_in(&RowKey::tool("t1", 3)), None);
    assert_eq!(
        t.nested_in(&RowKey::tool("t1", 2)),
        Some(RowKey::tool("t1", 1))
    );
    assert_eq!(t.nested_count(&RowKey::tool("t1", 3)).calls, 0);
    // A child whose parent is not loaded stands on its own too.
    s.apply(frame(tool_start(5, Some(4))), 1.0);
    let t = s.timeline("c1").expect("timeline");
    assert_eq!(t.nested_in(&RowKey::tool("t1", 5)), None);
    assert_eq!(
        t.nests(),
        [(RowKey::tool("t1", 1), vec![RowKey::tool("t1", 2)])]
    );
}

use serde_json::json;

use super::*;

fn server(value: serde_json::Value) -> ServerFrame {
    ServerFrame::decode(&value.to_string()).expect("decodes")
}

fn client(value: serde_json::Value) -> ClientFrame {
    ClientFrame::decode(&value.to_string()).expect("decodes")
}

#[test]
fn the_three_requests_decode_as_the_contract_writes_them() {
    assert_eq!(
        client(
            json!({"type": "message.edit", "channel_id": "c1", "message_id": "m1",
                      "text": "fixed", "client_msg_id": "k2", "files": []})
        ),
        ClientFrame::MessageEdit(MessageEdit {
            channel_id: "c1".into(),
            message_id: "m1".into(),
            text: "fixed".into(),
            client_msg_id: "k2".into(),
            files: Vec::new(),
        })
    );
    assert_eq!(
        client(
            json!({"type": "turn.regenerate", "channel_id": "c1", "turn_id": "t1",
                      "client_msg_id": "k3"})
        ),
        ClientFrame::TurnRegenerate(TurnRegenerate {
            channel_id: "c1".into(),
            turn_id: "t1".into(),
            client_msg_id: "k3".into(),
        })
    );
    let select = ClientFrame::BranchSelect(BranchSelect {
        channel_id: "c1".into(),
        seq: 12,
    });
    assert_eq!(
        client(json!({"type": "branch.select", "channel_id": "c1", "seq": 12})),
        select
    );
    assert_eq!(ClientFrame::decode(&select.encode()), Ok(select));
    // A required field missing is a malformed frame, not a guess.
    assert!(ClientFrame::decode(r#"{"type":"branch.select","channel_id":"c1"}"#).is_err());
    assert!(ClientFrame::decode(r#"{"type":"turn.regenerate","channel_id":"c1"}"#).is_err());
}

#[test]
fn branch_switched_round_trips_and_tolerates_new_causes() {
    let frame = ServerFrame::BranchSwitched(BranchSwitched {
        channel_id: "c1".into(),
        fork_seq: 7,
        branch_rev: 3,
        cause: BranchCause::Regenerate,
        device_id: Some("d1".into()),
    });
    let text = frame.encode();
    let wire: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        wire,
        json!({"type": "branch.switched", "channel_id": "c1", "fork_seq": 7,
               "branch_rev": 3, "cause": "regenerate", "device_id": "d1"})
    );
    assert_eq!(ServerFrame::decode(&text), Ok(frame.clone()));
    assert_eq!(frame.channel_id(), Some("c1"));
    let ServerFrame::BranchSwitched(f) = server(json!({"type": "branch.switched",
        "channel_id": "c1", "fork_seq": 0, "branch_rev": 1, "cause": "merge"}))
    else {
        panic!("not a branch.switched");
    };
    assert_eq!(
        (f.cause, f.device_id, f.fork_seq),
        (BranchCause::Other, None, 0)
    );
    assert!(ServerFrame::decode(r#"{"type":"branch.switched","channel_id":"c1"}"#).is_err());
}

#[test]
fn items_and_live_frames_carry_their_branch() {
    let branch = json!({"siblings": [3, 9, 14], "index": 1});
    let ServerFrame::Message(m) = server(json!({"type": "message", "channel_id": "c1",
        "seq": 9, "message_id": "m2", "role": "user", "text": "b", "ts": 1,
        "branch": branch}))
    else {
        panic!("not a message");
    };
    let want = Branch {
        siblings: vec![3, 9, 14],
        index: 1,
    };
    assert_eq!(m.item.branch.as_deref(), Some(&want));
    let ServerFrame::MessageStop(stop) = server(json!({"type": "message.stop",
        "channel_id": "c1", "message_id": "m3", "seq": 10, "final_text": "x",
        "branch": branch}))
    else {
        panic!("not a stop");
    };
    assert_eq!(stop.branch.as_deref(), Some(&want));
    let ServerFrame::ToolEnd(end) = server(json!({"type": "tool.end", "channel_id": "c1",
        "index": 1, "seq": 11, "ok": true, "branch": branch}))
    else {
        panic!("not a tool.end");
    };
    assert_eq!(end.branch.as_deref(), Some(&want));
    let ServerFrame::History(page) = server(json!({"type": "history", "channel_id": "c1",
    "has_more": false, "branch_rev": 4, "items": [
        {"type": "commentary", "seq": 12, "message_id": "m4", "text": "c", "branch": branch},
        {"type": "tool", "seq": 13, "index": 2, "name": "t", "ok": true, "branch": branch},
        {"type": "approval", "seq": 14, "request_id": "a", "choice": "deny", "branch": branch},
    ]})) else {
        panic!("not a history page");
    };
    assert_eq!(page.branch_rev, Some(4));
    let branches: Vec<Option<&Branch>> = page
        .items
        .iter()
        .map(|item| match item {
            HistoryItem::Commentary(c) => c.branch.as_deref(),
            HistoryItem::Tool(t) => t.branch.as_deref(),
            HistoryItem::Approval(a) => a.branch.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(branches, vec![Some(&want); 3]);
}

#[test]
fn a_malformed_branch_is_dropped_but_its_item_is_kept() {
    for bad in [
        json!({"siblings": "3,9", "index": 0}),
        json!({"siblings": [3, 9]}),
        json!({"siblings": [3, -9], "index": 0}),
        json!({"siblings": [3, 9], "index": -1}),
        json!("3/9"),
        json!(null),
    ] {
        let ServerFrame::Message(m) = server(json!({"type": "message", "channel_id": "c1",
            "seq": 9, "message_id": "m2", "role": "user", "text": "b", "branch": bad}))
        else {
            panic!("not a message for {bad}");
        };
        assert_eq!((m.item.seq, m.item.branch), (9, None), "{bad}");
    }
}

#[test]
fn channels_pages_and_hits_without_the_new_fields_still_decode() {
    let ServerFrame::ChannelList(list) = server(json!({"type": "channel.list",
        "channels": [{"channel_id": "c1"}, {"channel_id": "c2", "branch_rev": 5}]}))
    else {
        panic!("not a list");
    };
    let revs: Vec<Option<u64>> = list.channels.iter().map(|c| c.branch_rev).collect();
    assert_eq!(revs, [None, Some(5)]);
    let ServerFrame::History(page) = server(json!({"type": "history", "channel_id": "c1",
        "items": []}))
    else {
        panic!("not a page");
    };
    assert_eq!(page.branch_rev, None);
    let ServerFrame::SearchResults(results) = server(json!({"type": "search.results",
    "query": "q", "hits": [
        {"channel_id": "c1", "seq": 1, "kind": "message", "snippet": "q"},
        {"channel_id": "c1", "seq": 2, "kind": "tool", "snippet": "q", "on_path": false},
    ]})) else {
        panic!("not results");
    };
    let on_path: Vec<Option<bool>> = results.hits.iter().map(|h| h.on_path).collect();
    assert_eq!(on_path, [None, Some(false)]);
}

#[test]
fn a_branch_names_its_neighbours_only_when_it_fits() {
    let b = Branch {
        siblings: vec![3, 9, 14],
        index: 1,
    };
    assert_eq!((b.neighbour(-1), b.neighbour(1)), (Some(3), Some(14)));
    assert!(b.fits(9) && b.fits(11) && !b.fits(8));
    let first = Branch {
        index: 0,
        ..b.clone()
    };
    assert_eq!((first.neighbour(-1), first.neighbour(1)), (None, Some(9)));
    let out_of_range = Branch {
        index: 3,
        ..b.clone()
    };
    assert_eq!(out_of_range.neighbour(-1), None);
    assert!(!out_of_range.fits(20));
    let unordered = Branch {
        siblings: vec![9, 3],
        index: 0,
    };
    assert!(!unordered.fits(9));
    let huge = Branch {
        siblings: vec![1],
        index: u32::MAX,
    };
    assert_eq!((huge.neighbour(-1), huge.neighbour(i64::MAX)), (None, None));
}

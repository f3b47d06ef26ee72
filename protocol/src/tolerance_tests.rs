//! Input this client did not expect: types and fields it does not know,
//! malformed frames, one bad item among good ones, and arbitrary bytes or
//! JSON, which never make decoding panic.

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        "[a-z_.]{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
            prop::collection::hash_map(
                prop_oneof![
                    Just("type".to_string()),
                    Just("channel_id".to_string()),
                    Just("seq".to_string()),
                    Just("items".to_string()),
                    "[a-z_]{1,10}"
                ],
                inner,
                0..8
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

const TYPES: &[&str] = &[
    "ready",
    "pong",
    "error",
    "channel.list",
    "channel.created",
    "channel.renamed",
    "channel.deleted",
    "typing",
    "message.start",
    "message.update",
    "message.stop",
    "message",
    "commentary",
    "tool.start",
    "tool.progress",
    "tool.end",
    "history",
    "hello",
    "ping",
    "channel.create",
    "channel.rename",
    "channel.delete",
    "message.send",
    "turn.cancel",
    "history.get",
    "approval.request",
    "approval.resolved",
    "approval.respond",
    "search",
    "search.results",
    "message.edit",
    "turn.regenerate",
    "branch.select",
    "branch.switched",
    "file.begin",
    "file.accept",
    "file.chunk",
    "file.stored",
    "file.get",
    "file.data",
    "plan",
];

proptest! {
    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = ServerFrame::decode(&text);
        let _ = ClientFrame::decode(&text);
    }

    #[test]
    fn decoding_arbitrary_json_never_panics(mut v in arb_json(), t in 0..TYPES.len()) {
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("type".into(), TYPES[t].into());
        }
        let text = v.to_string();
        let _ = ServerFrame::decode(&text);
        let _ = ClientFrame::decode(&text);
    }
}

#[test]
fn the_type_is_read_wherever_it_stands_and_however_it_is_written() {
    let want = ServerFrame::Typing(Typing {
        channel_id: "c".into(),
        on: true,
    });
    for text in [
        r#"{"type":"typing","channel_id":"c","on":true}"#,
        r#"{"channel_id":"c","on":true,"type":"typing"}"#,
        r#"{ "type" : "typing", "channel_id":"c","on":true}"#,
        r#"{"type":"typ\u0069ng","channel_id":"c","on":true}"#,
    ] {
        assert_eq!(ServerFrame::decode(text), Ok(want.clone()), "{text}");
    }
    // An unknown type is ignored only in a well-formed frame.
    assert!(ServerFrame::decode(r#"{"type":"future.thing","x":"#).is_err());
    assert!(ServerFrame::decode(r#"{"type":"future.thing"} trailing"#).is_err());
}

#[test]
fn unknown_types_and_fields_are_ignored() {
    assert_eq!(
        ServerFrame::decode(r#"{"type":"future.thing","x":1}"#),
        Ok(ServerFrame::Unknown)
    );
    assert_eq!(
        ClientFrame::decode(r#"{"type":"nope"}"#),
        Ok(ClientFrame::Unknown)
    );
    let f = ServerFrame::decode(
        r#"{"type":"typing","channel_id":"c","on":true,"extra":{"deep":[1,2]}}"#,
    );
    assert_eq!(
        f,
        Ok(ServerFrame::Typing(Typing {
            channel_id: "c".into(),
            on: true
        }))
    );
}

#[test]
fn malformed_frames_are_errors_that_name_the_type() {
    let e = ServerFrame::decode(r#"{"type":"message.update","channel_id":"c","text":"x"}"#)
        .unwrap_err();
    assert_eq!(e.frame_type.as_deref(), Some("message.update"));
    assert!(e.reason.contains("message_id"), "{}", e.reason);
    assert!(e
        .to_string()
        .starts_with("malformed `message.update` frame"));

    for bad in [
        "",
        "not json",
        "[]",
        "{}",
        r#"{"type":5}"#,
        r#"{"type":"typing","channel_id":"c","on":"yes"}"#,
        r#"{"type":"message.stop","channel_id":"c","message_id":"m","seq":-1,"final_text":""}"#,
    ] {
        assert!(
            ServerFrame::decode(bad).is_err(),
            "{bad:?} should not decode"
        );
    }
}

#[test]
fn one_bad_history_item_does_not_drop_the_page() {
    let page = json!({
        "type": "history", "channel_id": "c", "has_more": false,
        "items": [
            {"type": "commentary", "seq": 1, "message_id": "a", "text": "ok", "ts": 0},
            {"type": "message", "seq": "two"},
            {"type": "poll", "seq": 3},
            {"type": "commentary", "seq": 4, "message_id": "b", "text": "ok", "ts": 0}
        ]
    });
    let Ok(ServerFrame::History(h)) = ServerFrame::decode(&page.to_string()) else {
        panic!("page should decode");
    };
    let seqs: Vec<_> = h.items.iter().map(HistoryItem::seq).collect();
    assert_eq!(seqs, vec![Some(1), None, None, Some(4)]);
}

#[test]
fn unknown_choices_and_hit_kinds_are_tolerated() {
    let text = r#"{"type":"approval.request","channel_id":"c","request_id":"a","title":"t",
        "choices":["once","maybe","deny"],"extra":1}"#;
    let ServerFrame::ApprovalRequest(req) = ServerFrame::decode(text).expect("decodes") else {
        panic!("not an approval.request");
    };
    assert_eq!(req.choices, vec![Choice::Once, Choice::Other, Choice::Deny]);
    assert_eq!(req.turn_id, None);
    let text = r#"{"type":"search.results","query":"q","hits":[
        {"channel_id":"c","seq":1,"kind":"attachment","snippet":"s","ts":2}]}"#;
    let ServerFrame::SearchResults(res) = ServerFrame::decode(text).expect("decodes") else {
        panic!("not search.results");
    };
    assert_eq!(res.hits[0].kind, HitKind::Other);
    // A resolved approval without a request_id is malformed, not a panic.
    assert!(ServerFrame::decode(
        r#"{"type":"approval.resolved","channel_id":"c","seq":1,"choice":"deny"}"#
    )
    .is_err());
}

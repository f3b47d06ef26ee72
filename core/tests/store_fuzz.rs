//! Property test: arbitrary sequences of frames (well-formed, malformed and
//! out of order) through decode and `Store::apply` never panic and keep the
//! store's invariants. A short run is part of `cargo test`; a long run:
//! `PROPTEST_CASES=20000 cargo test --release --test store_fuzz`.
#![cfg(not(target_arch = "wasm32"))]

use aria_core::protocol::{Choice, ClientFrame, ServerFrame};
use aria_core::store::{ApprovalState, Effect, RowBody, RowKey, Store};
use proptest::prelude::*;
use serde_json::{json, Value};

const CHANNELS: &[&str] = &["c1", "c2", "ghost"];
const MESSAGES: &[&str] = &["m1", "m2", "m3"];
const TURNS: &[&str] = &["t1", "t2"];
const REQUESTS: &[&str] = &["r1", "r2"];
const CHOICES: &[&str] = &[
    "once",
    "session",
    "always",
    "deny",
    "timeout",
    "cancelled",
    "maybe",
];

fn pick(items: &'static [&'static str]) -> impl Strategy<Value = &'static str> + Clone {
    prop::sample::select(items)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-z #*`\\[\\]()<>\n]{0,40}",
        Just("💭 **Reasoning:**\n```\nhm\n```\n\nok".to_string()),
    ]
}

/// One frame as JSON: mostly valid shapes with small id and seq spaces so
/// that collisions, repeats and reordering happen often.
fn frame() -> impl Strategy<Value = Value> {
    let ch = pick(CHANNELS);
    prop_oneof![
        (ch.clone(), any::<bool>()).prop_map(|(c, on)| json!({"type":"typing","channel_id":c,"on":on})),
        (ch.clone(), pick(TURNS), pick(MESSAGES)).prop_map(|(c, t, m)| json!({"type":"message.start","channel_id":c,"turn_id":t,"message_id":m,"role":"assistant"})),
        (ch.clone(), pick(MESSAGES), text()).prop_map(|(c, m, x)| json!({"type":"message.update","channel_id":c,"message_id":m,"text":x})),
        (ch.clone(), pick(MESSAGES), 0u64..12, text()).prop_map(|(c, m, s, x)| json!({"type":"message.stop","channel_id":c,"message_id":m,"seq":s,"final_text":x,"tokens":3})),
        (ch.clone(), 0u64..12, text(), prop::option::of(pick(&["k1", "k2"]))).prop_map(|(c, s, x, k)| json!({"type":"message","channel_id":c,"message_id":format!("h{s}"),"seq":s,"role":"user","text":x,"client_msg_id":k})),
        (ch.clone(), 0u64..12, text()).prop_map(|(c, s, x)| json!({"type":"commentary","channel_id":c,"message_id":format!("x{s}"),"seq":s,"text":x})),
        (ch.clone(), prop::option::of(pick(TURNS)), 0u32..4).prop_map(|(c, t, i)| json!({"type":"tool.start","channel_id":c,"turn_id":t,"index":i,"name":"sh","preview":"ls","args":{"command":"ls"}})),
        (ch.clone(), 0u32..4).prop_map(|(c, i)| json!({"type":"tool.progress","channel_id":c,"index":i,"name":"sh","note":"…"})),
        (ch.clone(), prop::option::of(pick(TURNS)), 0u32..4, 0u64..12, any::<bool>()).prop_map(|(c, t, i, s, ok)| json!({"type":"tool.end","channel_id":c,"turn_id":t,"index":i,"seq":s,"name":"sh","ok":ok,"duration":0.5,"output_preview":"x"})),
        (ch.clone(), prop::collection::vec(0u64..12, 0..6), any::<bool>()).prop_map(|(c, seqs, more)| json!({"type":"history","channel_id":c,"has_more":more,
            "items": seqs.iter().map(|s| json!({"type":"commentary","seq":s,"message_id":format!("x{s}"),"text":"p"})).collect::<Vec<_>>()})),
        (ch.clone(), prop::option::of(pick(TURNS)), pick(REQUESTS), prop::collection::vec(pick(CHOICES), 0..5)).prop_map(|(c, t, r, choices)| json!({"type":"approval.request","channel_id":c,"turn_id":t,"request_id":r,"title":"<b>t</b>","command":"rm -rf /","choices":choices})),
        (ch.clone(), pick(REQUESTS), 0u64..12, pick(CHOICES), prop::option::of(pick(&["d", "other"]))).prop_map(|(c, r, s, x, d)| json!({"type":"approval.resolved","channel_id":c,"request_id":r,"seq":s,"choice":x,"device_id":d})),
        (ch.clone(), pick(REQUESTS), 0u64..12, pick(CHOICES)).prop_map(|(c, r, s, x)| json!({"type":"history","channel_id":c,"has_more":false,
            "items":[{"type":"approval","seq":s,"request_id":r,"title":"t","choice":x}]})),
        (pick(REQUESTS), pick(&["not_found", "bad_request"])).prop_map(|(r, code)| json!({"type":"error","code":code,"message":"","request_id":r})),
        ch.clone().prop_map(|c| json!({"type":"channel.created","channel":{"channel_id":c,"title":"t"},"auto":true,"client_msg_id":"k1"})),
        ch.clone().prop_map(|c| json!({"type":"channel.deleted","channel_id":c})),
        ch.clone().prop_map(|c| json!({"type":"channel.renamed","channel_id":c,"title":"<b>x</b>"})),
        ch.clone().prop_map(|c| json!({"type":"error","code":"not_found","message":"gone","channel_id":c})),
        Just(json!({"type":"error","code":"too_large","message":"big","client_msg_id":"k2"})),
        Just(json!({"type":"ready","protocol":1,"channels":[{"channel_id":"c1","last_seq":5},{"channel_id":"c2"}]})),
        Just(json!({"type":"channel.list","channels":[{"channel_id":"c1","last_seq":7}]})),
        // Branches (§12), hostile ones included: revisions that go back,
        // forks past the end, branches that do not fit their item.
        (ch.clone(), 0u64..14, 0u64..5, pick(&["edit", "regenerate", "select", "merge"])).prop_map(|(c, f, r, cause)| json!({"type":"branch.switched","channel_id":c,"fork_seq":f,"branch_rev":r,"cause":cause})),
        (ch.clone(), 0u64..12, prop::collection::vec(0u64..14, 0..4), 0u32..5).prop_map(|(c, s, sib, i)| json!({"type":"message","channel_id":c,"message_id":format!("h{s}"),"seq":s,"role":"user","text":"b","branch":{"siblings":sib,"index":i}})),
        (ch.clone(), prop::collection::vec(0u64..12, 0..6), 0u64..5, any::<bool>()).prop_map(|(c, seqs, r, more)| json!({"type":"history","channel_id":c,"has_more":more,"branch_rev":r,
            "items": seqs.iter().map(|s| json!({"type":"message","seq":s,"message_id":format!("h{s}"),"role":"user","text":"p","branch":{"siblings":[s, s + 1],"index":0}})).collect::<Vec<_>>()})),
        (ch.clone(), 0u64..12, pick(TURNS), prop::collection::vec(0u64..14, 0..4), 0u32..5).prop_map(|(c, s, t, sib, i)| json!({"type":"message","channel_id":c,"message_id":format!("a{s}"),"seq":s,"role":"assistant","text":"b","turn_id":t,"branch":{"siblings":sib,"index":i}})),
        (ch.clone(), pick(&["not_found", "bad_request", "unsupported"]), prop::option::of(pick(&["e1", "r1"]))).prop_map(|(c, code, k)| json!({"type":"error","code":code,"message":"","channel_id":c,"client_msg_id":k})),
        // Malformed and unknown frames.
        Just(json!({"type":"message.update","channel_id":"c1"})),
        Just(json!({"type":"tool.end","channel_id":"c1","index":"one"})),
        Just(json!({"type":"from.the.future","x":[1,2,3]})),
        Just(json!([1, 2, 3])),
    ]
}

/// User actions interleaved with frames.
#[derive(Debug, Clone)]
enum Step {
    Frame(Value),
    Send(&'static str),
    Open(Option<&'static str>),
    LoadOlder(&'static str),
    Lost,
    Respond(&'static str, &'static str, Choice),
    SwitchBranch(&'static str, u64, i64),
    OpenHit(&'static str, u64, Option<bool>),
    ShowBranch,
    EditLast(&'static str),
    RegenerateLast(&'static str),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => frame().prop_map(Step::Frame),
        1 => pick(&["k1", "k2", "k3"]).prop_map(Step::Send),
        1 => prop::option::of(pick(CHANNELS)).prop_map(Step::Open),
        1 => pick(CHANNELS).prop_map(Step::LoadOlder),
        1 => Just(Step::Lost),
        2 => (pick(CHANNELS), pick(REQUESTS), prop::sample::select(vec![Choice::Once, Choice::Session, Choice::Always, Choice::Deny, Choice::Other]))
            .prop_map(|(c, r, x)| Step::Respond(c, r, x)),
        1 => (pick(CHANNELS), 0u64..12, prop::sample::select(vec![-1i64, 1])).prop_map(|(c, s, d)| Step::SwitchBranch(c, s, d)),
        1 => (pick(CHANNELS), 0u64..14, prop::option::of(any::<bool>())).prop_map(|(c, s, p)| Step::OpenHit(c, s, p)),
        1 => Just(Step::ShowBranch),
        1 => pick(CHANNELS).prop_map(Step::EditLast),
        1 => pick(CHANNELS).prop_map(Step::RegenerateLast),
    ]
}

fn check_invariants(store: &Store) {
    for c in store.channels() {
        let t = &c.timeline;
        let keys: Vec<_> = t.keys().collect();
        let unique: std::collections::HashSet<_> = keys.iter().collect();
        assert_eq!(keys.len(), unique.len(), "a row is listed twice");
        assert_eq!(keys.len(), t.len(), "order and rows disagree");
        let seqs: Vec<u64> = t.rows().filter_map(|r| r.seq).collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "logged rows out of order: {seqs:?}"
        );
        if let Some(turn) = &c.turn {
            assert!(!turn.id.is_empty());
        }
        for (seq, branch) in &c.branches.at {
            assert!(
                branch.fits(*seq),
                "a branch kept that does not fit item {seq}: {branch:?}"
            );
        }
        // Every navigator stands on a shown row and reads a fitting branch.
        for (key, nav) in store.navigators(&c.meta.channel_id) {
            assert_eq!(t.get(&key).and_then(|r| r.seq), Some(nav.seq));
            assert!(nav.branch.fits(nav.seq));
            assert!(nav
                .position()
                .starts_with(&(nav.branch.index + 1).to_string()));
        }
        if let Some(o) = store.branch_offer() {
            assert_eq!(store.active(), Some(o.channel.as_str()));
        }
        for row in t.rows() {
            if let RowBody::Assistant(a) = &row.body {
                assert!(
                    !(a.streaming && row.seq.is_some()),
                    "a logged answer still streaming"
                );
            }
            // A request waits exactly when the thread lists it as waiting,
            // and only a resolution is logged.
            if let RowBody::Approval(a) = &row.body {
                let listed = c.waiting.iter().filter(|k| **k == row.key).count();
                assert_eq!(
                    listed,
                    usize::from(a.is_pending()),
                    "waiting list of {}",
                    row.key
                );
                assert!(
                    row.seq.is_none() || matches!(a.state, ApprovalState::Resolved { .. }),
                    "a logged request still open: {row:?}"
                );
            }
        }
        for key in &c.waiting {
            assert!(
                matches!(t.get(key).map(|r| &r.body), Some(RowBody::Approval(a)) if a.is_pending()),
                "waiting for {key}, which is not an open request"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_keeps_the_store_consistent(steps in prop::collection::vec(step(), 1..80)) {
        let mut store = Store::new();
        for (i, s) in steps.into_iter().enumerate() {
            let now = i as f64;
            let effects: Vec<Effect> = match s {
                Step::Frame(v) => match ServerFrame::decode(&v.to_string()) {
                    Ok(f) => store.apply(f, now),
                    Err(e) => { store.record_dropped(e.to_string()); Vec::new() }
                },
                Step::Send(id) => store.send("hello", id.to_string(), now),
                Step::Open(c) => store.open(c.map(str::to_string)),
                Step::LoadOlder(c) => store.load_older(c),
                Step::Lost => { store.connection_lost(); Vec::new() }
                Step::Respond(c, r, x) => store.respond(c, r, x),
                Step::SwitchBranch(c, seq, d) => store.switch_branch(c, seq, d),
                Step::OpenHit(c, seq, on_path) => store.open_hit(c.to_string(), seq, on_path),
                Step::ShowBranch => store.show_offered_branch(),
                Step::EditLast(c) => match store.last_editable(c) {
                    Some(e) => store.edit_message(c, &e.message_id, "again", &[], "e1".into()),
                    None => Vec::new(),
                },
                Step::RegenerateLast(c) => match store.last_answer_turn(c) {
                    Some(t) => store.regenerate(c, &t, "r1".into()),
                    None => Vec::new(),
                },
            };
            // Every frame the store asks to send must encode; an answer
            // leaves its request answering, so a second one cannot follow.
            for e in effects {
                if let Effect::Send(f) = e {
                    prop_assert!(!f.encode().is_empty());
                    if let ClientFrame::ApprovalRespond(r) = &f {
                        let row = store.row(&r.channel_id, &RowKey::approval(&r.request_id));
                        let answering = matches!(row.map(|r| &r.body), Some(RowBody::Approval(a))
                            if a.state == ApprovalState::Pending { answering: true });
                        prop_assert!(answering, "an answer for a request not answering: {r:?}");
                        prop_assert!(store.respond(&r.channel_id, &r.request_id, r.choice).is_empty());
                    }
                }
            }
            check_invariants(&store);
            store.take_changes();
        }
    }
}

//! Demo turns end to end: frame order, seq, scenarios, broadcast to other
//! devices, joining mid-turn, cancel, queueing and idempotent sends.

use std::time::Duration;

use crate::support::{types, Gateway};
use serde_json::{json, Value};

fn of_type<'a>(frames: &'a [Value], ty: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == ty).collect()
}

#[tokio::test]
async fn demo_turn_frame_order_and_consecutive_seqs() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Turns").await;
    let echo = client
        .send_message(&channel, "  summarize the repo  ", "k1")
        .await;
    assert_eq!(echo["role"], "user");
    assert_eq!(echo["text"], "summarize the repo", "text is trimmed");
    assert_eq!(echo["channel_id"], channel);
    assert_eq!(echo["seq"], 1);
    assert!(echo["message_id"].is_string() && echo["ts"].as_i64() > Some(0));

    let frames = client.until_turn_ends().await;
    let kinds = types(&frames);
    assert_eq!(kinds[0], "typing");
    assert_eq!(frames[0]["on"], true);
    assert_eq!(kinds[1], "message.start");
    assert_eq!(frames[1]["role"], "assistant");
    let updates = of_type(&frames, "message.update");
    assert!(updates.len() >= 10, "{} updates", updates.len());
    assert!(kinds[2..2 + updates.len()]
        .iter()
        .all(|k| *k == "message.update"));
    let texts: Vec<&str> = updates
        .iter()
        .map(|u| u["text"].as_str().expect("text"))
        .collect();
    assert!(
        texts
            .windows(2)
            .all(|w| w[1].len() > w[0].len() && w[1].starts_with(w[0])),
        "snapshots grow"
    );

    let stop = &frames[frames.len() - 2];
    assert_eq!(stop["type"], "message.stop");
    assert_eq!(stop["final_text"], *texts.last().expect("an update"));
    assert!(stop["final_text"]
        .as_str()
        .is_some_and(|t| t.contains("summarize the repo")));
    assert_eq!(stop["model"], "aria-demo");
    assert!(stop["tokens"].as_u64() > Some(0));
    assert_eq!(stop["seq"], 2, "echo and stop have consecutive seqs");
    let turn_id = &frames[1]["turn_id"];
    assert!(turn_id.is_string());
    assert!(frames[1..frames.len() - 1]
        .iter()
        .all(|f| f["turn_id"] == *turn_id));
    assert_eq!(stop["message_id"], frames[1]["message_id"]);
}

#[tokio::test]
async fn reasoning_inline_reasoning_and_nostream_scenarios() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Scenarios").await;

    client.send_message(&channel, "/demo reasoning", "r1").await;
    let frames = client.until_turn_ends().await;
    let stop = of_type(&frames, "message.stop")[0];
    assert!(stop["reasoning"].as_str().is_some_and(|r| !r.is_empty()));

    client
        .send_message(&channel, "/demo inline-reasoning", "r2")
        .await;
    let frames = client.until_turn_ends().await;
    let stop = of_type(&frames, "message.stop")[0];
    assert!(stop.get("reasoning").is_none());
    let text = stop["final_text"].as_str().expect("text");
    assert!(text.starts_with("💭 **Reasoning:**\n```\n"), "{text}");
    assert!(text.contains("\n```\n\n"));

    client.send_message(&channel, "/demo nostream", "r3").await;
    let frames = client.until_turn_ends().await;
    assert!(of_type(&frames, "message.start").is_empty());
    assert!(of_type(&frames, "message.update").is_empty());
    let message = of_type(&frames, "message")[0];
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["model"], "aria-demo");
    assert!(message["tokens"].as_u64() > Some(0));
    assert_eq!(message["seq"], 6);
}

#[tokio::test]
async fn tools_scenario_logs_tools_with_one_failure_and_commentary() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Tools").await;
    client.send_message(&channel, "/demo tools", "t1").await;
    let frames = client.until_turn_ends().await;

    let starts = of_type(&frames, "tool.start");
    let ends = of_type(&frames, "tool.end");
    assert!(starts.len() >= 5);
    assert_eq!(starts.len(), ends.len());
    for (start, end) in starts.iter().zip(&ends) {
        assert_eq!(start["index"], end["index"]);
        assert!(start["args"].is_object());
        // One tool comes without an emoji, as real agents' tools do.
        let plain = start["name"] == "web_search";
        assert_eq!(start.get("emoji").is_none(), plain, "{start}");
    }
    let names: Vec<&str> = starts.iter().filter_map(|s| s["name"].as_str()).collect();
    for name in ["terminal", "read_file", "web_search"] {
        assert!(names.contains(&name), "{name}");
    }
    assert_eq!(ends.iter().filter(|e| e["ok"] == false).count(), 1);
    assert!(of_type(&frames, "tool.progress").len() >= 3);
    assert!(of_type(&frames, "commentary").len() >= 3);
    let stop = of_type(&frames, "message.stop")[0];

    // Every logged frame took the next seq, in the order sent.
    let logged: Vec<u64> = frames
        .iter()
        .filter(|f| {
            ["tool.end", "commentary", "message.stop"].contains(&f["type"].as_str().unwrap_or(""))
        })
        .map(|f| f["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(logged, (2..2 + logged.len() as u64).collect::<Vec<_>>());

    let history = client
        .history(json!({"channel_id": channel, "limit": 200}))
        .await;
    let items = history["items"].as_array().expect("items");
    assert_eq!(items.len(), 1 + logged.len());
    let failed = items
        .iter()
        .find(|i| i["type"] == "tool" && i["ok"] == false)
        .expect("failed tool item");
    assert!(
        failed["preview"].is_string() && failed["args"].is_object() && failed["emoji"].is_string()
    );
    assert!(failed["duration"].is_number() && failed["output_preview"].is_string());
    assert_eq!(items.last().expect("item")["text"], stop["final_text"]);
}

#[tokio::test]
async fn hang_leaves_a_tool_open_and_ends_the_turn() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Hang").await;
    client.send_message(&channel, "/demo hang", "h1").await;
    let frames = client.until_turn_ends().await;
    assert_eq!(of_type(&frames, "tool.start").len(), 1);
    assert!(of_type(&frames, "tool.end").is_empty());
}

#[tokio::test]
async fn flood_sends_n_tool_calls_in_one_turn() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Flood").await;
    client.send_message(&channel, "/demo flood 40", "f1").await;
    let frames = client.until_turn_ends().await;
    assert_eq!(of_type(&frames, "tool.end").len(), 40);
    assert_eq!(of_type(&frames, "typing").len(), 2, "one turn");
    assert_eq!(of_type(&frames, "message.stop")[0]["seq"], 42);
}

#[tokio::test]
async fn every_device_gets_the_turn_but_only_the_asker_gets_replies() {
    let gw = Gateway::start(1).await;
    let mut a = gw.client().await;
    let mut b = gw.client().await;
    let channel = a.create_channel("Shared").await;
    assert_eq!(
        b.recv_type("channel.created").await["channel"]["channel_id"],
        channel
    );

    a.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(a.recv().await["type"], "pong");
    a.send_message(&channel, "hello from a", "b1").await;
    let on_a = a.until_turn_ends().await;
    let on_b = b.until_turn_ends().await;
    assert_eq!(types(&on_b)[0], "message", "b gets the echo first, no pong");
    assert_eq!(on_b[0]["client_msg_id"], "b1");
    assert_eq!(on_b[1..], on_a[..], "b sees exactly what a sees");
}

#[tokio::test]
async fn device_joining_mid_turn_gets_typing_start_update_and_running_tools() {
    let gw = Gateway::start(25).await;
    let mut a = gw.client().await;
    let channel = a.create_channel("Live").await;

    // During the long tool of /demo tools: typing and the running tool.
    a.send_message(&channel, "/demo tools", "j1").await;
    let progress = a.recv_type("tool.progress").await;
    let mut b = gw.client().await;
    let resend = b.until(|f| f["type"] == "tool.start").await;
    assert_eq!(types(&resend), ["typing", "tool.start"]);
    assert_eq!(resend[0]["on"], true);
    assert_eq!(resend[1]["index"], progress["index"]);
    assert_eq!(resend[1]["turn_id"], progress["turn_id"]);
    let end = b.recv_type("tool.end").await;
    assert_eq!(end["index"], progress["index"]);
    a.until_turn_ends().await;
    b.until_turn_ends().await;

    // While an answer streams: typing, start and one update with the full text so far.
    a.send_message(&channel, "/demo long", "j2").await;
    let mut seen = String::new();
    for _ in 0..3 {
        seen = a.recv_type("message.update").await["text"]
            .as_str()
            .expect("text")
            .to_string();
    }
    let mut c = gw.client().await;
    let resend = c.until(|f| f["type"] == "message.update").await;
    assert_eq!(
        types(&resend),
        ["typing", "message.start", "message.update"]
    );
    let joined_text = resend[2]["text"].as_str().expect("text");
    assert!(
        joined_text.starts_with(&seen),
        "resend carries the full text so far"
    );
    assert_eq!(resend[1]["message_id"], resend[2]["message_id"]);
    // Cut the long answer short; the late device still sees the same end.
    a.send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    let frames = c.until_turn_ends().await;
    let stop = of_type(&frames, "message.stop")[0];
    assert!(stop["final_text"]
        .as_str()
        .is_some_and(|t| t.starts_with(joined_text)));
    a.until_turn_ends().await;
}

#[tokio::test]
async fn cancel_stops_the_bubble_with_what_it_has() {
    let gw = Gateway::start(20).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Cancel").await;
    client.send_message(&channel, "/demo long", "c1").await;
    client.recv_type("message.update").await;
    client.recv_type("message.update").await;
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    let frames = client.until_turn_ends().await;
    let updates = of_type(&frames, "message.update");
    let last_text = updates
        .last()
        .map_or("", |u| u["text"].as_str().unwrap_or(""));
    let stop = of_type(&frames, "message.stop")[0];
    let final_text = stop["final_text"].as_str().expect("final_text");
    assert!(final_text.len() < 20 * 1024, "the answer was cut short");
    if !updates.is_empty() {
        assert_eq!(final_text, last_text, "stop carries the last snapshot");
    }
    assert_eq!(stop["seq"], 2);
    assert_eq!(types(&frames).last().copied(), Some("typing"));
    client.assert_quiet(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn cancel_ends_running_tools_as_failed() {
    let gw = Gateway::start(20).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Cancel tools").await;
    client.send_message(&channel, "/demo tools", "c2").await;
    let progress = client.recv_type("tool.progress").await;
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    let frames = client.until_turn_ends().await;
    let end = of_type(&frames, "tool.end")
        .into_iter()
        .find(|e| e["index"] == progress["index"])
        .expect("running tool ended");
    assert_eq!(end["ok"], false);
    assert!(
        of_type(&frames, "message.start").is_empty(),
        "no answer after cancel"
    );

    client
        .send(json!({"type": "turn.cancel", "channel_id": "c_missing"}))
        .await;
    let error = client.recv().await;
    assert_eq!(
        (error["code"].as_str(), error["channel_id"].as_str()),
        (Some("not_found"), Some("c_missing"))
    );
}

#[tokio::test]
async fn sends_during_a_turn_are_queued_not_interleaved() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Queue").await;
    for k in ["q1", "q2", "q3"] {
        client
            .send(json!({"type": "message.send", "channel_id": channel, "text": "hi", "client_msg_id": k}))
            .await;
    }
    let mut typing = Vec::new();
    let mut stops = 0;
    while stops < 3 || typing.last() != Some(&false) {
        let frame = client.recv().await;
        match frame["type"].as_str() {
            Some("typing") => typing.push(frame["on"] == true),
            Some("message.stop") => stops += 1,
            _ => {}
        }
    }
    assert_eq!(typing, [true, false, true, false, true, false]);
}

#[tokio::test]
async fn resend_of_a_client_msg_id_re_echoes_without_a_second_turn() {
    let gw = Gateway::start(1).await;
    let mut a = gw.client().await;
    let mut b = gw.client().await;
    let channel = a.create_channel("Idempotent").await;
    let first = a.send_message(&channel, "only once", "dup").await;
    a.until_turn_ends().await;
    b.until_turn_ends().await;

    // Even with other fields changed, the accepted message wins.
    a.send(json!({"type": "message.send", "text": "changed", "client_msg_id": "dup", "auto_thread": true}))
        .await;
    let again = a.recv().await;
    assert_eq!(again, first, "same echo: channel, seq, message_id, text");
    a.assert_quiet(Duration::from_millis(150)).await;
    b.assert_quiet(Duration::from_millis(10)).await;
    a.send(json!({"type": "channel.list"})).await;
    assert_eq!(
        a.recv().await["channels"].as_array().map(Vec::len),
        Some(1),
        "no thread minted"
    );
}

#[tokio::test]
async fn message_text_limits_carry_the_client_msg_id() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Limits").await;
    let send = |text: String, k: &str| json!({"type": "message.send", "channel_id": channel, "text": text, "client_msg_id": k});

    client.send(send("  \n ".into(), "e1")).await;
    let error = client.recv().await;
    assert_eq!(
        (error["code"].as_str(), error["client_msg_id"].as_str()),
        (Some("bad_request"), Some("e1"))
    );

    client.send(send("x".repeat(65537), "e2")).await;
    let error = client.recv().await;
    assert_eq!(
        (error["code"].as_str(), error["client_msg_id"].as_str()),
        (Some("too_large"), Some("e2"))
    );

    let echo = client
        .send_message(&channel, &format!("  {}  ", "y".repeat(65536)), "e3")
        .await;
    assert_eq!(echo["text"].as_str().map(str::len), Some(65536));
    client.until_turn_ends().await;

    client
        .send(json!({"type": "message.send", "channel_id": "c_missing", "text": "hi", "client_msg_id": "e4"}))
        .await;
    let error = client.recv().await;
    assert_eq!(error["code"], "not_found");
    assert_eq!(error["channel_id"], "c_missing");
    assert_eq!(error["client_msg_id"], "e4");
}

#[tokio::test]
async fn send_without_channel_goes_to_general() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    client
        .send(json!({"type": "message.send", "text": "hi", "client_msg_id": "g1"}))
        .await;
    let created = client.recv().await;
    assert_eq!(created["type"], "channel.created");
    assert_eq!(created["channel"]["title"], "General");
    assert_eq!(created["auto"], false);
    let echo = client.recv().await;
    assert_eq!(echo["channel_id"], created["channel"]["channel_id"]);
    client.until_turn_ends().await;

    client
        .send(json!({"type": "message.send", "text": "again", "client_msg_id": "g2"}))
        .await;
    let echo = client.recv().await;
    assert_eq!(
        echo["type"], "message",
        "General exists now: no second channel.created"
    );
    assert_eq!(echo["seq"], 3);
    client.until_turn_ends().await;
}

#[tokio::test]
async fn every_scenario_sends_well_formed_frames() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("All scenarios").await;
    let scenarios = [
        "/demo help",
        "/demo commentary",
        "/demo long",
        "/demo all",
        "/demo xss",
        "/demo stream 20",
        "/demo bogus",
    ];
    for (i, text) in scenarios.iter().enumerate() {
        client.send_message(&channel, text, &format!("s{i}")).await;
        let frames = client.until_turn_ends().await;
        assert_eq!(
            frames[0],
            json!({"type": "typing", "channel_id": channel, "on": true}),
            "{text}"
        );
        for frame in &frames {
            let encoded = frame.to_string();
            assert!(
                encoded.len() < aria_protocol::MAX_FRAME_BYTES,
                "{text}: frame too big"
            );
            let decoded = aria_protocol::ServerFrame::decode(&encoded).expect("frame decodes");
            assert!(
                !matches!(decoded, aria_protocol::ServerFrame::Unknown),
                "{text}: {encoded}"
            );
        }
        let started: Vec<&Value> = of_type(&frames, "tool.start")
            .iter()
            .map(|f| &f["index"])
            .collect();
        let ended: Vec<&Value> = of_type(&frames, "tool.end")
            .iter()
            .map(|f| &f["index"])
            .collect();
        assert_eq!(started, ended, "{text}: every tool ends");
        let stops = of_type(&frames, "message.stop");
        assert_eq!(stops.len(), 1, "{text}");
        assert!(stops[0]["final_text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));
    }
    let history = client
        .history(json!({"channel_id": channel, "limit": 200}))
        .await;
    for item in history["items"].as_array().expect("items") {
        let page =
            json!({"type": "history", "channel_id": channel, "items": [item], "has_more": false});
        match aria_protocol::ServerFrame::decode(&page.to_string()).expect("page decodes") {
            aria_protocol::ServerFrame::History(h) => {
                assert!(h.items[0].seq().is_some(), "known item type: {item}")
            }
            other => panic!("not a history frame: {other:?}"),
        }
    }
}

//! Branches (§12) end to end with the demo agent: edit, regenerate and
//! select over a real socket, the active path that history reads, the
//! remembered branches, every refusal in its order, idempotency, search's
//! `on_path`, and the context the agent is given.

use std::time::Duration;

use crate::support::{seqs, types, Client, Gateway};
use serde_json::{json, Value};

/// Sends `text` and waits for its turn to end; returns the echo and the
/// turn's `message.stop`.
async fn exchange(client: &mut Client, channel: &str, text: &str, key: &str) -> (Value, Value) {
    let echo = client.send_message(channel, text, key).await;
    let stop = turn_stop(client).await;
    (echo, stop)
}

/// The `message.stop` of the turn under way, once it has ended.
async fn turn_stop(client: &mut Client) -> Value {
    let frames = client.until_turn_ends().await;
    frames
        .into_iter()
        .rfind(|f| f["type"] == "message.stop")
        .expect("the turn answered")
}

/// The newest page of the channel's active path.
async fn newest(client: &mut Client, channel: &str) -> Value {
    client
        .history(json!({"channel_id": channel, "limit": 200}))
        .await
}

async fn select(client: &mut Client, channel: &str, seq: u64) {
    client
        .send(json!({"type": "branch.select", "channel_id": channel, "seq": seq}))
        .await;
}

/// The error that answers the last request.
async fn error(client: &mut Client) -> Value {
    client.recv_type("error").await
}

fn item(page: &Value, seq: u64) -> &Value {
    page["items"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["seq"] == seq))
        .unwrap_or_else(|| panic!("no item {seq} in {page}"))
}

/// A thread of three exchanges: seqs 1..=6, user messages at 1, 3, 5.
async fn three_exchanges(client: &mut Client) -> (String, Vec<(Value, Value)>) {
    let channel = client.create_channel("Branches").await;
    let mut sent = Vec::new();
    for (n, text) in ["one", "two", "three"].iter().enumerate() {
        sent.push(exchange(client, &channel, text, &format!("{channel}-k{n}")).await);
    }
    (channel, sent)
}

#[tokio::test]
async fn editing_a_middle_message_forks_and_every_device_follows_the_path() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let (channel, sent) = three_exchanges(&mut client).await;
    let mut phone = gw.client().await;
    let listed = &phone.ready["channels"][0];
    assert_eq!(
        (listed["branch_rev"].clone(), listed["last_seq"].clone()),
        (json!(0), json!(6))
    );
    let page = newest(&mut client, &channel).await;
    assert_eq!(
        (seqs(&page), page["branch_rev"].clone()),
        (vec![1, 2, 3, 4, 5, 6], json!(0))
    );
    assert!(page["items"]
        .as_array()
        .expect("items")
        .iter()
        .all(|i| i.get("branch").is_none()));

    client
        .send(json!({"type": "message.edit", "channel_id": channel,
                     "message_id": sent[1].0["message_id"], "text": "  two, fixed ",
                     "client_msg_id": "edit-1"}))
        .await;
    let frames = client.until_turn_ends().await;
    let kinds = types(&frames);
    assert_eq!(
        &kinds[..3],
        ["branch.switched", "message", "typing"],
        "{kinds:?}"
    );
    let switched = &frames[0];
    assert_eq!(
        (
            &switched["fork_seq"],
            &switched["branch_rev"],
            &switched["cause"],
            &switched["channel_id"]
        ),
        (&json!(2), &json!(1), &json!("edit"), &json!(channel))
    );
    assert!(switched["device_id"].is_string());
    let echo = &frames[1];
    assert_eq!(
        (&echo["text"], &echo["seq"], &echo["client_msg_id"]),
        (&json!("two, fixed"), &json!(7), &json!("edit-1"))
    );
    assert_eq!(echo["branch"], json!({"siblings": [3, 7], "index": 1}));
    let stop = frames
        .iter()
        .rfind(|f| f["type"] == "message.stop")
        .expect("an answer");
    assert_eq!(stop["seq"], 8);
    assert!(
        stop.get("branch").is_none(),
        "the new turn has no sibling: {stop}"
    );

    // The other device saw the same switch, then the echo.
    let seen = phone
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "edit-1")
        .await;
    assert_eq!(types(&seen), ["branch.switched", "message"]);
    assert_eq!(seen[0]["fork_seq"], 2);
    phone.until_turn_ends().await;

    let page = newest(&mut phone, &channel).await;
    assert_eq!(
        (seqs(&page), page["branch_rev"].clone()),
        (vec![1, 2, 7, 8], json!(1))
    );
    assert_eq!(
        item(&page, 7)["branch"],
        json!({"siblings": [3, 7], "index": 1})
    );
    let after = phone
        .history(json!({"channel_id": channel, "after": 2}))
        .await;
    assert_eq!(seqs(&after), [7, 8]);
    let before = phone
        .history(json!({"channel_id": channel, "before": 7, "limit": 1}))
        .await;
    assert_eq!(
        (seqs(&before), before["has_more"].clone()),
        (vec![2], json!(true))
    );

    // Back to the first version: everything below it comes back.
    select(&mut phone, &channel, 3).await;
    let switched = client.recv_type("branch.switched").await;
    assert_eq!(
        (
            &switched["fork_seq"],
            &switched["branch_rev"],
            &switched["cause"]
        ),
        (&json!(2), &json!(2), &json!("select"))
    );
    let page = newest(&mut client, &channel).await;
    assert_eq!(seqs(&page), [1, 2, 3, 4, 5, 6]);
    assert_eq!(
        item(&page, 3)["branch"],
        json!({"siblings": [3, 7], "index": 0})
    );
    assert!(
        item(&page, 4).get("branch").is_none(),
        "the answer has no sibling"
    );

    // Already on the path: no switch.
    select(&mut client, &channel, 3).await;
    select(&mut client, &channel, 6).await;
    client.assert_quiet(Duration::from_millis(300)).await;

    // The item that is off the path now cannot be jumped to.
    let reply = client
        .history(json!({"channel_id": channel, "around": 8}))
        .await;
    assert_eq!(
        (&reply["type"], &reply["code"], &reply["channel_id"]),
        (&json!("error"), &json!("not_found"), &json!(channel))
    );

    // The path and its revision survive a reconnect and are listed.
    select(&mut client, &channel, 8).await;
    client.recv_type("branch.switched").await;
    let again = gw.client().await;
    let listed = &again.ready["channels"][0];
    let preview = aria_protocol::thread_preview(stop["final_text"].as_str().expect("text"));
    assert_eq!(
        (
            &listed["branch_rev"],
            &listed["last_seq"],
            &listed["preview"]
        ),
        (&json!(3), &json!(8), &json!(preview)),
        "the preview is the path's last message"
    );
    let page = newest(&mut client, &channel).await;
    assert_eq!(
        (seqs(&page), page["branch_rev"].clone()),
        (vec![1, 2, 7, 8], json!(3))
    );
}

#[tokio::test]
async fn regenerating_adds_sibling_turns_and_going_back_restores_the_branch_below() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let (channel, sent) = three_exchanges(&mut client).await;
    let first_turn = sent[0].1["turn_id"].clone();

    client
        .send(
            json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": first_turn,
                     "client_msg_id": "regen-1"}),
        )
        .await;
    let frames = client.until_turn_ends().await;
    let kinds = types(&frames);
    assert_eq!(
        &kinds[..2],
        ["branch.switched", "typing"],
        "no user echo: {kinds:?}"
    );
    assert_eq!(
        (&frames[0]["fork_seq"], &frames[0]["cause"]),
        (&json!(1), &json!("regenerate"))
    );
    let stop = frames
        .iter()
        .rfind(|f| f["type"] == "message.stop")
        .expect("an answer");
    assert_eq!(
        (&stop["seq"], &stop["branch"]),
        (&json!(7), &json!({"siblings": [2, 7], "index": 1}))
    );
    assert_ne!(stop["turn_id"], first_turn);
    let typing_on = &frames[1];
    assert_eq!(typing_on["on"], true);

    // A second regeneration of the new answer: a third sibling.
    client
        .send(
            json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": stop["turn_id"],
                     "client_msg_id": "regen-2"}),
        )
        .await;
    let third = turn_stop(&mut client).await;
    assert_eq!(
        (&third["seq"], &third["branch"]),
        (&json!(8), &json!({"siblings": [2, 7, 8], "index": 2}))
    );
    let page = newest(&mut client, &channel).await;
    assert_eq!(seqs(&page), [1, 8]);

    // A resent regeneration is ignored.
    client
        .send(
            json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": stop["turn_id"],
                     "client_msg_id": "regen-2"}),
        )
        .await;
    client.assert_quiet(Duration::from_millis(300)).await;

    // Back to the first answer: the two exchanges after it come back.
    select(&mut client, &channel, 2).await;
    let switched = client.recv_type("branch.switched").await;
    assert_eq!(switched["fork_seq"], 1);
    let page = newest(&mut client, &channel).await;
    assert_eq!(seqs(&page), [1, 2, 3, 4, 5, 6]);
    assert_eq!(
        item(&page, 2)["branch"],
        json!({"siblings": [2, 7, 8], "index": 0})
    );
    // And a message sent now continues that path.
    let (echo, _) = exchange(&mut client, &channel, "four", "k-four").await;
    assert_eq!(echo["seq"], 9);
    let page = newest(&mut client, &channel).await;
    assert_eq!(seqs(&page), [1, 2, 3, 4, 5, 6, 9, 10]);
}

#[tokio::test]
async fn refusals_come_in_the_contracts_order() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let (channel, sent) = three_exchanges(&mut client).await;
    let expect = |e: &Value, code: &str, key: Option<&str>| {
        assert_eq!(
            (&e["code"], &e["channel_id"]),
            (&json!(code), &json!(channel)),
            "{e}"
        );
        assert_eq!(e["client_msg_id"].as_str(), key, "{e}");
    };

    let edit = |message_id: &Value, key: &str| {
        json!({"type": "message.edit", "channel_id": channel, "message_id": message_id,
               "text": "changed", "client_msg_id": key})
    };
    client.send(edit(&json!("m_nope"), "e1")).await;
    expect(&error(&mut client).await, "not_found", Some("e1"));
    client.send(json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": "t_nope", "client_msg_id": "e2"})).await;
    expect(&error(&mut client).await, "not_found", Some("e2"));
    select(&mut client, &channel, 99).await;
    expect(&error(&mut client).await, "not_found", None);
    client
        .send(json!({"type": "branch.select", "channel_id": "c_nope", "seq": 1}))
        .await;
    assert_eq!(error(&mut client).await["code"], "not_found");
    // An assistant message cannot be edited.
    client.send(edit(&sent[0].1["message_id"], "e3")).await;
    expect(&error(&mut client).await, "bad_request", Some("e3"));
    // Nor can a message be emptied.
    client
        .send(json!({"type": "message.edit", "channel_id": channel, "message_id": sent[0].0["message_id"],
                     "text": "   ", "client_msg_id": "e4"}))
        .await;
    expect(&error(&mut client).await, "bad_request", Some("e4"));

    // While a turn runs: unknown ids are still not_found, the rest busy.
    client
        .send_message(&channel, "/demo approval", "k-wait")
        .await;
    let request = client.recv_type("approval.request").await;
    client.send(edit(&json!("m_nope"), "e5")).await;
    expect(&error(&mut client).await, "not_found", Some("e5"));
    client.send(edit(&sent[1].0["message_id"], "e6")).await;
    expect(&error(&mut client).await, "bad_request", Some("e6"));
    client.send(json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": sent[1].1["turn_id"], "client_msg_id": "e7"})).await;
    expect(&error(&mut client).await, "bad_request", Some("e7"));
    select(&mut client, &channel, 2).await;
    expect(&error(&mut client).await, "bad_request", None);
    client
        .send(json!({"type": "approval.respond", "channel_id": channel,
                     "request_id": request["request_id"], "choice": "deny"}))
        .await;
    client.until_turn_ends().await;

    // Off the active path: edit and regenerate are refused.
    client.send(edit(&sent[0].0["message_id"], "e8")).await;
    client.until_turn_ends().await;
    client.send(edit(&sent[1].0["message_id"], "e9")).await;
    expect(&error(&mut client).await, "bad_request", Some("e9"));
    client.send(json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": sent[2].1["turn_id"], "client_msg_id": "e10"})).await;
    expect(&error(&mut client).await, "bad_request", Some("e10"));
    client.assert_quiet(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn a_resent_edit_gets_its_echo_again_and_runs_nothing() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let (channel, sent) = three_exchanges(&mut client).await;
    let mut phone = gw.client().await;
    let edit = json!({"type": "message.edit", "channel_id": channel,
                      "message_id": sent[2].0["message_id"], "text": "three, again",
                      "client_msg_id": "edit-once"});
    client.send(edit.clone()).await;
    let frames = client.until_turn_ends().await;
    let echo = frames
        .iter()
        .find(|f| f["type"] == "message")
        .expect("echo")
        .clone();
    phone.until_turn_ends().await;
    client.send(edit).await;
    let again = client.recv().await;
    assert_eq!(
        (&again["type"], &again["seq"], &again["message_id"]),
        (&json!("message"), &echo["seq"], &echo["message_id"])
    );
    client.assert_quiet(Duration::from_millis(300)).await;
    phone.assert_quiet(Duration::from_millis(100)).await;
    let page = newest(&mut client, &channel).await;
    assert_eq!(seqs(&page), [1, 2, 3, 4, 7, 8]);
}

#[tokio::test]
async fn search_finds_every_branch_and_says_which_is_off_the_path() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Search").await;
    let (echo, _) = exchange(&mut client, &channel, "wombat first", "k1").await;
    client
        .send(
            json!({"type": "message.edit", "channel_id": channel, "message_id": echo["message_id"],
                     "text": "wombat second", "client_msg_id": "k2"}),
        )
        .await;
    client.until_turn_ends().await;
    client
        .send(json!({"type": "search", "query": "wombat", "channel_id": channel}))
        .await;
    let results = client.recv_type("search.results").await;
    let hits: Vec<(u64, bool)> = results["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter(|h| h["role"] == "user")
        .map(|h| {
            (
                h["seq"].as_u64().expect("seq"),
                h["on_path"].as_bool().expect("on_path"),
            )
        })
        .collect();
    assert_eq!(hits, [(3, true), (1, false)]);
}

#[tokio::test]
async fn the_demo_agent_is_given_the_active_path_up_to_its_message() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Context").await;
    let (_, alpha) = exchange(&mut client, &channel, "alpha", "k1").await;
    let (beta, _) = exchange(&mut client, &channel, "beta", "k2").await;
    let after_alpha = format!(
        "Context after {}:",
        alpha["turn_id"].as_str().expect("turn id")
    );
    exchange(&mut client, &channel, "gamma", "k3").await;
    client
        .send(
            json!({"type": "message.edit", "channel_id": channel, "message_id": beta["message_id"],
                     "text": "/demo context", "client_msg_id": "k4"}),
        )
        .await;
    let stop = turn_stop(&mut client).await;
    assert_eq!(
        stop["final_text"],
        format!("{after_alpha}\n1. alpha\n2. /demo context")
    );
    client
        .send(
            json!({"type": "turn.regenerate", "channel_id": channel, "turn_id": stop["turn_id"],
                     "client_msg_id": "k5"}),
        )
        .await;
    let again = turn_stop(&mut client).await;
    assert_eq!(
        again["final_text"], stop["final_text"],
        "the same context again"
    );
    // Queued messages take their place after the turns before them.
    client
        .send_message(&channel, "/demo commentary", "k6")
        .await;
    client.send_message(&channel, "/demo context", "k7").await;
    let frames = client
        .until(|f| {
            f["type"] == "message.stop"
                && f["final_text"].as_str().is_some_and(|t| t.contains("3."))
        })
        .await;
    let last = frames.last().expect("the queued turn's answer");
    let commentary_turn = frames
        .iter()
        .find(|f| f["type"] == "message.stop")
        .expect("the turn before it");
    assert_eq!(
        last["final_text"],
        format!(
            "Context after {}:\n1. alpha\n2. /demo context\n3. /demo commentary\n4. /demo context",
            commentary_turn["turn_id"].as_str().expect("turn id")
        )
    );
}

/// A data directory written before branches (the unversioned fixture):
/// every thread reads as one path, and branches like a new one.
#[tokio::test]
async fn an_old_data_dir_becomes_one_path_per_thread_and_branches() {
    let fixture = crate::support::manifest_dir().join("tests/fixtures/data-unversioned");
    let dir = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(fixture).expect("fixture") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
    }
    let server = aria_gateway::serve(crate::support::config(dir.path(), 1))
        .await
        .expect("the gateway starts on the old data dir");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let channels = client.ready["channels"]
        .as_array()
        .expect("channels")
        .clone();
    assert!(
        channels.iter().all(|c| c["branch_rev"] == 0),
        "{channels:?}"
    );
    for listed in &channels {
        let channel = listed["channel_id"].as_str().expect("id");
        let before = newest(&mut client, channel).await;
        assert_eq!(before["branch_rev"], 0);
        assert_eq!(
            seqs(&before).last().copied(),
            listed["last_seq"].as_u64(),
            "one path, all of it"
        );
        let Some(first) = before["items"]
            .as_array()
            .and_then(|items| items.iter().find(|i| i["role"] == "user"))
            .cloned()
        else {
            continue;
        };
        client
            .send(json!({"type": "message.edit", "channel_id": channel,
                         "message_id": first["message_id"], "text": "asked again",
                         "client_msg_id": format!("{channel}-edit")}))
            .await;
        let switched = client.recv_type("branch.switched").await;
        assert_eq!(switched["branch_rev"], 1);
        client.until_turn_ends().await;
        select(&mut client, channel, first["seq"].as_u64().expect("seq")).await;
        client.recv_type("branch.switched").await;
        let back = newest(&mut client, channel).await;
        assert_eq!(seqs(&back), seqs(&before), "the old path comes back whole");
    }
    drop(client);
    server.shutdown().await.expect("shutdown");
}

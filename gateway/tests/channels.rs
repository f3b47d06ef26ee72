//! Channels, auto-threading, history paging and persistence across restarts.

use crate::support::{config, seqs, Client, Gateway};
use serde_json::{json, Value};

fn error_of(frame: &Value) -> (&str, Option<&str>) {
    assert_eq!(frame["type"], "error", "{frame}");
    (
        frame["code"].as_str().unwrap_or(""),
        frame["channel_id"].as_str(),
    )
}

#[tokio::test]
async fn create_rename_delete_are_broadcast_and_checked() {
    let gw = Gateway::start(1).await;
    let mut a = gw.client().await;
    let mut b = gw.client().await;

    a.send(json!({"type": "channel.create", "title": "  Plans  ", "client_ref": "r1"}))
        .await;
    let created = a.recv().await;
    assert_eq!(created["type"], "channel.created");
    assert_eq!(
        (created["auto"].as_bool(), created["client_ref"].as_str()),
        (Some(false), Some("r1"))
    );
    let channel = &created["channel"];
    assert_eq!(channel["title"], "Plans");
    assert_eq!(channel["last_seq"], 0);
    assert!(channel["channel_id"]
        .as_str()
        .is_some_and(|id| id.starts_with("c_") && id.len() == 14));
    assert!(channel["created_at"].as_i64() > Some(0));
    assert_eq!(b.recv().await, created);
    let id = channel["channel_id"].as_str().expect("id").to_string();

    a.send(json!({"type": "channel.create"})).await;
    assert_eq!(a.recv().await["channel"]["title"], "New thread");
    b.recv().await;

    for bad in ["", "   ", &"x".repeat(121)] {
        a.send(json!({"type": "channel.rename", "channel_id": id, "title": bad}))
            .await;
        assert_eq!(error_of(&a.recv().await).0, "bad_request");
    }
    a.send(json!({"type": "channel.create", "title": " "}))
        .await;
    assert_eq!(error_of(&a.recv().await).0, "bad_request");
    let max = "é".repeat(120);
    a.send(json!({"type": "channel.rename", "channel_id": id, "title": max}))
        .await;
    assert_eq!(
        a.recv().await["title"],
        max,
        "120 characters (not bytes) is fine"
    );
    b.recv().await;
    a.send(json!({"type": "channel.rename", "channel_id": id, "title": " Trip "}))
        .await;
    let renamed = json!({"type": "channel.renamed", "channel_id": id, "title": "Trip"});
    assert_eq!(a.recv().await, renamed);
    assert_eq!(b.recv().await, renamed);
    a.send(json!({"type": "channel.rename", "channel_id": "c_nope", "title": "x"}))
        .await;
    assert_eq!(error_of(&a.recv().await), ("not_found", Some("c_nope")));

    a.send(json!({"type": "channel.list"})).await;
    let list = a.recv().await;
    let titles: Vec<&str> = list["channels"]
        .as_array()
        .expect("channels")
        .iter()
        .filter_map(|c| c["title"].as_str())
        .collect();
    assert_eq!(titles.len(), 2);
    assert!(titles.contains(&"Trip") && titles.contains(&"New thread"));

    a.send(json!({"type": "channel.delete", "channel_id": id}))
        .await;
    let deleted = json!({"type": "channel.deleted", "channel_id": id});
    assert_eq!(a.recv().await, deleted);
    assert_eq!(b.recv().await, deleted);
    a.send(json!({"type": "channel.delete", "channel_id": id}))
        .await;
    assert_eq!(error_of(&a.recv().await), ("not_found", Some(id.as_str())));
    let history = a.history(json!({"channel_id": id})).await;
    assert_eq!(error_of(&history).0, "not_found");
    b.assert_quiet(std::time::Duration::from_millis(50)).await;
}

#[tokio::test]
async fn auto_thread_is_created_before_the_echo_and_renamed_later() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let text = "Please summarize the architecture of this repository and list its main modules\nsecond line";
    client
        .send(json!({"type": "message.send", "text": text, "client_msg_id": "a1", "auto_thread": true}))
        .await;
    let created = client.recv().await;
    assert_eq!(created["type"], "channel.created");
    assert_eq!(created["auto"], true);
    assert_eq!(created["client_msg_id"], "a1");
    assert_eq!(created["channel"]["auto"], true);
    let derived = "Please summarize the architecture of this…";
    assert_eq!(created["channel"]["title"], derived);
    let channel_id = created["channel"]["channel_id"]
        .as_str()
        .expect("id")
        .to_string();

    let echo = client.recv().await;
    assert_eq!(
        (echo["type"].as_str(), echo["client_msg_id"].as_str()),
        (Some("message"), Some("a1"))
    );
    assert_eq!(echo["channel_id"], channel_id);
    assert_eq!(echo["seq"], 1);

    let renamed = client.recv_type("channel.renamed").await;
    assert_eq!(renamed["channel_id"], channel_id);
    assert_eq!(renamed["auto"], true);
    let better = renamed["title"].as_str().expect("title");
    assert_ne!(better, derived);
    assert!((1..=120).contains(&better.chars().count()));

    client.send(json!({"type": "channel.list"})).await;
    let list = client
        .until(|f| f["type"] == "channel.list")
        .await
        .pop()
        .expect("list");
    let channel = &list["channels"][0];
    assert_eq!(
        (channel["title"].as_str(), channel["auto"].as_bool()),
        (Some(better), Some(true))
    );
}

#[tokio::test]
async fn short_auto_thread_title_is_the_whole_first_line() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    client
        .send(json!({"type": "message.send", "text": "  trip to Lisbon  \nmore", "client_msg_id": "a2", "auto_thread": true}))
        .await;
    assert_eq!(client.recv().await["channel"]["title"], "trip to Lisbon");
}

/// A channel with `count * 125` items: each `/demo flood 123` turn logs the
/// echo, 123 tool calls and the answer.
async fn channel_with_items(client: &mut Client, floods: usize) -> String {
    let channel = client.create_channel("Paging").await;
    for i in 0..floods {
        client
            .send_message(&channel, "/demo flood 123", &format!("p{i}"))
            .await;
        client.until_turn_ends().await;
    }
    channel
}

#[tokio::test]
async fn history_paging_edges() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;

    let empty = client.create_channel("Empty").await;
    let page = client.history(json!({"channel_id": empty})).await;
    assert_eq!(
        page,
        json!({"type": "history", "channel_id": empty, "items": [], "has_more": false, "branch_rev": 0})
    );

    let channel = channel_with_items(&mut client, 2).await;
    let range = |a: u64, b: u64| (a..=b).collect::<Vec<u64>>();
    let page = |before: Option<u64>, after: Option<u64>, limit: Option<u32>| {
        let mut req = json!({"channel_id": channel});
        if let Some(b) = before {
            req["before"] = json!(b);
        }
        if let Some(a) = after {
            req["after"] = json!(a);
        }
        if let Some(l) = limit {
            req["limit"] = json!(l);
        }
        req
    };

    let newest = client.history(page(None, None, None)).await;
    assert_eq!(
        (seqs(&newest), newest["has_more"].as_bool()),
        (range(201, 250), Some(true))
    );
    let items = newest["items"].as_array().expect("items");
    assert_eq!(items.last().expect("item")["type"], "message");
    assert_eq!(items[0]["type"], "tool");

    let max = client.history(page(None, None, Some(200))).await;
    assert_eq!(
        (seqs(&max), max["has_more"].as_bool()),
        (range(51, 250), Some(true))
    );
    let older = client.history(page(Some(51), None, Some(200))).await;
    assert_eq!(
        (seqs(&older), older["has_more"].as_bool()),
        (range(1, 50), Some(false))
    );
    let exact = client.history(page(Some(51), None, Some(50))).await;
    assert_eq!(
        (seqs(&exact), exact["has_more"].as_bool()),
        (range(1, 50), Some(false)),
        "exactly one page"
    );
    let first = client.history(page(Some(2), None, None)).await;
    assert_eq!(
        (seqs(&first), first["has_more"].as_bool()),
        (vec![1], Some(false))
    );
    assert_eq!(first["items"][0]["role"], "user");
    let none = client.history(page(Some(1), None, None)).await;
    assert_eq!(
        (seqs(&none), none["has_more"].as_bool()),
        (vec![], Some(false))
    );

    let gap = client.history(page(None, Some(0), Some(200))).await;
    assert_eq!(
        (seqs(&gap), gap["has_more"].as_bool()),
        (range(1, 200), Some(true))
    );
    let rest = client.history(page(None, Some(200), Some(200))).await;
    assert_eq!(
        (seqs(&rest), rest["has_more"].as_bool()),
        (range(201, 250), Some(false))
    );
    let past_end = client.history(page(None, Some(250), None)).await;
    assert_eq!(
        (seqs(&past_end), past_end["has_more"].as_bool()),
        (vec![], Some(false))
    );
    let middle = client.history(page(None, Some(100), Some(3))).await;
    assert_eq!(
        (seqs(&middle), middle["has_more"].as_bool()),
        (range(101, 103), Some(true))
    );

    for limit in [0, 201] {
        let reply = client.history(page(None, None, Some(limit))).await;
        assert_eq!(
            error_of(&reply),
            ("bad_request", Some(channel.as_str())),
            "limit {limit}"
        );
    }
    let both = client.history(page(Some(10), Some(1), None)).await;
    assert_eq!(error_of(&both).0, "bad_request");
    let missing = client.history(json!({"channel_id": "c_missing"})).await;
    assert_eq!(error_of(&missing), ("not_found", Some("c_missing")));
}

#[tokio::test]
async fn channels_and_history_survive_a_restart_and_seq_continues() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = aria_gateway::serve(config(dir.path(), 1))
        .await
        .expect("start");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let channel = client.create_channel("Kept").await;
    client.send_message(&channel, "remember me", "k1").await;
    client.until_turn_ends().await;
    let before = client.history(json!({"channel_id": channel})).await;
    server.shutdown().await.expect("shutdown");

    let server = aria_gateway::serve(config(dir.path(), 1))
        .await
        .expect("restart");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let listed = &client.ready["channels"][0];
    assert_eq!(listed["channel_id"], channel);
    assert_eq!(listed["title"], "Kept");
    assert_eq!(listed["last_seq"], 2);
    assert!(listed["preview"].is_string());
    let after = client.history(json!({"channel_id": channel})).await;
    assert_eq!(after, before);

    let echo = client.send_message(&channel, "and me", "k2").await;
    assert_eq!(echo["seq"], 3);
    // The old client_msg_id is still known after the restart.
    client.until_turn_ends().await;
    client
        .send(json!({"type": "message.send", "channel_id": channel, "text": "remember me", "client_msg_id": "k1"}))
        .await;
    assert_eq!(client.recv().await["seq"], 1);
    server.shutdown().await.expect("shutdown");
}

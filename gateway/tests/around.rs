//! `history.get {around}` (§6) over real WebSockets, and the echoes and
//! `has_newer` of every `history` reply.

use crate::support::{config, seqs, Client};
use aria_gateway::{seed_channel, serve, SEEDED_CHANNEL};
use serde_json::{json, Value};

fn range(a: u64, b: u64) -> Vec<u64> {
    (a..=b).collect()
}

async fn around(client: &mut Client, seq: u64, limit: Option<u32>) -> Value {
    let mut req = json!({"channel_id": SEEDED_CHANNEL, "around": seq});
    if let Some(limit) = limit {
        req["limit"] = json!(limit);
    }
    let page = client.history(req).await;
    assert_eq!(page["type"], "history", "{page}");
    assert_eq!(page["around"], seq, "around is echoed");
    assert!(page.get("before").is_none() && page.get("after").is_none());
    page
}

fn flags(page: &Value) -> (Vec<u64>, bool, bool) {
    (
        seqs(page),
        page["has_more"].as_bool().expect("has_more"),
        page["has_newer"].as_bool().expect("has_newer"),
    )
}

#[tokio::test]
async fn around_pages_are_centred_and_say_what_lies_on_each_side() {
    let dir = tempfile::tempdir().expect("temp dir");
    seed_channel(dir.path(), 300, 0).expect("seed");
    let server = serve(config(dir.path(), 1)).await.expect("start");
    let mut client = Client::connect(&server.ws_url(), None).await;

    // Default limit 50: 25 older, then N first and 24 newer.
    let page = around(&mut client, 150, None).await;
    assert_eq!(flags(&page), (range(125, 174), true, true));
    assert_eq!(
        page["items"][25]["seq"], 150,
        "N comes right after the older half"
    );
    assert_eq!(
        flags(&around(&mut client, 150, Some(7)).await),
        (range(147, 153), true, true)
    );
    assert_eq!(
        flags(&around(&mut client, 150, Some(1)).await),
        (vec![150], true, true)
    );
    assert_eq!(
        flags(&around(&mut client, 150, Some(200)).await),
        (range(50, 249), true, true)
    );

    // Fewer older than half: newer ones fill the page.
    assert_eq!(
        flags(&around(&mut client, 3, Some(10)).await),
        (range(1, 10), false, true)
    );
    assert_eq!(
        flags(&around(&mut client, 1, Some(10)).await),
        (range(1, 10), false, true)
    );
    assert_eq!(
        flags(&around(&mut client, 6, Some(10)).await),
        (range(1, 10), false, true)
    );
    assert_eq!(
        flags(&around(&mut client, 0, Some(10)).await),
        (range(1, 10), false, true)
    );

    // Fewer newer than half: older ones stay at floor(limit / 2).
    assert_eq!(
        flags(&around(&mut client, 300, Some(10)).await),
        (range(295, 300), true, false)
    );
    assert_eq!(
        flags(&around(&mut client, 296, Some(10)).await),
        (range(291, 300), true, false)
    );
    assert_eq!(
        flags(&around(&mut client, 295, Some(10)).await),
        (range(290, 299), true, true)
    );
    assert_eq!(
        flags(&around(&mut client, 9_999, Some(10)).await),
        (range(296, 300), true, false)
    );
    let huge = around(&mut client, u64::MAX, Some(4)).await;
    assert_eq!(flags(&huge), (range(299, 300), true, false));

    assert_eq!(
        flags(&around(&mut client, 100, Some(200)).await),
        (range(1, 200), false, true)
    );
    // A log smaller than the page: all of it.
    let small = client.create_channel("Small").await;
    client.send_message(&small, "one", "s1").await;
    client.until_turn_ends().await;
    let page = client
        .history(json!({"channel_id": small, "around": 1, "limit": 10}))
        .await;
    assert_eq!(flags(&page), (vec![1, 2], false, false));
    let empty = client.create_channel("Empty").await;
    let page = client
        .history(json!({"channel_id": empty, "around": 5}))
        .await;
    assert_eq!(flags(&page), (vec![], false, false));
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn around_is_checked_like_the_other_anchors() {
    let dir = tempfile::tempdir().expect("temp dir");
    seed_channel(dir.path(), 20, 0).expect("seed");
    let server = serve(config(dir.path(), 1)).await.expect("start");
    let mut client = Client::connect(&server.ws_url(), None).await;
    for anchors in [
        json!({"before": 5, "around": 3}),
        json!({"after": 1, "around": 3}),
        json!({"before": 5, "after": 1}),
        json!({"before": 5, "after": 1, "around": 3}),
    ] {
        let mut req = anchors.clone();
        req["channel_id"] = json!(SEEDED_CHANNEL);
        let reply = client.history(req).await;
        assert_eq!(
            (reply["type"].as_str(), reply["code"].as_str()),
            (Some("error"), Some("bad_request")),
            "{anchors}: {reply}"
        );
        assert_eq!(reply["channel_id"], SEEDED_CHANNEL);
    }
    for limit in [0, 201] {
        let reply = client
            .history(json!({"channel_id": SEEDED_CHANNEL, "around": 3, "limit": limit}))
            .await;
        assert_eq!(reply["code"], "bad_request", "{reply}");
    }
    let missing = client
        .history(json!({"channel_id": "c_missing", "around": 3}))
        .await;
    assert_eq!(
        (missing["code"].as_str(), missing["channel_id"].as_str()),
        (Some("not_found"), Some("c_missing"))
    );
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn every_history_reply_echoes_its_anchor_and_after_says_has_newer() {
    let dir = tempfile::tempdir().expect("temp dir");
    seed_channel(dir.path(), 20, 0).expect("seed");
    let server = serve(config(dir.path(), 1)).await.expect("start");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let get = |extra: Value| {
        let mut req = extra;
        req["channel_id"] = json!(SEEDED_CHANNEL);
        req["limit"] = json!(5);
        req
    };
    let newest = client.history(get(json!({}))).await;
    assert_eq!(seqs(&newest), range(16, 20));
    for key in ["before", "after", "around", "has_newer"] {
        assert!(newest.get(key).is_none(), "{key}: {newest}");
    }
    let before = client.history(get(json!({"before": 10}))).await;
    assert_eq!(
        (seqs(&before), before["before"].as_u64()),
        (range(5, 9), Some(10))
    );
    assert!(before.get("has_newer").is_none());
    let after = client.history(get(json!({"after": 10}))).await;
    assert_eq!(
        (seqs(&after), after["after"].as_u64()),
        (range(11, 15), Some(10))
    );
    assert_eq!(
        (after["has_more"].as_bool(), after["has_newer"].as_bool()),
        (Some(true), Some(true))
    );
    let last = client.history(get(json!({"after": 15}))).await;
    assert_eq!(
        (last["has_more"].as_bool(), last["has_newer"].as_bool()),
        (Some(false), Some(false))
    );
    server.shutdown().await.expect("shutdown");
}

//! `search` (§10) over real WebSockets: matching, order, paging, snippets,
//! validation and errors, scoping, and the index across restarts.

use std::collections::HashSet;
use std::time::Duration;

use crate::support::{config, Client, Gateway};
use aria_gateway::{seed_channel, serve, SEEDED_CHANNEL};
use serde_json::{json, Value};

/// Sends `search` and returns its `search.results` or `error`.
async fn search(client: &mut Client, request: Value) -> Value {
    let mut request = request;
    request["type"] = json!("search");
    client.send(request).await;
    client
        .until(|f| f["type"] == "search.results" || f["type"] == "error")
        .await
        .pop()
        .expect("reply")
}

fn hits(results: &Value) -> &Vec<Value> {
    assert_eq!(results["type"], "search.results", "{results}");
    results["hits"].as_array().expect("hits")
}

/// Every page of a search, following the cursor: all hits in order.
async fn all_pages(client: &mut Client, request: Value) -> (Vec<Value>, usize) {
    let mut request = request;
    let (mut all, mut pages) = (Vec::new(), 0);
    loop {
        let results = search(client, request.clone()).await;
        pages += 1;
        all.extend(hits(&results).iter().cloned());
        match results["cursor"].as_str() {
            Some(cursor) => request["cursor"] = json!(cursor),
            None => return (all, pages),
        }
        assert!(pages < 1000, "the cursor never ends");
    }
}

/// A gateway over a data dir whose `c_seed` holds `items` logged items.
async fn seeded(items: u64) -> (aria_gateway::RunningServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    seed_channel(dir.path(), items, 0).expect("seed");
    let server = serve(config(dir.path(), 1)).await.expect("start");
    (server, dir)
}

/// The searched text a hit stands for, fetched with `history.get {around}`.
async fn item_text(client: &mut Client, hit: &Value) -> String {
    let page = client
        .history(json!({"channel_id": hit["channel_id"], "around": hit["seq"], "limit": 1}))
        .await;
    let item = &page["items"][0];
    assert_eq!(item["seq"], hit["seq"], "{page}");
    match item["type"].as_str() {
        Some("tool") => [
            &item["name"],
            &item["preview"],
            &item["output_preview"],
            &item["output"],
        ]
        .iter()
        .filter_map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join("\n"),
        _ => format!(
            "{}\n{}",
            item["text"].as_str().unwrap_or(""),
            item["reasoning"].as_str().unwrap_or("")
        ),
    }
}

fn assert_error(frame: &Value, code: &str, query: &str) {
    assert_eq!(frame["type"], "error", "{frame}");
    assert_eq!(frame["code"], code, "{frame}");
    assert_eq!(
        frame["query"], query,
        "an error about a search carries its query"
    );
}

#[tokio::test]
async fn hits_hold_every_word_newest_first_and_go_to_the_asker_only() {
    let (server, _dir) = seeded(400).await;
    let mut a = Client::connect(&server.ws_url(), None).await;
    let mut b = Client::connect(&server.ws_url(), None).await;
    let other = a.create_channel("Zoo").await;
    b.recv_type("channel.created").await;
    a.send_message(&other, "The Quokka can HANDLE errors with a smile", "q1")
        .await;
    a.until_turn_ends().await;
    b.until_turn_ends().await;

    let results = search(&mut a, json!({"query": "  handle ERRORS "})).await;
    assert_eq!(results["query"], "  handle ERRORS ", "echoed as sent");
    assert!(results.get("channel_id").is_none());
    let found = hits(&results);
    assert_eq!(found.len(), 20, "default limit");
    // The new message and its answer are the newest items.
    assert_eq!(found[0]["channel_id"], other);
    assert_eq!(
        (found[0]["kind"].as_str(), found[0]["role"].as_str()),
        (Some("message"), Some("assistant"))
    );
    assert_eq!(
        (found[1]["seq"].as_u64(), found[1]["role"].as_str()),
        (Some(1), Some("user"))
    );
    assert_eq!(found[2]["channel_id"], SEEDED_CHANNEL);
    let ts: Vec<i64> = found
        .iter()
        .map(|h| h["ts"].as_i64().expect("ts"))
        .collect();
    assert!(ts.windows(2).all(|w| w[0] >= w[1]), "newest first: {ts:?}");
    for hit in found {
        let snippet = hit["snippet"].as_str().expect("snippet").to_lowercase();
        assert!(snippet.contains("handle"), "{snippet}");
        let text = item_text(&mut a, hit).await.to_lowercase();
        assert!(text.contains("handle") && text.contains("errors"), "{text}");
    }
    b.assert_quiet(Duration::from_millis(100)).await;
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn the_cursor_pages_through_every_hit_once_and_limit_is_clamped() {
    let (server, _dir) = seeded(400).await;
    let mut client = Client::connect(&server.ws_url(), None).await;
    // 80 turns, each with one question that says "handle errors".
    let (all, pages) = all_pages(&mut client, json!({"query": "handle errors", "limit": 7})).await;
    assert_eq!(all.len(), 80);
    assert_eq!(pages, 12);
    let keys: HashSet<(String, u64)> = all
        .iter()
        .map(|h| {
            (
                h["channel_id"].as_str().unwrap_or("").to_string(),
                h["seq"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(keys.len(), 80, "no hit twice");
    let seqs: Vec<u64> = all.iter().filter_map(|h| h["seq"].as_u64()).collect();
    assert_eq!(seqs, (0..80).rev().map(|t| t * 5 + 1).collect::<Vec<_>>());
    assert!(all
        .iter()
        .all(|h| h["kind"] == "message" && h["role"] == "user"));

    let one = search(&mut client, json!({"query": "handle errors", "limit": 0})).await;
    assert_eq!(hits(&one).len(), 1);
    assert!(one["cursor"].is_string());
    let max = search(&mut client, json!({"query": "module", "limit": 10_000})).await;
    assert_eq!(hits(&max).len(), 50);
    let fifty = search(&mut client, json!({"query": "handle errors", "limit": 50})).await;
    let cursor = fifty["cursor"].as_str().expect("cursor").to_string();
    let rest = search(
        &mut client,
        json!({"query": "handle errors", "limit": 50, "cursor": cursor}),
    )
    .await;
    assert_eq!(hits(&rest).len(), 30);
    assert!(rest.get("cursor").is_none(), "last page: {rest}");
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn bad_queries_and_cursors_are_bad_requests_that_carry_the_query() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    for query in [
        "",
        "   ",
        "\n\t",
        &"x".repeat(201),
        &format!(" {} ", "é".repeat(201)),
    ] {
        let reply = search(&mut client, json!({"query": query})).await;
        assert_error(&reply, "bad_request", query);
    }
    let longest = format!("  {}  ", "é".repeat(200));
    let ok = search(&mut client, json!({"query": longest})).await;
    assert_eq!(ok["query"], longest);
    assert!(hits(&ok).is_empty());

    for cursor in [
        "",
        "garbage",
        "k",
        "kzzzzzzzzzzzzzzzz",
        "kffffffffffffffff",
        "' OR 1=1 --",
    ] {
        let reply = search(&mut client, json!({"query": "x", "cursor": cursor})).await;
        assert_error(&reply, "bad_request", "x");
    }
    let reply = search(&mut client, json!({"query": "x", "channel_id": "c_nope"})).await;
    assert_error(&reply, "not_found", "x");
    assert_eq!(reply["channel_id"], "c_nope");
    assert!(hits(&search(&mut client, json!({"query": "x"})).await).is_empty());
}

#[tokio::test]
async fn hostile_queries_never_break_the_search() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Hostile").await;
    let text = "NEAR the AND gate: col:x (paren) \"quoted\" star* c++ 日本語テキスト naïve";
    client.send_message(&channel, text, "h1").await;
    client.until_turn_ends().await;
    for query in [
        "\"",
        "\"\"\"",
        "'",
        "*",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(gate star)",
        "gate OR x",
        "body:gate",
        "col:x",
        "(",
        ")",
        "(paren",
        "^gate",
        "-gate",
        "+",
        "{col}: x",
        "a\"b",
        "\\",
        "%",
        "_",
        "'; DROP TABLE log; --",
        "\u{0}",
        "🎉",
        "x*y",
        ":",
        "AND OR NOT NEAR",
        "日本語",
        "NAÏVE",
        "c++",
        "star*",
        "\u{202e}gate",
    ] {
        let results = search(&mut client, json!({"query": query, "channel_id": channel})).await;
        assert_eq!(results["query"], query);
        // One short message (and its answer quoting it): snippets are whole.
        for hit in hits(&results) {
            let text = hit["snippet"].as_str().expect("snippet").to_lowercase();
            for word in query.split_whitespace() {
                let word = word.trim_matches(|c: char| "\"'`()[]{}<>,.;:!?".contains(c));
                assert!(text.contains(&word.to_lowercase()), "{query:?}: {text}");
            }
        }
    }
    for (query, want) in [
        ("near and", true),
        ("col:x", true),
        ("\"quoted\"", true),
        ("c++", true),
        ("日本語", true),
        ("NAÏVE", true),
        ("naive", false),
        ("gate OR nothing", false),
    ] {
        let results = search(&mut client, json!({"query": query, "channel_id": channel})).await;
        assert_eq!(!hits(&results).is_empty(), want, "{query:?}: {results}");
    }
}

#[tokio::test]
async fn the_snippet_is_short_plain_text_around_the_first_match() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Long").await;
    let text = format!(
        "{}\n\nThe **wombat** burrow\tis here.\n\n{}",
        "Lorem ipsum dolor sit amet. ".repeat(300),
        "Ünïcödé tail 🎉 ".repeat(300)
    );
    client.send_message(&channel, &text, "l1").await;
    client.until_turn_ends().await;
    let results = search(
        &mut client,
        json!({"query": "WOMBAT", "channel_id": channel}),
    )
    .await;
    assert_eq!(results["channel_id"], channel);
    let user = hits(&results)
        .iter()
        .find(|h| h["role"] == "user")
        .expect("the user message");
    let snippet = user["snippet"].as_str().expect("snippet");
    assert!(
        snippet.chars().count() <= 200,
        "{}",
        snippet.chars().count()
    );
    assert!(
        snippet.contains("The **wombat** burrow is here."),
        "{snippet}"
    );
    assert!(
        snippet.starts_with('…') && snippet.ends_with('…'),
        "{snippet}"
    );
    assert!(!snippet.contains('\n') && !snippet.contains('\t'));
    let emoji = search(&mut client, json!({"query": "tail", "channel_id": channel})).await;
    for hit in hits(&emoji) {
        assert!(hit["snippet"].as_str().expect("snippet").chars().count() <= 200);
    }
}

#[tokio::test]
async fn scoping_deleting_and_live_items() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let one = client.create_channel("One").await;
    let two = client.create_channel("Two").await;
    client.send_message(&one, "numbat in one", "n1").await;
    client.until_turn_ends().await;
    client.send_message(&two, "numbat in two", "n2").await;
    client.until_turn_ends().await;
    // Tool names, previews and outputs are searched too.
    client.send_message(&two, "/demo flood 3", "n3").await;
    client.until_turn_ends().await;

    let all = search(&mut client, json!({"query": "numbat"})).await;
    assert_eq!(hits(&all).len(), 4, "messages and answers of both");
    let scoped = search(&mut client, json!({"query": "numbat", "channel_id": one})).await;
    assert_eq!(scoped["channel_id"], one);
    assert!(hits(&scoped).iter().all(|h| h["channel_id"] == one));
    assert_eq!(hits(&scoped).len(), 2);
    for (query, count) in [("read_file", 3), ("module_0002", 1), ("22 lines", 1)] {
        let tools = search(&mut client, json!({"query": query, "channel_id": two})).await;
        let tools = hits(&tools);
        assert_eq!(tools.len(), count, "{query}: {tools:?}");
        assert!(tools
            .iter()
            .all(|t| t["kind"] == "tool" && t.get("role").is_none()));
    }

    client
        .send(json!({"type": "channel.delete", "channel_id": one}))
        .await;
    client.recv_type("channel.deleted").await;
    let after = search(&mut client, json!({"query": "numbat"})).await;
    assert!(
        hits(&after).iter().all(|h| h["channel_id"] == two),
        "{after}"
    );
    assert_eq!(hits(&after).len(), 2);
    let gone = search(&mut client, json!({"query": "numbat", "channel_id": one})).await;
    assert_error(&gone, "not_found", "numbat");
}

#[tokio::test]
async fn the_index_survives_a_restart_and_is_rebuilt_where_it_is_missing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = serve(config(dir.path(), 1)).await.expect("start");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let channel = client.create_channel("Kept").await;
    client
        .send_message(&channel, "a bilby remembers", "b1")
        .await;
    client.until_turn_ends().await;
    server.shutdown().await.expect("shutdown");

    let server = serve(config(dir.path(), 1)).await.expect("restart");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let kept = search(&mut client, json!({"query": "bilby"})).await;
    assert_eq!(hits(&kept).len(), 2);
    server.shutdown().await.expect("shutdown");

    // A data dir from before search: the log without the index tables.
    let db = rusqlite::Connection::open(dir.path().join("aria.sqlite3")).expect("open");
    db.execute_batch("DROP TABLE search_fts; DROP TABLE search_docs;")
        .expect("drop the index");
    drop(db);
    let server = serve(config(dir.path(), 1)).await.expect("restart");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let rebuilt = search(&mut client, json!({"query": "BILBY remembers"})).await;
    assert_eq!(hits(&rebuilt), hits(&kept));
    server.shutdown().await.expect("shutdown");
}

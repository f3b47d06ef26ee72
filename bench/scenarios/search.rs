//! Search: `search` round trips over a WebSocket to the gateway, on the
//! seeded channel of the huge-thread scenario (100,000 items in a full run),
//! and the log's append rate with the search index kept in step. No browser:
//! this measures the gateway.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use super::thread::SEEDED_CHANNEL;
use super::Sizes;
use crate::measure::{max, median, percentile};
use crate::report::{Report, Target};
use crate::support::Gateway;

const SCENARIO: &str = "Search";
/// Between two queries: the gateway allows 20 frames/s per connection.
const PACE: Duration = Duration::from_millis(55);
/// Queries over the seeded turns (question, commentary, two tool calls,
/// answer): very common words, rarer ones, phrases with punctuation,
/// prefixes, one-character words and words found nowhere.
const QUERIES: &[&str] = &[
    "errors",
    "handle errors",
    "parse_header",
    "retry loop",
    "module 4242",
    "src/module_1234.rs",
    "cargo test",
    "Error::Empty",
    "swallows the last error",
    "modu",
    "1",
    "e",
    "zebra",
    "lines 42",
    "Question 777",
    "what would you change?",
];

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn run(gateway: &Gateway, sizes: Sizes, report: &mut Report) {
    let (mut ws, _) = tokio_tungstenite::connect_async(gateway.ws_url())
        .await
        .expect("bench: connect to the gateway");
    send(&mut ws, json!({"type": "hello", "device_id": "bench-search", "client": "aria-bench/0", "protocol": 1})).await;
    let ready = reply(&mut ws, "ready").await;
    report.check(SCENARIO, "the gateway said ready", ready["type"] == "ready");

    let mut times = Vec::new();
    let mut by_query: Vec<(String, Vec<f64>)> = Vec::new();
    let mut ok = true;
    for round in 0..sizes.search_rounds {
        for (i, query) in QUERIES.iter().enumerate() {
            // Every other round in the seeded channel only; every third
            // query asks for its second page.
            let mut request = json!({"type": "search", "query": query});
            if round % 2 == 1 {
                request["channel_id"] = json!(SEEDED_CHANNEL);
            }
            let pages = if i % 3 == 0 { 2 } else { 1 };
            for _ in 0..pages {
                let (ms, results) = timed(&mut ws, &request).await;
                ok &= hits_hold_the_words(&results, query);
                times.push(ms);
                match by_query.iter_mut().find(|(q, _)| q == query) {
                    Some((_, t)) => t.push(ms),
                    None => by_query.push((query.to_string(), vec![ms])),
                }
                match results["cursor"].as_str() {
                    Some(cursor) => request["cursor"] = json!(cursor),
                    None => request["cursor"] = Value::Null,
                }
                tokio::time::sleep(PACE).await;
            }
        }
    }
    let expected = sizes.search_rounds * (QUERIES.len() + QUERIES.len().div_ceil(3));
    report.check(
        SCENARIO,
        format!("all {expected} searches answered with hits that hold every word"),
        ok && times.len() == expected,
    );
    let common = timed(
        &mut ws,
        &json!({"type": "search", "query": "handle errors"}),
    )
    .await
    .1;
    report.check(
        SCENARIO,
        "a common query fills a page of 20 hits",
        common["hits"].as_array().map(Vec::len) == Some(20),
    );
    report.metric(
        SCENARIO,
        format!("search round trip p95 ({} items logged)", sizes.seed_items),
        percentile(&times, 95.0),
        "ms",
        Some(Target::AtMost(20.0)),
    );
    report.metric(
        SCENARIO,
        "search round trip p50",
        median(&times),
        "ms",
        None,
    );
    let slowest = by_query
        .iter()
        .map(|(q, t)| format!("{q:?} {:.1}", median(t)))
        .collect::<Vec<_>>()
        .join(", ");
    report.note(
        SCENARIO,
        format!(
            "{} searches over one WebSocket ({} rounds of {} queries, every other round in the seeded channel only, a third of them with their second page), one every {} ms (the gateway's rate limit), timed from send to `search.results`; slowest {:.1} ms; median ms per query: {slowest}",
            times.len(),
            sizes.search_rounds,
            QUERIES.len(),
            PACE.as_millis(),
            max(&times),
        ),
    );
    match seed_rate(&gateway.output()) {
        Some(per_sec) => report.metric(
            SCENARIO,
            "bulk append with the index (seeding, one transaction)",
            per_sec,
            "items/s",
            None,
        ),
        None => report.note(
            SCENARIO,
            "the gateway did not log its seeding rate (channel existed)",
        ),
    }
}

/// One search and its reply, with the round trip in ms.
async fn timed(ws: &mut Socket, request: &Value) -> (f64, Value) {
    let started = Instant::now();
    send(ws, request.clone()).await;
    let results = reply(ws, "search.results").await;
    (started.elapsed().as_secs_f64() * 1000.0, results)
}

/// Whether every hit's snippet holds a word of the query (the gateway
/// checks every word against the whole item; the snippet shows the first).
fn hits_hold_the_words(results: &Value, query: &str) -> bool {
    let Some(hits) = results["hits"].as_array() else {
        return false;
    };
    let words: Vec<String> = query
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| "\"'`()[]{}<>,.;:!?".contains(c))
                .to_lowercase()
        })
        .collect();
    hits.iter().all(|h| {
        let snippet = h["snippet"].as_str().unwrap_or("").to_lowercase();
        words.iter().any(|w| snippet.contains(w.as_str()))
    })
}

/// `per_sec=` of the gateway's "seeded a channel" log line.
fn seed_rate(output: &str) -> Option<f64> {
    let line = output.lines().find(|l| l.contains("seeded a channel"))?;
    let rest = &line[line.find("per_sec=")? + "per_sec=".len()..];
    rest.split_whitespace().next()?.parse().ok()
}

pub async fn send(ws: &mut Socket, frame: Value) {
    ws.send(Message::text(frame.to_string()))
        .await
        .expect("bench: send to the gateway");
}

/// The next frame of type `ty` (or an error frame), within 30 s.
pub async fn reply(ws: &mut Socket, ty: &str) -> Value {
    let wait = async {
        while let Some(message) = ws.next().await {
            if let Ok(Message::Text(text)) = message {
                let frame: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                if frame["type"] == ty || frame["type"] == "error" {
                    return frame;
                }
            }
        }
        Value::Null
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap_or(Value::Null)
}

//! Host unit tests of the peer benchmark's pure parts (bench/peer/): the
//! fake model's answer, deltas and SSE / chunked framing, and the
//! side-by-side table. The bench itself is a plain program
//! (`harness = false`), so its modules' tests run from here.

#![allow(dead_code)]

use serde_json::{json, Value};

use sse::*;
use table::{markdown, Row};

#[path = "../bench/measure.rs"]
mod measure;

#[path = "../bench/peer/sse.rs"]
mod sse;

#[path = "../bench/peer/table.rs"]
mod table;

#[test]
fn answer_has_the_size_asked_and_ends_with_the_end_link() {
    for kib in [1, 100, 1024] {
        let a = answer(kib);
        assert!(a.len() <= kib * 1024, "{kib} KiB: {} bytes", a.len());
        assert!(a.len() + 400 >= kib * 1024, "{kib} KiB: {} bytes", a.len());
        assert!(a.trim_end().ends_with(&format!("]({END_HREF})")));
        assert_eq!(a.matches(END_HREF).count(), 1);
    }
}

#[test]
fn deltas_are_at_most_the_size_and_rebuild_the_text() {
    let a = answer(100);
    let d = deltas(&a, DELTA_BYTES);
    assert_eq!(d.concat(), a);
    assert!(d.iter().all(|p| !p.is_empty() && p.len() <= DELTA_BYTES));
    assert_eq!(d.len(), a.len().div_ceil(DELTA_BYTES));
    // Multi-byte characters are never split.
    let text = "é".repeat(1000);
    let d = deltas(&text, 3);
    assert!(d.iter().all(|p| p == &"é"));
    assert_eq!(d.concat(), text);
}

#[test]
fn chunk_events_are_single_data_lines_of_chat_completion_chunks() {
    let e = chunk_event(Some("line one\nline \"two\""), None);
    assert!(e.starts_with("data: ") && e.ends_with("\n\n"));
    assert_eq!(
        e.matches('\n').count(),
        2,
        "one data line, then a blank line: {e:?}"
    );
    let v: Value = serde_json::from_str(&e["data: ".len()..e.len() - 2]).unwrap();
    assert_eq!(v["object"], "chat.completion.chunk");
    assert_eq!(
        v["choices"][0]["delta"]["content"],
        "line one\nline \"two\""
    );
    assert_eq!(v["choices"][0]["finish_reason"], Value::Null);

    let stop = chunk_event(None, Some("stop"));
    let v: Value = serde_json::from_str(&stop["data: ".len()..stop.len() - 2]).unwrap();
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert_eq!(v["choices"][0]["delta"], json!({}));
    let u = usage_event(7);
    let v: Value = serde_json::from_str(&u["data: ".len()..u.len() - 2]).unwrap();
    assert_eq!(v["usage"]["total_tokens"], 17);
    assert_eq!(DONE_EVENT, "data: [DONE]\n\n");
}

#[test]
fn http_chunks_carry_their_length_in_hex() {
    assert_eq!(http_chunk("hello"), "5\r\nhello\r\n");
    assert_eq!(
        http_chunk(&"x".repeat(1024)).split("\r\n").next(),
        Some("400")
    );
    assert_eq!(http_chunk(""), "0\r\n\r\n");
    // Length in bytes, not characters.
    assert_eq!(http_chunk("é").split("\r\n").next(), Some("2"));
}

#[test]
fn only_a_streamed_request_with_a_size_gets_the_long_answer() {
    let req = |stream: bool, content: Value| {
        json!({"model": MODEL, "stream": stream, "messages": [
            {"role": "system", "content": "stream 9"},
            {"role": "user", "content": content}]})
    };
    assert_eq!(ask(&req(true, json!("stream 100"))), Ask::Stream(100));
    assert_eq!(
        ask(&req(true, json!("please stream 1024 now"))),
        Ask::Stream(1024)
    );
    assert_eq!(
        ask(&req(true, json!([{"type": "text", "text": "stream 3"}]))),
        Ask::Stream(3)
    );
    assert_eq!(ask(&req(true, json!("stream 99999"))), Ask::Stream(4096));
    // A title or tags request quotes the chat but is not streamed.
    assert_eq!(ask(&req(false, json!("stream 100"))), Ask::Short);
    assert_eq!(ask(&req(true, json!("hello"))), Ask::Short);
    assert_eq!(ask(&json!({"stream": true})), Ask::Short);
}

fn row(aria: Vec<Option<f64>>, webui: Vec<Option<f64>>) -> Row {
    Row {
        scenario: "s".into(),
        metric: "m",
        unit: "ms",
        cap: Some(60_000.0),
        aria,
        webui,
    }
}

/// The table line of `r`, split into its cells.
fn cells(r: Row) -> Vec<String> {
    let table = markdown(&[r]);
    let line = table.lines().nth(2).expect("a header, a rule and the row");
    line.trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn cells_show_the_median_then_every_run_and_the_ratio() {
    let r = row(
        vec![Some(300.0), Some(400.0)],
        vec![Some(20_000.0), Some(22_000.0)],
    );
    assert_eq!(
        cells(r),
        [
            "s",
            "m",
            "300 ms (300 ms, 400 ms)",
            "20 s (20 s, 22 s)",
            "66.7×"
        ]
    );
}

#[test]
fn runs_past_the_cap_show_as_more_than_the_cap() {
    let r = row(vec![Some(500.0)], vec![None, None]);
    assert_eq!(cells(r), ["s", "m", "500 ms", "> 60 s, > 60 s", "> 120×"]);
    let no_peer = row(vec![Some(500.0)], vec![]);
    assert_eq!(cells(no_peer)[3..], ["—", "—"]);
}

//! The fake model's answers and their wire form, free of I/O: the markdown
//! answer of a given size, its 1 KiB deltas, the Chat Completions chunks as
//! server-sent events, HTTP/1.1 chunked framing, and what a request asks for.

use serde_json::{json, Value};

/// The model id the fake server lists and answers as.
pub const MODEL: &str = "bench";
/// The answer's last block: a link both clients render as `<a href>`, so
/// the driver sees the end on screen with a selector, not a text scan.
pub const END_HREF: &str = "#bench-end";
/// Size of one streamed delta.
pub const DELTA_BYTES: usize = 1024;

/// A markdown answer of about `kib` KiB (sections of a heading, prose with
/// emphasis and a list, every fourth with a code block), ending with the
/// [`END_HREF`] link.
pub fn answer(kib: usize) -> String {
    let end = format!("[The end of the answer.]({END_HREF})\n");
    let target = kib * 1024;
    let mut text = format!("# Peer benchmark answer ({kib} KiB)\n\n");
    for section in 1.. {
        let mut part = format!(
            "## Section {section}\n\nBoth clients receive *exactly* these bytes, in the same \
             deltas, at the same pace; what differs is the **rendering** of each delta and the \
             path from the model to the page.\n\n1. step `{section}.a`\n2. step `{section}.b`\n\n"
        );
        if section % 4 == 0 {
            part.push_str(&format!(
                "```python\ndef section_{section}(x):\n    return x * {section}\n```\n\n"
            ));
        }
        if text.len() + part.len() + end.len() > target {
            break;
        }
        text.push_str(&part);
    }
    text.push_str(&end);
    text
}

/// `text` cut into pieces of at most `max` bytes, on character boundaries.
pub fn deltas(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = max.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        // A character longer than `max`: take it whole.
        if end == 0 {
            end = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        let (piece, tail) = rest.split_at(end);
        out.push(piece);
        rest = tail;
    }
    out
}

/// One `chat.completion.chunk` as an SSE event.
pub fn chunk_event(content: Option<&str>, finish: Option<&str>) -> String {
    let delta = match content {
        Some(c) => json!({"role": "assistant", "content": c}),
        None => json!({}),
    };
    event(&json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }))
}

/// The usage chunk (asked for with `stream_options.include_usage`).
pub fn usage_event(completion_tokens: usize) -> String {
    event(&json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": completion_tokens,
                  "total_tokens": completion_tokens + 10},
    }))
}

pub const DONE_EVENT: &str = "data: [DONE]\n\n";

fn event(data: &Value) -> String {
    // serde_json never writes a raw newline, so one `data:` line suffices.
    format!("data: {data}\n\n")
}

/// A whole non-streamed completion with `content`.
pub fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    })
}

/// One piece of an HTTP/1.1 `Transfer-Encoding: chunked` body; the empty
/// piece is the terminating chunk.
pub fn http_chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// What a `/v1/chat/completions` request asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Ask {
    /// A streamed answer of this many KiB.
    Stream(usize),
    /// Anything else (titles, tags, follow-ups, a stream without a size):
    /// a short whole answer.
    Short,
}

/// Reads the request body: a streamed request whose last user message
/// says `stream N` gets an N KiB answer (at most 4 MiB).
pub fn ask(body: &Value) -> Ask {
    if body["stream"] != json!(true) {
        return Ask::Short;
    }
    let last_user = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| message_text(&m["content"]))
        .unwrap_or_default();
    let mut words = last_user.split_whitespace();
    while let Some(w) = words.next() {
        if w == "stream" {
            if let Some(kib) = words.next().and_then(|n| n.parse::<usize>().ok()) {
                return Ask::Stream(kib.clamp(1, 4096));
            }
        }
    }
    Ask::Short
}

/// A message's text: a string, or the text parts of a content array.
fn message_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

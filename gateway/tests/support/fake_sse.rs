//! The fake model's streamed answers: `data:` events of chat completion
//! chunks in a chunked HTTP body, as a real server writes them.

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::{CHUNK_INTERVAL, USAGE_TOTAL};

/// `text` split at the char boundary at or before byte `at`.
fn split_near(text: &str, at: usize) -> (&str, &str) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    text.split_at(at)
}

/// Writes `data:` events as chunks of a chunked body.
pub struct Sse<'a> {
    pub stream: &'a mut TcpStream,
    pub model: String,
}

impl Sse<'_> {
    pub async fn data(&mut self, data: &str) -> std::io::Result<()> {
        let event = format!("data: {data}\n\n");
        let chunk = format!("{:x}\r\n{event}\r\n", event.len());
        self.stream.write_all(chunk.as_bytes()).await?;
        self.stream.flush().await?;
        tokio::time::sleep(CHUNK_INTERVAL).await;
        Ok(())
    }

    pub async fn chunk(&mut self, choices: Value, usage: Option<Value>) -> std::io::Result<()> {
        let mut chunk = json!({
            "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
            "model": self.model, "choices": choices,
        });
        if let Some(usage) = usage {
            chunk["usage"] = usage;
        }
        self.data(&chunk.to_string()).await
    }

    pub async fn delta(&mut self, delta: Value) -> std::io::Result<()> {
        self.chunk(
            json!([{"index": 0, "delta": delta, "finish_reason": null}]),
            None,
        )
        .await
    }

    pub async fn finish(&mut self, reason: &str) -> std::io::Result<()> {
        self.chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": reason}]),
            None,
        )
        .await?;
        let usage =
            json!({"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": USAGE_TOTAL});
        self.chunk(json!([]), Some(usage)).await
    }

    /// Reasoning (if any), then `text` a few characters per chunk.
    pub async fn answer(&mut self, reasoning: Option<&str>, text: &str) -> std::io::Result<()> {
        self.delta(json!({"role": "assistant", "content": ""}))
            .await?;
        if let Some(reasoning) = reasoning {
            let (a, b) = split_near(reasoning, reasoning.len() / 2);
            self.delta(json!({"reasoning_content": a})).await?;
            self.delta(json!({"reasoning_content": b})).await?;
        }
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(6) {
            self.delta(json!({"content": piece.iter().collect::<String>()}))
                .await?;
        }
        self.finish("stop").await
    }

    /// `text` in one piece, then a call of tool `name` in the same message
    /// (a model saying what it is about to do).
    pub async fn say_then_call(
        &mut self,
        text: &str,
        id: &str,
        name: &str,
        args: &Value,
    ) -> std::io::Result<()> {
        self.delta(json!({"role": "assistant", "content": text}))
            .await?;
        self.tool_call(id, name, args).await
    }

    /// A call of tool `name` whose arguments arrive in three pieces.
    pub async fn tool_call(&mut self, id: &str, name: &str, args: &Value) -> std::io::Result<()> {
        let args = args.to_string();
        let (a, rest) = split_near(&args, args.len() / 3);
        let (b, c) = split_near(rest, rest.len() / 2);
        self.delta(json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": a}}
        ]}))
        .await?;
        for piece in [b, c] {
            self.delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
                .await?;
        }
        self.finish("tool_calls").await
    }
}

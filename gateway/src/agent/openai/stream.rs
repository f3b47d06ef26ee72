//! What a streamed Chat Completion adds up to: the chunks' content deltas,
//! reasoning, tool calls, model and usage. Kept apart from I/O to be tested
//! on scripted chunks.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::agent::llm_turn::preview_of;
use crate::agent::upstream::cut;
use crate::agent::ToolCall;

/// One `data:` chunk. Every field is optional: servers differ in what they
/// send and send `null` for what they lack.
#[derive(Debug, Deserialize)]
struct Chunk {
    model: Option<String>,
    choices: Option<Vec<Choice>>,
    usage: Option<Usage>,
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
    /// llama.cpp, vLLM and DeepSeek name it so.
    reasoning_content: Option<String>,
    /// Ollama and OpenRouter name it so.
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    index: Option<u64>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Usage {
    total_tokens: Option<u64>,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

/// A tool call whose name and arguments arrive in pieces.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The answer so far.
#[derive(Debug, Default)]
pub struct Answer {
    pub reasoning: String,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
    /// Total tokens of the request, from the usage chunk.
    pub tokens: Option<u64>,
    calls: Vec<PartialCall>,
    /// The call each `index` of the deltas currently fills.
    slots: BTreeMap<u64, usize>,
    finished: bool,
    done: bool,
}

impl Answer {
    /// Applies one `data:` payload and returns its content delta (maybe
    /// empty). An error chunk or malformed JSON is an `Err` with the
    /// sentence to show.
    pub fn apply(&mut self, data: &str) -> Result<String, String> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(String::new());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            format!(
                "The model server sent a chunk that is not a completion ({e}): {}",
                cut(data, 120)
            )
        })?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_string);
            return Err(format!(
                "The model server stopped with an error: {}",
                cut(&message, 300)
            ));
        }
        if let Some(model) = chunk.model.filter(|m| !m.is_empty()) {
            self.model = Some(model);
        }
        if let Some(usage) = chunk.usage {
            self.tokens = usage
                .total_tokens
                .or_else(|| Some(usage.prompt_tokens? + usage.completion_tokens?));
        }
        let mut content = String::new();
        for (position, choice) in chunk.choices.unwrap_or_default().into_iter().enumerate() {
            // Only the first choice is shown; `n` is never asked for.
            if position > 0 {
                break;
            }
            self.finished |= choice.finish_reason.is_some();
            let Some(delta) = choice.delta else { continue };
            if let Some(text) = delta.content {
                content.push_str(&text);
            }
            if let Some(reasoning) = delta.reasoning_content.or(delta.reasoning) {
                self.reasoning.push_str(&reasoning);
            }
            for (i, call) in delta.tool_calls.unwrap_or_default().into_iter().enumerate() {
                self.add_call_delta(call, i);
            }
        }
        Ok(content)
    }

    /// Appends a piece of a tool call. A delta names its call by `index`
    /// (its position in the chunk when absent); an index reused with a new
    /// `id` starts a new call, as Ollama sends each whole call at index 0.
    fn add_call_delta(&mut self, call: ToolCallDelta, position: usize) {
        let index = call.index.unwrap_or(position as u64);
        let reused = |slot: usize| match (&self.calls[slot].id, &call.id) {
            (Some(old), Some(new)) => old != new,
            _ => false,
        };
        let slot = match self.slots.get(&index).copied() {
            Some(slot) if !reused(slot) => slot,
            _ => {
                self.calls.push(PartialCall::default());
                self.slots.insert(index, self.calls.len() - 1);
                self.calls.len() - 1
            }
        };
        let partial = &mut self.calls[slot];
        if partial.id.is_none() {
            partial.id = call.id;
        }
        if let Some(function) = call.function {
            partial
                .name
                .push_str(function.name.as_deref().unwrap_or_default());
            partial
                .arguments
                .push_str(function.arguments.as_deref().unwrap_or_default());
        }
    }

    /// `[DONE]` arrived: nothing more is coming.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Whether the stream ended properly (`[DONE]`, or at least a
    /// `finish_reason`), as opposed to a connection closed midway.
    pub fn is_complete(&self) -> bool {
        self.done || self.finished
    }

    /// The tool calls the model asked for, as cards.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.calls
            .iter()
            .filter(|call| !call.name.is_empty())
            .map(|call| {
                let args = match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(args @ Value::Object(_)) => args,
                    Ok(Value::Null) | Err(_) if call.arguments.trim().is_empty() => json!({}),
                    // Arguments that are not an object are shown as they came.
                    _ => json!({"arguments": call.arguments}),
                };
                ToolCall {
                    name: call.name.clone(),
                    emoji: None,
                    preview: preview_of(&args),
                    args,
                }
            })
            .collect()
    }
}

/// A thread title from a model's answer: its first line without quotes,
/// markdown, a "Title:" label or a final period; `None` if nothing is left.
/// Reasoning that a server left inline in `<think>…</think>` is dropped.
pub fn clean_title(answer: &str) -> Option<String> {
    let answer = match answer.rfind("</think>") {
        Some(end) => &answer[end + "</think>".len()..],
        None => answer,
    };
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.trim_start_matches(['#', '*', '-', ' ']);
    let line = match line.split_once(':') {
        Some((label, rest)) if label.trim().eq_ignore_ascii_case("title") => rest,
        _ => line,
    };
    let title = line
        .trim()
        .trim_matches(['"', '\'', '“', '”', '*', '`'])
        .trim_end_matches(['.', '!'])
        .trim();
    let title: String = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then(|| cut(&title, 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(answer: &mut Answer, chunks: &[Value]) -> String {
        chunks
            .iter()
            .map(|c| answer.apply(&c.to_string()).expect("chunk"))
            .collect()
    }

    #[test]
    fn content_reasoning_model_and_usage() {
        let mut answer = Answer::default();
        let text = feed(
            &mut answer,
            &[
                json!({"model": "m1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "reasoning_content": "Think"}}]}),
                json!({"model": "m1", "choices": [{"index": 0, "delta": {"reasoning": "ing."}}]}),
                json!({"model": "m1", "choices": [{"index": 0, "delta": {"content": "Hel"}}]}),
                json!({"model": "m1", "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": null}]}),
                json!({"model": "m1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                json!({"model": "m1", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}),
            ],
        );
        assert_eq!(text, "Hello");
        assert_eq!(answer.reasoning, "Thinking.");
        assert_eq!(answer.model.as_deref(), Some("m1"));
        assert_eq!(answer.tokens, Some(10));
        assert!(answer.is_complete() && !answer.is_done());
        assert_eq!(answer.apply("[DONE]"), Ok(String::new()));
        assert!(answer.is_done());
    }

    #[test]
    fn tool_calls_are_assembled_from_pieces() {
        let mut answer = Answer::default();
        feed(
            &mut answer,
            &[
                json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}}]}),
                json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\": "}}]}}]}),
                json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"a.txt\"}"}}]}}]}),
                json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c2", "function": {"name": "now", "arguments": "oops"}}]}}]}),
                json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
            ],
        );
        let calls = answer.tool_calls();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(calls[0].args, json!({"path": "a.txt"}));
        assert_eq!(calls[0].preview, "a.txt");
        assert_eq!(calls[1].args, json!({"arguments": "oops"}));
    }

    #[test]
    fn errors_and_garbage_are_reported() {
        let mut answer = Answer::default();
        let error = answer
            .apply(r#"{"error": {"message": "context too long", "code": 400}}"#)
            .expect_err("error chunk");
        assert!(error.contains("context too long"), "{error}");
        assert!(answer.apply("not json").is_err());
        assert!(!answer.is_complete());
    }

    #[test]
    fn titles_are_cleaned() {
        assert_eq!(
            clean_title("\"Brewing green tea.\"\nextra").as_deref(),
            Some("Brewing green tea")
        );
        assert_eq!(
            clean_title("<think>hmm\nok</think>\n\n**Title:** Rust lifetimes").as_deref(),
            Some("Rust lifetimes")
        );
        assert_eq!(
            clean_title("# Sourdough starter").as_deref(),
            Some("Sourdough starter")
        );
        assert_eq!(clean_title(" \n\"\"\n"), None);
        let long = clean_title(&"word ".repeat(40)).expect("title");
        assert_eq!(long.chars().count(), 61);
    }
}

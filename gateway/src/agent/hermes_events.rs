//! The events of Hermes Agent's session chat stream
//! (`POST /api/sessions/{id}/chat/stream`, hermes-agent 0.19.0,
//! `gateway/platforms/api_server.py`), parsed into what the gateway acts on.

use serde::Deserialize;
use serde_json::Value;

use super::sse::SseEvent;
use super::upstream::cut;

#[derive(Debug, Clone, PartialEq)]
pub enum HermesEvent {
    /// `assistant.delta {delta}`: streamed text. After a tool call the
    /// text continues under the same message id.
    Delta(String),
    /// `tool.started {tool_name, preview, args}`.
    ToolStarted {
        name: String,
        preview: Option<String>,
        args: Value,
    },
    /// `tool.completed {tool_name}`: no duration, output or error flag on
    /// this stream.
    ToolCompleted { name: String },
    /// `tool.failed {tool_name}` (handled by Hermes, sent by no 0.19.0 tool).
    ToolFailed { name: String },
    /// `assistant.completed {content}`: the final answer's whole text.
    Completed { content: String },
    /// `run.completed {session_id, messages, usage}`.
    RunCompleted(RunSummary),
    /// `error {message}`: the run raised.
    Error(String),
    /// `done`: the last event.
    Done,
    /// `run.started`, `message.started`, keep-alives, and `tool.progress`,
    /// whose `_thinking` deltas repeat the text `assistant.delta` streamed.
    Ignored,
}

/// What a finished run adds to the answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSummary {
    /// The session to continue with: Hermes moves a conversation to a new
    /// session when it compresses it.
    pub session_id: Option<String>,
    /// The reasoning of the turn's assistant messages, joined.
    pub reasoning: Option<String>,
    pub tokens: Option<u64>,
    /// The text of the transcript's last assistant message: if it is not
    /// the turn's answer, the transcript is not this turn's and its
    /// reasoning is not either.
    pub answer: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Payload {
    delta: Option<String>,
    tool_name: Option<String>,
    preview: Option<String>,
    args: Option<Value>,
    content: Option<String>,
    message: Option<Value>,
    session_id: Option<String>,
    messages: Option<Vec<TranscriptMessage>>,
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
struct TranscriptMessage {
    role: Option<String>,
    content: Option<Value>,
    tool_calls: Option<Value>,
    reasoning: Option<String>,
    reasoning_content: Option<String>,
}

impl TranscriptMessage {
    fn is_assistant(&self) -> bool {
        self.role.as_deref() == Some("assistant")
    }

    fn calls_tools(&self) -> bool {
        self.tool_calls
            .as_ref()
            .and_then(Value::as_array)
            .is_some_and(|calls| !calls.is_empty())
    }

    fn reasoning(&self) -> Option<String> {
        let reasoning = self
            .reasoning
            .as_deref()
            .or(self.reasoning_content.as_deref())?;
        Some(reasoning.trim().to_string()).filter(|r| !r.is_empty())
    }
}

#[derive(Debug, Deserialize)]
struct Usage {
    total_tokens: Option<u64>,
}

/// Parses one event; an `Err` is the sentence to show (malformed data).
pub fn parse(event: &SseEvent) -> Result<HermesEvent, String> {
    let name = event.event.as_deref().unwrap_or("message");
    let known = [
        "assistant.delta",
        "tool.started",
        "tool.completed",
        "tool.failed",
        "assistant.completed",
        "run.completed",
        "error",
    ];
    if name == "done" {
        return Ok(HermesEvent::Done);
    }
    if !known.contains(&name) {
        return Ok(HermesEvent::Ignored);
    }
    let payload: Payload = serde_json::from_str(&event.data).map_err(|e| {
        format!(
            "Hermes sent a malformed `{name}` event ({e}): {}",
            cut(&event.data, 120)
        )
    })?;
    let tool_name = || payload.tool_name.clone().unwrap_or_default();
    Ok(match name {
        "assistant.delta" => HermesEvent::Delta(payload.delta.unwrap_or_default()),
        "tool.started" => HermesEvent::ToolStarted {
            name: tool_name(),
            preview: payload.preview.clone().filter(|p| !p.trim().is_empty()),
            args: payload
                .args
                .clone()
                .unwrap_or_else(|| Value::Object(Default::default())),
        },
        "tool.completed" => HermesEvent::ToolCompleted { name: tool_name() },
        "tool.failed" => HermesEvent::ToolFailed { name: tool_name() },
        "assistant.completed" => HermesEvent::Completed {
            content: payload.content.unwrap_or_default(),
        },
        "run.completed" => HermesEvent::RunCompleted(summary(payload)),
        _ => HermesEvent::Error(
            payload
                .message
                .as_ref()
                .and_then(Value::as_str)
                .map_or_else(|| event.data.clone(), str::to_string),
        ),
    })
}

/// The transcript should hold this turn's messages only, but when Hermes
/// cannot tell where the turn starts (a run that failed) it sends the whole
/// session. So the turn is read backwards from the last assistant message:
/// tool results and assistant messages that called tools belong to it; an
/// assistant message without tool calls is an earlier turn's answer.
fn summary(payload: Payload) -> RunSummary {
    let messages = payload.messages.unwrap_or_default();
    let last = messages.iter().rposition(TranscriptMessage::is_assistant);
    let mut reasoning = Vec::new();
    let mut answer = None;
    if let Some(last) = last {
        answer = messages[last]
            .content
            .as_ref()
            .and_then(Value::as_str)
            .map(str::to_string);
        reasoning.extend(messages[last].reasoning());
        for message in messages[..last].iter().rev() {
            if message.is_assistant() && !message.calls_tools() {
                break;
            }
            reasoning.extend(message.reasoning());
        }
        reasoning.reverse();
    }
    RunSummary {
        session_id: payload.session_id.filter(|s| !s.is_empty()),
        reasoning: (!reasoning.is_empty()).then(|| reasoning.join("\n\n")),
        tokens: payload.usage.and_then(|u| u.total_tokens),
        answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(name: &str, data: Value) -> SseEvent {
        SseEvent {
            event: Some(name.to_string()),
            data: data.to_string(),
        }
    }

    /// Payloads as Hermes 0.19.0 sent them in a turn with one tool call.
    #[test]
    fn a_real_turn_parses() {
        let run = "run_fa8c";
        let cases = [
            (
                event(
                    "run.started",
                    json!({"user_message": {"role": "user", "content": "hi"}, "session_id": "s1", "run_id": run, "seq": 1, "ts": 1.0}),
                ),
                HermesEvent::Ignored,
            ),
            (
                event(
                    "assistant.delta",
                    json!({"message_id": "msg_1", "delta": "Let me read it.", "session_id": "s1", "seq": 3}),
                ),
                HermesEvent::Delta("Let me read it.".into()),
            ),
            (
                event(
                    "tool.progress",
                    json!({"message_id": "msg_1", "tool_name": "_thinking", "delta": "Let me read it."}),
                ),
                HermesEvent::Ignored,
            ),
            (
                event(
                    "tool.started",
                    json!({"message_id": "msg_1", "tool_name": "read_file", "preview": "hello.txt", "args": {"path": "/tmp/hello.txt"}}),
                ),
                HermesEvent::ToolStarted {
                    name: "read_file".into(),
                    preview: Some("hello.txt".into()),
                    args: json!({"path": "/tmp/hello.txt"}),
                },
            ),
            (
                event(
                    "tool.completed",
                    json!({"message_id": "msg_1", "tool_name": "read_file", "preview": null, "args": null}),
                ),
                HermesEvent::ToolCompleted {
                    name: "read_file".into(),
                },
            ),
            (
                event(
                    "assistant.completed",
                    json!({"session_id": "s1", "content": "The file says hello.", "completed": true, "partial": false, "interrupted": false}),
                ),
                HermesEvent::Completed {
                    content: "The file says hello.".into(),
                },
            ),
            (
                event(
                    "run.completed",
                    json!({
                        "session_id": "s2", "completed": true,
                        "messages": [
                            {"role": "assistant", "content": "Let me read it.", "tool_calls": [], "reasoning": null},
                            {"role": "tool", "content": "{}", "tool_call_id": "call_1", "tool_name": "read_file"},
                            {"role": "assistant", "content": "The file says hello.", "reasoning": "thinking...", "reasoning_content": "thinking..."}
                        ],
                        "usage": {"input_tokens": 220, "output_tokens": 15, "total_tokens": 235}
                    }),
                ),
                HermesEvent::RunCompleted(RunSummary {
                    session_id: Some("s2".into()),
                    reasoning: Some("thinking...".into()),
                    tokens: Some(235),
                    answer: Some("The file says hello.".into()),
                }),
            ),
            (
                event("done", json!({"session_id": "s1"})),
                HermesEvent::Done,
            ),
        ];
        for (event, expected) in cases {
            assert_eq!(parse(&event), Ok(expected), "{event:?}");
        }
    }

    #[test]
    fn reasoning_is_taken_from_this_turn_only() {
        let whole_session = event(
            "run.completed",
            json!({"messages": [
                {"role": "assistant", "content": "old answer", "reasoning": "old thoughts"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}], "reasoning": "plan"},
                {"role": "tool", "content": "{}"},
                {"role": "assistant", "content": "new answer", "reasoning": "conclude"},
            ]}),
        );
        let Ok(HermesEvent::RunCompleted(summary)) = parse(&whole_session) else {
            panic!("not a summary");
        };
        assert_eq!(summary.reasoning.as_deref(), Some("plan\n\nconclude"));
        assert_eq!(summary.answer.as_deref(), Some("new answer"));
        assert_eq!(summary.tokens, None);
    }

    #[test]
    fn errors_and_malformed_events() {
        assert_eq!(
            parse(&event("error", json!({"message": "boom"}))),
            Ok(HermesEvent::Error("boom".into()))
        );
        let broken = SseEvent {
            event: Some("assistant.delta".into()),
            data: "{nope".into(),
        };
        assert!(parse(&broken).is_err());
        let started = parse(&event(
            "tool.started",
            json!({"tool_name": "todo", "preview": " "}),
        ));
        assert_eq!(
            started,
            Ok(HermesEvent::ToolStarted {
                name: "todo".into(),
                preview: None,
                args: json!({}),
            })
        );
    }
}

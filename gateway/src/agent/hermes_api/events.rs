//! The events of a Hermes Agent run (`GET /v1/runs/{id}/events`,
//! hermes-agent 0.19.0, `gateway/platforms/api_server.py`), parsed into what
//! the gateway acts on. Each event is one `data:` line of JSON whose
//! `event` field names it; the stream ends with a `: stream closed` comment.

use serde::Deserialize;
use serde_json::Value;

use crate::agent::sse::SseEvent;
use crate::agent::upstream::cut;

#[derive(Debug, Clone, PartialEq)]
pub enum HermesEvent {
    /// `message.delta {delta}`: streamed text of the model. Text after a
    /// tool call continues the same stream.
    Delta(String),
    /// `tool.started {tool, preview}`: no arguments on this stream.
    ToolStarted {
        name: String,
        preview: Option<String>,
    },
    /// `tool.completed {tool, duration, error}`: `error` is a flag, with no
    /// text and no output.
    ToolCompleted {
        name: String,
        duration: Option<f64>,
        failed: bool,
    },
    /// `approval.request {command, description, choices}`: the run waits
    /// for `POST /v1/runs/{id}/approval`.
    ApprovalRequest {
        command: Option<String>,
        description: Option<String>,
        choices: Vec<String>,
    },
    /// `run.completed {output, usage}`.
    Completed { output: String, tokens: Option<u64> },
    /// `run.failed {error}`.
    Failed(String),
    /// `run.cancelled`: the run was stopped.
    Cancelled,
    /// `approval.responded` (the answer the gateway posted),
    /// `reasoning.available` (whose `text` is the content the model's step
    /// streamed, not its reasoning) and events of later versions.
    Ignored,
}

#[derive(Debug, Deserialize)]
struct Payload {
    event: Option<String>,
    delta: Option<String>,
    tool: Option<String>,
    preview: Option<String>,
    duration: Option<f64>,
    /// A flag on `tool.completed`, the reason on `run.failed`.
    error: Option<Value>,
    command: Option<String>,
    description: Option<String>,
    choices: Option<Vec<String>>,
    output: Option<String>,
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
struct Usage {
    total_tokens: Option<u64>,
}

/// Parses one event; an `Err` is the sentence to show (malformed data).
pub fn parse(event: &SseEvent) -> Result<HermesEvent, String> {
    let payload: Payload = serde_json::from_str(&event.data).map_err(|e| {
        format!(
            "Hermes sent a malformed run event ({e}): {}",
            cut(&event.data, 120)
        )
    })?;
    let name = payload.event.clone().unwrap_or_default();
    let text = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
    Ok(match name.as_str() {
        "message.delta" => HermesEvent::Delta(payload.delta.unwrap_or_default()),
        "tool.started" => HermesEvent::ToolStarted {
            name: payload.tool.unwrap_or_default(),
            preview: text(payload.preview),
        },
        "tool.completed" => HermesEvent::ToolCompleted {
            name: payload.tool.unwrap_or_default(),
            duration: payload.duration.filter(|d| *d >= 0.0),
            failed: payload.error.as_ref().is_some_and(is_set),
        },
        "approval.request" => HermesEvent::ApprovalRequest {
            command: text(payload.command),
            description: text(payload.description),
            choices: payload.choices.unwrap_or_default(),
        },
        "run.completed" => HermesEvent::Completed {
            output: payload.output.unwrap_or_default(),
            tokens: payload.usage.and_then(|u| u.total_tokens),
        },
        "run.failed" => HermesEvent::Failed(match &payload.error {
            Some(Value::String(reason)) if !reason.trim().is_empty() => reason.clone(),
            _ => "no reason given".to_string(),
        }),
        "run.cancelled" => HermesEvent::Cancelled,
        _ => HermesEvent::Ignored,
    })
}

/// Whether an `error` field says the call failed: `true`, or any text.
fn is_set(error: &Value) -> bool {
    match error {
        Value::Bool(failed) => *failed,
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(data: Value) -> SseEvent {
        SseEvent {
            event: None,
            data: data.to_string(),
        }
    }

    /// Payloads as Hermes 0.19.0 sent them in a run whose `rm -rf` was
    /// denied, then answered.
    #[test]
    fn a_real_run_parses() {
        let run = "run_cc03";
        let cases = [
            (
                json!({"event": "tool.started", "run_id": run, "timestamp": 1.0, "tool": "terminal", "preview": "rm -rf /tmp/hx/victim"}),
                HermesEvent::ToolStarted {
                    name: "terminal".into(),
                    preview: Some("rm -rf /tmp/hx/victim".into()),
                },
            ),
            (
                json!({"command": "rm -rf /tmp/hx/victim", "pattern_key": "recursive delete", "pattern_keys": ["recursive delete"], "description": "recursive delete", "allow_permanent": true, "event": "approval.request", "run_id": run, "timestamp": 1.5, "choices": ["once", "session", "always", "deny"]}),
                HermesEvent::ApprovalRequest {
                    command: Some("rm -rf /tmp/hx/victim".into()),
                    description: Some("recursive delete".into()),
                    choices: vec![
                        "once".into(),
                        "session".into(),
                        "always".into(),
                        "deny".into(),
                    ],
                },
            ),
            (
                json!({"event": "approval.responded", "run_id": run, "timestamp": 2.0, "choice": "deny", "resolved": 1}),
                HermesEvent::Ignored,
            ),
            (
                json!({"event": "tool.completed", "run_id": run, "timestamp": 2.1, "tool": "terminal", "duration": 5.894, "error": true}),
                HermesEvent::ToolCompleted {
                    name: "terminal".into(),
                    duration: Some(5.894),
                    failed: true,
                },
            ),
            (
                json!({"event": "message.delta", "run_id": run, "timestamp": 2.2, "delta": "\n\nHello "}),
                HermesEvent::Delta("\n\nHello ".into()),
            ),
            (
                json!({"event": "reasoning.available", "run_id": run, "timestamp": 2.3, "text": "Hello there."}),
                HermesEvent::Ignored,
            ),
            (
                json!({"event": "run.completed", "run_id": run, "timestamp": 2.4, "output": "Hello there.", "usage": {"input_tokens": 24, "output_tokens": 12, "total_tokens": 36}}),
                HermesEvent::Completed {
                    output: "Hello there.".into(),
                    tokens: Some(36),
                },
            ),
        ];
        for (data, expected) in cases {
            assert_eq!(parse(&event(data.clone())), Ok(expected), "{data}");
        }
    }

    #[test]
    fn endings_and_odd_payloads() {
        let failed = parse(&event(
            json!({"event": "run.failed", "error": "HTTP 401: scripted error 401"}),
        ));
        assert_eq!(
            failed,
            Ok(HermesEvent::Failed("HTTP 401: scripted error 401".into()))
        );
        let cancelled = parse(&event(json!({"event": "run.cancelled", "run_id": "r"})));
        assert_eq!(cancelled, Ok(HermesEvent::Cancelled));
        assert_eq!(
            parse(&event(json!({"event": "run.failed", "error": null}))),
            Ok(HermesEvent::Failed("no reason given".into()))
        );
        assert_eq!(
            parse(&event(
                json!({"event": "tool.completed", "tool": "x", "duration": -1, "error": false})
            )),
            Ok(HermesEvent::ToolCompleted {
                name: "x".into(),
                duration: None,
                failed: false,
            })
        );
        assert_eq!(
            parse(&event(
                json!({"event": "tool.started", "tool": "todo", "preview": " "})
            )),
            Ok(HermesEvent::ToolStarted {
                name: "todo".into(),
                preview: None,
            })
        );
        assert_eq!(
            parse(&event(json!({"event": "run.queued.v2"}))),
            Ok(HermesEvent::Ignored)
        );
        let broken = SseEvent {
            event: None,
            data: "{nope".into(),
        };
        assert!(parse(&broken).is_err());
    }
}

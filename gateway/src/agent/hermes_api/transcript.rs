//! What a run's events leave out, read from its Hermes session's
//! transcript (`GET /api/sessions/{id}/messages`): the reasoning of a
//! finished run (`reasoning.available` repeats the step's content) and the
//! arguments of a tool call as it starts (`tool.started` has a preview only).

use serde::Deserialize;
use serde_json::Value;

/// What the transcript adds to the turn's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    /// The session now holding the conversation: Hermes moves it to a new
    /// session when it compresses it.
    pub session_id: Option<String>,
    /// The reasoning of the turn's assistant messages, joined.
    pub reasoning: Option<String>,
    /// The text of the last assistant message: if it is not the turn's
    /// answer, the transcript's tail is not this turn and neither is its
    /// reasoning.
    pub answer: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Listing {
    session_id: Option<String>,
    data: Vec<Message>,
}

/// A tool call of the step that runs, as Hermes stored it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepCall {
    /// The message's place in the transcript and the call's in the message:
    /// the same call read twice has the same key.
    pub key: (usize, usize),
    pub name: String,
    pub args: Value,
}

#[derive(Debug, Deserialize)]
struct Message {
    role: Option<String>,
    content: Option<Value>,
    tool_calls: Option<Value>,
    reasoning: Option<String>,
    reasoning_content: Option<String>,
}

impl Message {
    fn is_assistant(&self) -> bool {
        self.role.as_deref() == Some("assistant")
    }

    fn is_user(&self) -> bool {
        self.role.as_deref() == Some("user")
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

fn listing(body: &[u8]) -> Result<Listing, String> {
    serde_json::from_slice(body)
        .map_err(|e| format!("Hermes sent an unreadable session transcript: {e}"))
}

/// Reads a messages listing. The turn is read backwards from the last
/// assistant message: tool results and assistant messages that called
/// tools belong to it; an assistant message without tool calls is an
/// earlier turn's answer.
pub fn parse(body: &[u8]) -> Result<Transcript, String> {
    let listing = listing(body)?;
    let messages = listing.data;
    let mut transcript = Transcript {
        session_id: listing.session_id.filter(|s| !s.is_empty()),
        ..Transcript::default()
    };
    let Some(last) = messages.iter().rposition(Message::is_assistant) else {
        return Ok(transcript);
    };
    transcript.answer = messages[last]
        .content
        .as_ref()
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut reasoning: Vec<String> = messages[last].reasoning().into_iter().collect();
    for message in messages[..last].iter().rev() {
        if message.is_assistant() && !message.calls_tools() {
            break;
        }
        reasoning.extend(message.reasoning());
    }
    reasoning.reverse();
    transcript.reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n\n"));
    Ok(transcript)
}

/// The tool calls of the step that runs: those of the last assistant
/// message, if it came after the last user message (this turn) and called
/// tools. Hermes stores that message before it runs them, so at
/// `tool.started` it is there. A call is `{name, arguments}` or OpenAI's
/// `{function: {name, arguments}}`; arguments are a JSON text or object.
pub fn step_calls(body: &[u8]) -> Result<Vec<StepCall>, String> {
    let messages = listing(body)?.data;
    let Some(last) = messages.iter().rposition(Message::is_assistant) else {
        return Ok(Vec::new());
    };
    if messages[last..].iter().any(Message::is_user) {
        return Ok(Vec::new());
    }
    let calls = messages[last]
        .tool_calls
        .as_ref()
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    Ok(calls
        .iter()
        .enumerate()
        .filter_map(|(position, call)| {
            let function = call.get("function").unwrap_or(call);
            let name = function.get("name")?.as_str()?.to_string();
            let args = match function.get("arguments") {
                Some(Value::String(text)) => serde_json::from_str(text).ok()?,
                Some(args @ Value::Object(_)) => args.clone(),
                _ => return None,
            };
            Some(StepCall {
                key: (last, position),
                name,
                args,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reasoning_is_taken_from_the_last_turn_only() {
        let body = json!({"object": "list", "session_id": "s2", "data": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "old answer", "reasoning": "old thoughts"},
            {"role": "user", "content": "read it"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}], "reasoning": "plan"},
            {"role": "tool", "content": "{}"},
            {"role": "assistant", "content": "new answer", "reasoning": null, "reasoning_content": "conclude"},
        ]});
        let transcript = parse(body.to_string().as_bytes()).expect("parse");
        assert_eq!(
            transcript,
            Transcript {
                session_id: Some("s2".into()),
                reasoning: Some("plan\n\nconclude".into()),
                answer: Some("new answer".into()),
            }
        );
    }

    #[test]
    fn empty_and_broken_listings() {
        let empty = parse(br#"{"session_id": "", "data": []}"#).expect("parse");
        assert_eq!(empty, Transcript::default());
        assert!(parse(b"{\"data\": [").is_err());
    }

    #[test]
    fn step_calls_are_the_last_tool_calling_message_of_this_turn() {
        let body = json!({"data": [
            {"role": "user", "content": "clean up"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"rm -rf x\"}"}},
                {"name": "read_file", "arguments": {"path": "a.txt"}},
                {"name": "broken", "arguments": "{not json"},
                {"function": {"arguments": "{}"}},
            ]},
            {"role": "tool", "content": "{}"},
        ]});
        let calls = step_calls(body.to_string().as_bytes()).expect("parse");
        assert_eq!(
            calls,
            vec![
                StepCall {
                    key: (1, 0),
                    name: "terminal".into(),
                    args: json!({"command": "rm -rf x"}),
                },
                StepCall {
                    key: (1, 1),
                    name: "read_file".into(),
                    args: json!({"path": "a.txt"}),
                },
            ]
        );
    }

    #[test]
    fn no_step_calls_from_an_answer_or_an_earlier_turn() {
        let answered = json!({"data": [
            {"role": "assistant", "content": "", "tool_calls": [{"name": "t", "arguments": "{}"}]},
            {"role": "tool", "content": "{}"},
            {"role": "assistant", "content": "done"},
        ]});
        let earlier = json!({"data": [
            {"role": "assistant", "content": "", "tool_calls": [{"name": "t", "arguments": "{}"}]},
            {"role": "user", "content": "next"},
        ]});
        for body in [answered, earlier, json!({"data": []})] {
            assert_eq!(step_calls(body.to_string().as_bytes()), Ok(Vec::new()));
        }
        assert!(step_calls(b"[").is_err());
    }
}

//! The reasoning of a finished run, read from its Hermes session's
//! transcript (`GET /api/sessions/{id}/messages`): the run's events carry
//! none (`reasoning.available` repeats the step's content).

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

/// Reads a messages listing. The turn is read backwards from the last
/// assistant message: tool results and assistant messages that called
/// tools belong to it; an assistant message without tool calls is an
/// earlier turn's answer.
pub fn parse(body: &[u8]) -> Result<Transcript, String> {
    let listing: Listing = serde_json::from_slice(body)
        .map_err(|e| format!("Hermes sent an unreadable session transcript: {e}"))?;
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
}

//! The messages of the Hermes link (docs/hermes-link.md): one JSON object
//! per line. What the plugin sends is untrusted input: it is parsed into
//! these types, never executed, and a line that does not fit is an error
//! value, not a panic.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The link's version; a plugin saying another one is refused.
pub const VERSION: u32 = 1;

/// The plugin's first line.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename = "hello")]
pub struct Hello {
    pub version: u32,
    pub secret: String,
}

/// An event of a thread's turn, from the plugin.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    /// Hermes sent a message: a bubble it will edit (`streaming`) or a
    /// whole message (an interim beat, or the answer when not streaming).
    #[serde(rename = "send")]
    Send {
        message_id: String,
        text: String,
        #[serde(default)]
        reasoning: Option<String>,
        #[serde(default)]
        streaming: bool,
    },
    /// Hermes replaced a message's text (a full snapshot).
    #[serde(rename = "edit")]
    Edit {
        message_id: String,
        text: String,
        #[serde(default)]
        reasoning: Option<String>,
    },
    #[serde(rename = "typing")]
    Typing,
    #[serde(rename = "tool.start")]
    ToolStart {
        call_id: String,
        #[serde(default)]
        parent_call_id: Option<String>,
        name: String,
        #[serde(default)]
        args: Value,
        #[serde(default)]
        preview: String,
    },
    #[serde(rename = "tool.end")]
    ToolEnd {
        call_id: String,
        name: String,
        ok: bool,
        #[serde(default)]
        duration_ms: Option<f64>,
        #[serde(default)]
        output_preview: String,
        #[serde(default)]
        output: Option<String>,
    },
    /// The agent's whole todo list after a `todo` call.
    #[serde(rename = "plan")]
    Plan { items: Vec<PlanItem> },
    /// Hermes waits for permission to run a command.
    #[serde(rename = "approval")]
    Approval {
        approval_id: String,
        command: String,
        #[serde(default)]
        description: Option<String>,
        choices: Vec<String>,
    },
    /// A piece of a file Hermes sends (an image or a document of its
    /// answer): `data` is base64 of the bytes at `offset`, `last` ends the
    /// file; `error` instead says why the plugin could not read it.
    #[serde(rename = "file")]
    File {
        file_id: String,
        #[serde(default)]
        name: String,
        #[serde(default)]
        offset: u64,
        #[serde(default)]
        data: String,
        #[serde(default)]
        last: bool,
        #[serde(default)]
        error: Option<String>,
    },
    /// The plugin needs the thread's path to put Hermes's session on a
    /// turn it never recorded ([`Command::Path`] answers).
    #[serde(rename = "path.need")]
    PathNeed,
    /// Hermes titled the thread's session (after its first exchange).
    #[serde(rename = "title")]
    Title { title: String },
    /// Hermes finished processing the turn's message.
    #[serde(rename = "done")]
    Done {
        outcome: String,
        #[serde(default)]
        model: Option<String>,
        /// Tokens of the turn's model calls (its sub-agents' included).
        #[serde(default)]
        tokens: Option<u64>,
        /// The reasoning of the answer's model call.
        #[serde(default)]
        reasoning: Option<String>,
    },
}

/// A file of the user's message as the plugin hands it to Hermes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnFile {
    pub file_id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PlanItem {
    pub id: String,
    pub text: String,
    pub status: String,
}

/// Where an event belongs: every event names its thread and the turn the
/// plugin was answering when it was sent (`None` after a Stop).
#[derive(Debug, Deserialize)]
pub struct Envelope {
    pub chat_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
}

/// A line from the plugin after the hello: its thread, turn and event, or
/// why it cannot be used (with the thread when that much was readable).
pub fn parse_event(line: &[u8]) -> Result<(Envelope, Event), (Option<String>, String)> {
    let value: Value = serde_json::from_slice(line)
        .map_err(|e| (None, format!("a line that is not JSON ({e})")))?;
    let envelope = Envelope::deserialize(&value)
        .map_err(|e| (None, format!("an event without its thread ({e})")))?;
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    match Event::deserialize(value) {
        Ok(event) => Ok((envelope, event)),
        Err(e) => Err((
            Some(envelope.chat_id),
            format!("an event it cannot read ({kind:?}: {e})"),
        )),
    }
}

/// What the gateway sends the plugin.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Command {
    #[serde(rename = "welcome")]
    Welcome,
    #[serde(rename = "refused")]
    Refused { reason: String },
    /// A user's message for the thread `chat_id`, answered by the turn
    /// `turn_id`, which follows the turn `follows` on the thread's active
    /// path (`None`: the thread's first message). Always sent, so the
    /// plugin rewinds Hermes's session when it is not the last turn Hermes
    /// ran there (the thread branched).
    #[serde(rename = "turn")]
    Turn {
        chat_id: String,
        turn_id: String,
        text: String,
        follows: Option<String>,
        /// The message's files, whose bytes went ahead as [`Command::File`].
        files: Vec<TurnFile>,
    },
    /// A piece of a file of the next turn: base64 of the bytes at `offset`.
    #[serde(rename = "file")]
    File {
        chat_id: String,
        turn_id: String,
        file_id: String,
        offset: u64,
        data: String,
    },
    /// What the user wrote in each turn of the running turn's path, oldest
    /// first; `from_start`: from the thread's first message.
    #[serde(rename = "path")]
    Path {
        chat_id: String,
        turn_id: String,
        users: Vec<String>,
        from_start: bool,
    },
    /// Stop the thread's running turn.
    #[serde(rename = "cancel")]
    Cancel { chat_id: String },
    /// The answer to an approval request.
    #[serde(rename = "approve")]
    Approve {
        chat_id: String,
        approval_id: String,
        choice: String,
    },
}

impl Command {
    /// The command as one line of the link.
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_else(|_| "{}".into());
        line.push('\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_parse_with_their_thread() {
        let line = json!({"type": "tool.start", "chat_id": "c1", "turn_id": "t1",
            "call_id": "s/1", "name": "terminal", "args": {"command": "ls"},
            "preview": "ls", "parent_call_id": null})
        .to_string();
        let (envelope, event) = parse_event(line.as_bytes()).expect("parses");
        assert_eq!(envelope.chat_id, "c1");
        assert_eq!(envelope.turn_id.as_deref(), Some("t1"));
        assert!(matches!(event, Event::ToolStart { ref args, .. } if args["command"] == "ls"));
    }

    #[test]
    fn garbage_is_an_error_value_with_the_thread_when_known() {
        assert_eq!(parse_event(b"\xff\xfe not json").unwrap_err().0, None);
        assert_eq!(parse_event(b"[1,2]").unwrap_err().0, None);
        let bad = json!({"type": "tool.end", "chat_id": "c9", "ok": "yes"}).to_string();
        assert_eq!(
            parse_event(bad.as_bytes()).unwrap_err().0.as_deref(),
            Some("c9")
        );
        let unknown = json!({"type": "rm -rf", "chat_id": "c9"}).to_string();
        assert!(parse_event(unknown.as_bytes()).is_err());
    }

    #[test]
    fn commands_are_single_lines() {
        let line = Command::Turn {
            chat_id: "c1".into(),
            turn_id: "t1".into(),
            text: "two\nlines".into(),
            follows: None,
            files: Vec::new(),
        }
        .line();
        assert_eq!(line.matches('\n').count(), 1);
        assert!(line.ends_with('\n'));
        let value: Value = serde_json::from_str(line.trim()).expect("json");
        assert_eq!(value["type"], "turn");
        assert_eq!(value["text"], "two\nlines");
        // Present even at a thread's start: the plugin tells "first" from
        // "a gateway that does not say".
        assert!(value.get("follows").is_some_and(Value::is_null), "{value}");
    }
}

//! One row of a timeline: a user message, an assistant answer, commentary,
//! a tool call, an approval request or a plan, with what the view needs to
//! draw it.

use super::row_key::RowKey;
use crate::protocol::{
    ApprovalItem, Choice, CommentaryItem, FileRef, MessageItem, PlanItem, Role, ToolItem,
};

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub key: RowKey,
    /// Position in the channel's log; `None` while live or pending.
    pub seq: Option<u64>,
    /// The turn this row belongs to (the gateway's `turn_id`, or one the
    /// store made up when the gateway gives none).
    pub turn: Option<String>,
    pub ts: i64,
    pub body: RowBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RowBody {
    User(UserMessage),
    Assistant(Answer),
    Commentary(String),
    Tool(ToolCall),
    Approval(Approval),
    /// The agent's task list as the turn left it (§14).
    Plan(Vec<PlanItem>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct UserMessage {
    pub text: String,
    /// The gateway's id of the logged message (`None` while pending): what
    /// an edit names.
    pub message_id: Option<String>,
    pub client_msg_id: Option<String>,
    pub send: SendState,
    /// Stored files sent with it (§13), in order.
    pub files: Box<[FileRef]>,
}

/// Where an optimistic send stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendState {
    /// Not yet echoed by the gateway (queued or in flight).
    Pending,
    /// The gateway rejected it; the sentence says why.
    Failed(String),
    /// Echoed: this is the logged message.
    Delivered,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    pub text: String,
    pub reasoning: Option<String>,
    pub model: Option<String>,
    pub tokens: Option<u64>,
    /// Still receiving `message.update` snapshots.
    pub streaming: bool,
    /// Streamed but never finished by `message.stop` before its turn ended:
    /// an interim beat the log does not keep.
    pub interim: bool,
    /// Not an assistant message but some other role the gateway logged.
    pub other_role: bool,
    /// Files the agent sent with it (§13), in order.
    pub files: Box<[FileRef]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolState {
    Running,
    Ok,
    Failed,
    /// The turn ended without a `tool.end`.
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub index: u32,
    pub name: String,
    pub emoji: Option<String>,
    pub preview: String,
    pub args: serde_json::Value,
    pub state: ToolState,
    pub duration: Option<f64>,
    /// `tool.progress` notes, oldest first.
    pub notes: Vec<String>,
    pub output_preview: String,
    pub output: Option<String>,
    /// The index of the call this one runs under (§14).
    pub parent: Option<u32>,
}

impl ToolCall {
    /// A call that started and has not ended.
    pub fn running(index: u32, name: String) -> ToolCall {
        ToolCall {
            index,
            name,
            emoji: None,
            preview: String::new(),
            args: serde_json::Value::Null,
            state: ToolState::Running,
            duration: None,
            notes: Vec::new(),
            output_preview: String::new(),
            output: None,
            parent: None,
        }
    }
}

/// An approval request (§9): what waits, the answers offered, where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    pub request_id: String,
    pub title: String,
    pub command: Option<String>,
    pub description: Option<String>,
    /// The offered answers this client knows, in the gateway's order.
    pub choices: Vec<Choice>,
    pub state: ApprovalState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalState {
    /// Waiting for an answer; `answering` once this device sent one.
    Pending { answering: bool },
    /// The turn ended and the gateway did not say how: nothing to answer.
    Unanswered,
    Resolved {
        choice: Choice,
        /// Answered on a device other than this one.
        elsewhere: bool,
    },
}

impl Approval {
    pub fn is_pending(&self) -> bool {
        matches!(self.state, ApprovalState::Pending { .. })
    }
}

/// The choices a client shows: offered user answers it knows, each once,
/// in the offered order (unknown ones and the gateway's own are dropped).
pub fn shown_choices(offered: &[Choice]) -> Vec<Choice> {
    let mut out: Vec<Choice> = Vec::with_capacity(offered.len());
    for c in offered {
        if c.is_answer() && !out.contains(c) {
            out.push(*c);
        }
    }
    out
}

impl Row {
    pub fn from_message(item: MessageItem) -> Row {
        let body = match item.role {
            Role::User => RowBody::User(UserMessage {
                text: item.text,
                message_id: Some(item.message_id.clone()),
                client_msg_id: item.client_msg_id.clone(),
                send: SendState::Delivered,
                files: item.files,
            }),
            role => RowBody::Assistant(Answer {
                text: item.text,
                reasoning: item.reasoning,
                model: item.model,
                tokens: item.tokens,
                other_role: role == Role::Other,
                files: item.files,
                ..Answer::default()
            }),
        };
        let key = match (&body, &item.client_msg_id) {
            (RowBody::User(_), Some(id)) => RowKey::send(id),
            _ => RowKey::message(&item.message_id),
        };
        Row {
            key,
            seq: Some(item.seq),
            turn: item.turn_id,
            ts: item.ts,
            body,
        }
    }

    pub fn from_commentary(item: CommentaryItem) -> Row {
        Row {
            key: RowKey::message(&item.message_id),
            seq: Some(item.seq),
            turn: item.turn_id,
            ts: item.ts,
            body: RowBody::Commentary(item.text),
        }
    }

    /// A logged tool call. Without a turn id the seq keeps keys unique.
    pub fn from_tool(item: ToolItem) -> Row {
        let key = RowKey::logged_tool(item.turn_id.as_deref(), item.index, item.seq);
        Row {
            key,
            seq: Some(item.seq),
            turn: item.turn_id,
            ts: item.ts,
            body: RowBody::Tool(ToolCall {
                index: item.index,
                name: item.name,
                emoji: item.emoji,
                preview: item.preview,
                args: item.args,
                state: if item.ok {
                    ToolState::Ok
                } else {
                    ToolState::Failed
                },
                duration: Some(item.duration),
                notes: Vec::new(),
                output_preview: item.output_preview,
                output: item.output,
                parent: item.parent_index,
            }),
        }
    }

    /// A resolved approval, keeping what the request row knew (its turn,
    /// the choices offered) when there was one.
    pub fn from_approval(item: ApprovalItem, elsewhere: bool, request: Option<&Row>) -> Row {
        let (turn, choices) = match request {
            Some(Row {
                turn,
                body: RowBody::Approval(a),
                ..
            }) => (turn.clone(), a.choices.clone()),
            _ => (None, Vec::new()),
        };
        Row {
            key: RowKey::approval(&item.request_id),
            seq: Some(item.seq),
            turn: item.turn_id.or(turn),
            ts: item.ts,
            body: RowBody::Approval(Approval {
                request_id: item.request_id,
                title: item.title,
                command: item.command,
                description: item.description,
                choices,
                state: ApprovalState::Resolved {
                    choice: item.choice,
                    elsewhere,
                },
            }),
        }
    }

    /// A short plain-text summary for thread previews.
    pub fn preview_text(&self) -> Option<&str> {
        match &self.body {
            RowBody::User(u) => Some(&u.text),
            RowBody::Assistant(a) => Some(&a.text),
            RowBody::Commentary(_) | RowBody::Tool(_) | RowBody::Approval(_) | RowBody::Plan(_) => {
                None
            }
        }
    }
}

//! Frames the gateway sends to the client (`s→c`), and history items.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::{
    body, branch::lenient_branch, frame_type, unknown, ApprovalItem, ApprovalRequest, Branch,
    BranchSwitched, DecodeError, ErrorCode, Ping, Plan, SearchResults,
};

/// Every server→client frame of the protocol.
///
/// Decoded by [`ServerFrame::decode`], which reads `type` first and then the
/// frame's fields straight into the variant's struct: serde's derived
/// internally tagged decoding would first copy every field (a 100 KiB
/// snapshot included) into an intermediate buffer, and its code is large.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum ServerFrame {
    #[serde(rename = "ready")]
    Ready(Ready),
    #[serde(rename = "pong")]
    Pong(Ping),
    #[serde(rename = "error")]
    Error(ErrorFrame),
    #[serde(rename = "channel.list")]
    ChannelList(ChannelList),
    #[serde(rename = "channel.created")]
    ChannelCreated(ChannelCreated),
    #[serde(rename = "channel.renamed")]
    ChannelRenamed(ChannelRenamed),
    #[serde(rename = "channel.deleted")]
    ChannelDeleted(ChannelDeleted),
    #[serde(rename = "typing")]
    Typing(Typing),
    #[serde(rename = "message.start")]
    MessageStart(MessageStart),
    #[serde(rename = "message.update")]
    MessageUpdate(MessageUpdate),
    #[serde(rename = "message.stop")]
    MessageStop(MessageStop),
    #[serde(rename = "message")]
    Message(InChannel<MessageItem>),
    #[serde(rename = "commentary")]
    Commentary(InChannel<CommentaryItem>),
    #[serde(rename = "tool.start")]
    ToolStart(ToolStart),
    #[serde(rename = "tool.progress")]
    ToolProgress(ToolProgress),
    #[serde(rename = "tool.end")]
    ToolEnd(ToolEnd),
    #[serde(rename = "history")]
    History(History),
    #[serde(rename = "approval.request")]
    ApprovalRequest(ApprovalRequest),
    #[serde(rename = "approval.resolved")]
    ApprovalResolved(InChannel<ApprovalItem>),
    #[serde(rename = "search.results")]
    SearchResults(SearchResults),
    #[serde(rename = "plan")]
    Plan(Plan),
    #[serde(rename = "branch.switched")]
    BranchSwitched(BranchSwitched),
    /// A frame type this side does not know: ignored (§1).
    #[serde(skip)]
    Unknown,
}

impl ServerFrame {
    /// Tolerant decode of one text frame (used by the client): an unknown
    /// `type` is [`ServerFrame::Unknown`], a known one with fields that do
    /// not fit is an error naming the type.
    pub fn decode(text: &str) -> Result<Self, DecodeError> {
        use ServerFrame as F;
        let t = frame_type(text)?;
        Ok(match &*t {
            "ready" => F::Ready(body(text, &t)?),
            "pong" => F::Pong(body(text, &t)?),
            "error" => F::Error(body(text, &t)?),
            "channel.list" => F::ChannelList(body(text, &t)?),
            "channel.created" => F::ChannelCreated(body(text, &t)?),
            "channel.renamed" => F::ChannelRenamed(body(text, &t)?),
            "channel.deleted" => F::ChannelDeleted(body(text, &t)?),
            "typing" => F::Typing(body(text, &t)?),
            "message.start" => F::MessageStart(body(text, &t)?),
            "message.update" => F::MessageUpdate(body(text, &t)?),
            "message.stop" => F::MessageStop(body(text, &t)?),
            "message" => F::Message(InChannel::decode(text, &t)?),
            "commentary" => F::Commentary(InChannel::decode(text, &t)?),
            "tool.start" => F::ToolStart(body(text, &t)?),
            "tool.progress" => F::ToolProgress(body(text, &t)?),
            "tool.end" => F::ToolEnd(body(text, &t)?),
            "history" => F::History(body(text, &t)?),
            "approval.request" => F::ApprovalRequest(body(text, &t)?),
            "approval.resolved" => F::ApprovalResolved(InChannel::decode(text, &t)?),
            "search.results" => F::SearchResults(body(text, &t)?),
            "plan" => F::Plan(body(text, &t)?),
            "branch.switched" => F::BranchSwitched(body(text, &t)?),
            _ => unknown(text, F::Unknown)?,
        })
    }

    /// The frame as JSON text.
    pub fn encode(&self) -> String {
        crate::encode(self)
    }

    /// The channel this frame is about, if any.
    pub fn channel_id(&self) -> Option<&str> {
        use ServerFrame as F;
        Some(match self {
            F::ChannelCreated(f) => &f.channel.channel_id,
            F::ChannelRenamed(f) => &f.channel_id,
            F::ChannelDeleted(f) => &f.channel_id,
            F::Typing(f) => &f.channel_id,
            F::MessageStart(f) => &f.channel_id,
            F::MessageUpdate(f) => &f.channel_id,
            F::MessageStop(f) => &f.channel_id,
            F::Message(f) => &f.channel_id,
            F::Commentary(f) => &f.channel_id,
            F::ToolStart(f) => &f.channel_id,
            F::ToolProgress(f) => &f.channel_id,
            F::ToolEnd(f) => &f.channel_id,
            F::History(f) => &f.channel_id,
            F::ApprovalRequest(f) => &f.channel_id,
            F::ApprovalResolved(f) => &f.channel_id,
            F::Plan(f) => &f.channel_id,
            F::BranchSwitched(f) => &f.channel_id,
            F::Error(f) => return f.channel_id.as_deref(),
            F::SearchResults(f) => return f.channel_id.as_deref(),
            F::Ready(_) | F::Pong(_) | F::ChannelList(_) | F::Unknown => return None,
        })
    }
}

/// A thread as listed by `ready` and `channel.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Channel {
    pub channel_id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub updated_at: i64,
    /// Minted by auto-threading.
    #[serde(default)]
    pub auto: bool,
    /// Highest `seq` in the channel's log (0 when empty).
    #[serde(default)]
    pub last_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Revision of the channel's active path (§12); absent from gateways
    /// without branches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_rev: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ready {
    pub protocol: u32,
    #[serde(default)]
    pub server: String,
    #[serde(default)]
    pub device_id: String,
    #[serde(default)]
    pub channels: Vec<Channel>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorFrame {
    pub code: ErrorCode,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_msg_id: Option<String>,
    /// The approval request an error is about (§9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The query of the `search` an error is about (§10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelList {
    pub channels: Vec<Channel>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelCreated {
    pub channel: Channel,
    #[serde(default)]
    pub auto: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_msg_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelRenamed {
    pub channel_id: String,
    pub title: String,
    /// The gateway's better (LLM) title for an auto thread.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelDeleted {
    pub channel_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Typing {
    pub channel_id: String,
    pub on: bool,
}

/// Who wrote a message. Roles this side does not know decode to `Other`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    #[default]
    Assistant,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageStart {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub message_id: String,
    #[serde(default)]
    pub role: Role,
    #[serde(default)]
    pub ts: i64,
}

/// A full snapshot of a streaming bubble's text (never a delta).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageUpdate {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub message_id: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageStop {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub message_id: String,
    pub seq: u64,
    pub final_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default)]
    pub ts: i64,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

/// A live frame that carries a logged item plus the channel it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InChannel<T> {
    pub channel_id: String,
    #[serde(flatten)]
    pub item: T,
}

impl<T: serde::de::DeserializeOwned> InChannel<T> {
    /// Reads the channel and the item from the same object in two passes
    /// (a derived `flatten` would buffer every field first).
    #[inline(never)]
    fn decode(text: &str, frame_type: &str) -> Result<Self, DecodeError> {
        #[derive(Deserialize)]
        struct ChannelOnly {
            channel_id: String,
        }
        let ChannelOnly { channel_id } = body(text, frame_type)?;
        Ok(Self {
            channel_id,
            item: body(text, frame_type)?,
        })
    }
}

/// A final user or assistant message, live (`message`) or from history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageItem {
    pub seq: u64,
    pub message_id: String,
    #[serde(default)]
    pub role: Role,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default)]
    pub ts: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_msg_id: Option<String>,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

/// An interim beat of the agent, live (`commentary`) or from history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommentaryItem {
    pub seq: u64,
    pub message_id: String,
    pub text: String,
    #[serde(default)]
    pub ts: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolStart {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub index: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emoji: Option<String>,
    #[serde(default)]
    pub preview: String,
    #[serde(default)]
    pub args: serde_json::Value,
    /// §14: the `index` of the call (e.g. a delegation) this one runs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_index: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolProgress {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub index: u32,
    #[serde(default)]
    pub name: String,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolEnd {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub index: u32,
    pub seq: u64,
    #[serde(default)]
    pub name: String,
    pub ok: bool,
    #[serde(default)]
    pub duration: f64,
    #[serde(default)]
    pub output_preview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// §14: the `index` of the call this one runs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_index: Option<u32>,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

/// A completed tool call as logged (history item `tool`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolItem {
    pub seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub index: u32,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emoji: Option<String>,
    #[serde(default)]
    pub preview: String,
    #[serde(default)]
    pub args: serde_json::Value,
    pub ok: bool,
    #[serde(default)]
    pub duration: f64,
    #[serde(default)]
    pub output_preview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(default)]
    pub ts: i64,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

/// One logged item of a `history` page (decoded by [`HistoryItem::decode`],
/// for the reasons given at [`ServerFrame`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum HistoryItem {
    #[serde(rename = "message")]
    Message(MessageItem),
    #[serde(rename = "commentary")]
    Commentary(CommentaryItem),
    #[serde(rename = "tool")]
    Tool(ToolItem),
    #[serde(rename = "approval")]
    Approval(ApprovalItem),
    /// An item of a type this side does not know, or a malformed one: skipped
    /// without losing the rest of the page.
    #[serde(skip)]
    Unknown,
}

impl HistoryItem {
    /// Decodes one item: an unknown `type` is [`HistoryItem::Unknown`], a
    /// known one that does not fit is an error.
    pub fn decode(text: &str) -> Result<Self, DecodeError> {
        let t = frame_type(text)?;
        Ok(match &*t {
            "message" => Self::Message(body(text, &t)?),
            "commentary" => Self::Commentary(body(text, &t)?),
            "tool" => Self::Tool(body(text, &t)?),
            "approval" => Self::Approval(body(text, &t)?),
            _ => unknown(text, Self::Unknown)?,
        })
    }

    /// The item's `seq`, if it is one this side understands.
    pub fn seq(&self) -> Option<u64> {
        match self {
            HistoryItem::Message(m) => Some(m.seq),
            HistoryItem::Commentary(c) => Some(c.seq),
            HistoryItem::Tool(t) => Some(t.seq),
            HistoryItem::Approval(a) => Some(a.seq),
            HistoryItem::Unknown => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub channel_id: String,
    #[serde(deserialize_with = "lenient_items")]
    pub items: Vec<HistoryItem>,
    /// Whether older items exist before the page (for `after`: newer ones).
    #[serde(default)]
    pub has_more: bool,
    /// Whether newer items exist after the page (`around` and `after` replies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_newer: Option<bool>,
    /// The request's `before`, `after` or `around`, echoed (§6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub around: Option<u64>,
    /// The channel's `branch_rev` the page was read at (§12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_rev: Option<u64>,
}

/// Decodes a page item by item, so one bad item does not drop the page.
fn lenient_items<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<HistoryItem>, D::Error> {
    let raw: Vec<&'de RawValue> = Vec::deserialize(d)?;
    Ok(raw
        .into_iter()
        .map(|item| HistoryItem::decode(item.get()).unwrap_or(HistoryItem::Unknown))
        .collect())
}

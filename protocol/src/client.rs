//! Frames the client sends to the gateway (`c→s`).

use serde::{Deserialize, Serialize};

use crate::{
    ApprovalRespond, BranchSelect, DecodeError, FileBegin, FileChunk, FileGet, MessageEdit, Search,
    TurnRegenerate,
};

/// Every client→server frame of the protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ClientFrame {
    #[serde(rename = "hello")]
    Hello(Hello),
    #[serde(rename = "ping")]
    Ping(Ping),
    #[serde(rename = "channel.list")]
    ChannelList(Empty),
    #[serde(rename = "channel.create")]
    ChannelCreate(ChannelCreate),
    #[serde(rename = "channel.rename")]
    ChannelRename(ChannelRename),
    #[serde(rename = "channel.delete")]
    ChannelDelete(ChannelRef),
    #[serde(rename = "message.send")]
    MessageSend(MessageSend),
    #[serde(rename = "turn.cancel")]
    TurnCancel(ChannelRef),
    #[serde(rename = "history.get")]
    HistoryGet(HistoryGet),
    #[serde(rename = "approval.respond")]
    ApprovalRespond(ApprovalRespond),
    #[serde(rename = "search")]
    Search(Search),
    #[serde(rename = "message.edit")]
    MessageEdit(MessageEdit),
    #[serde(rename = "turn.regenerate")]
    TurnRegenerate(TurnRegenerate),
    #[serde(rename = "branch.select")]
    BranchSelect(BranchSelect),
    #[serde(rename = "file.begin")]
    FileBegin(FileBegin),
    #[serde(rename = "file.chunk")]
    FileChunk(FileChunk),
    #[serde(rename = "file.get")]
    FileGet(FileGet),
    /// A frame type this side does not know: ignored (§1).
    #[serde(other)]
    Unknown,
}

impl ClientFrame {
    /// Tolerant decode of one text frame (used by the gateway).
    pub fn decode(text: &str) -> Result<Self, DecodeError> {
        // A file chunk is read straight into its struct: the derived
        // tagged decoding would first copy its data (up to 350 KB of
        // base64) into an intermediate buffer.
        if crate::frame_type(text).is_ok_and(|t| t == "file.chunk") {
            return crate::body(text, "file.chunk").map(ClientFrame::FileChunk);
        }
        crate::decode(text)
    }

    /// The frame as JSON text.
    pub fn encode(&self) -> String {
        crate::encode(self)
    }
}

/// A frame without fields, such as `channel.list {}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Empty {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    pub device_id: String,
    pub client: String,
    pub protocol: u32,
}

/// `ping {t}` and `pong {t}`: `t` is echoed untouched, whatever JSON it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ping {
    pub t: serde_json::Value,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChannelCreate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_ref: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelRename {
    pub channel_id: String,
    pub title: String,
}

/// A frame that names one channel: `channel.delete`, `turn.cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelRef {
    pub channel_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageSend {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    pub text: String,
    pub client_msg_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_thread: Option<bool>,
    /// `file_id`s of stored files (§13); `text` may then be empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryGet {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    /// A page centred on this `seq` (§6: jumping to one item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub around: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

//! Approvals (§9): the agent asks before it acts, any device answers.

use serde::{Deserialize, Serialize};

/// An answer to an approval request, or how the gateway resolved one by
/// itself. Values this side does not know decode to `Other` (a client shows
/// no control for them; a gateway rejects them as not offered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    /// Allow this call.
    Once,
    /// Allow calls like it for the rest of this thread.
    Session,
    /// Allow them from now on.
    Always,
    Deny,
    /// Resolved by the gateway: nobody answered in time.
    Timeout,
    /// Resolved by the gateway: the turn was cancelled or failed.
    Cancelled,
    #[serde(other)]
    Other,
}

impl Choice {
    /// Whether a user may answer with this choice (a gateway offers only
    /// these; `timeout` and `cancelled` are the gateway's own).
    pub fn is_answer(self) -> bool {
        matches!(
            self,
            Choice::Once | Choice::Session | Choice::Always | Choice::Deny
        )
    }

    /// Whether the action may go ahead.
    pub fn allows(self) -> bool {
        matches!(self, Choice::Once | Choice::Session | Choice::Always)
    }
}

/// `approval.request`: a turn waits for the user's permission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub request_id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub choices: Vec<Choice>,
    #[serde(default)]
    pub ts: i64,
}

/// A resolved approval as logged: history item `approval`, and (with its
/// channel) the live `approval.resolved` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalItem {
    pub seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub request_id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub choice: Choice,
    /// The device that answered; absent when the gateway resolved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    #[serde(default)]
    pub ts: i64,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "crate::branch::lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<crate::Branch>>,
}

/// `approval.respond`: the user's explicit answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRespond {
    pub channel_id: String,
    pub request_id: String,
    pub choice: Choice,
}

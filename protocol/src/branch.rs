//! Branches (§12): edit a sent message, regenerate an answer, switch
//! between the siblings of a fork. The thread is a tree; the gateway keeps
//! one active path and tells every device when it changes.

use serde::{Deserialize, Deserializer, Serialize};

/// `message.edit` (c→s): `text` in the place of the user message
/// `message_id`, as a new sibling of it, answered by a new turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageEdit {
    pub channel_id: String,
    pub message_id: String,
    pub text: String,
    pub client_msg_id: String,
    /// `file_id`s of stored files (§13), as on `message.send`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// `turn.regenerate` (c→s): a new answer to the user message that the turn
/// `turn_id` answered, as a sibling of that turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRegenerate {
    pub channel_id: String,
    pub turn_id: String,
    pub client_msg_id: String,
}

/// `branch.select` (c→s): the active path goes through the node holding the
/// logged item `seq`, and below it through each fork's remembered child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchSelect {
    pub channel_id: String,
    pub seq: u64,
}

/// What changed the active path. Causes this side does not know decode to
/// `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BranchCause {
    Edit,
    Regenerate,
    Select,
    #[serde(other)]
    Other,
}

/// `branch.switched` (s→c, broadcast): every item with `seq > fork_seq` is
/// off the new path; the rest of it loads with `history.get {after}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchSwitched {
    pub channel_id: String,
    /// The `seq` ending the longest common prefix of the old and the new
    /// path (0 when they share none).
    pub fork_seq: u64,
    /// The channel's revision of its active path after the switch.
    pub branch_rev: u64,
    pub cause: BranchCause,
    /// The device whose request made the switch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
}

/// `branch` of an item whose node has siblings: the first logged `seq` of
/// each sibling node, oldest first, and this node's position among them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branch {
    pub siblings: Vec<u64>,
    pub index: u32,
}

impl Branch {
    /// The sibling `step` places away from this node (`-1` previous, `1`
    /// next), if there is one. A `branch` that does not fit (an index out of
    /// range) has no neighbours.
    pub fn neighbour(&self, step: i64) -> Option<u64> {
        let index = i64::from(self.index);
        if usize::try_from(index).ok()? >= self.siblings.len() {
            return None;
        }
        let target = usize::try_from(index.checked_add(step)?).ok()?;
        self.siblings.get(target).copied()
    }

    /// Whether the branch is well formed for the item `seq`: the index is in
    /// range, the siblings ascend, and this node started at or before `seq`
    /// (siblings' items interleave in `seq`, so nothing more can be checked).
    pub fn fits(&self, seq: u64) -> bool {
        let Some(own) = usize::try_from(self.index)
            .ok()
            .and_then(|i| self.siblings.get(i))
        else {
            return false;
        };
        *own <= seq && self.siblings.windows(2).all(|w| w[0] < w[1])
    }
}

/// Reads an item's optional `branch` leniently: one that does not decode is
/// treated as absent, so the item itself is never lost over it. Boxed on
/// the items: most have none, and frames stay small.
pub(crate) fn lenient_branch<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Box<Branch>>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    Ok(value.and_then(|v| serde_json::from_value(v).ok()))
}

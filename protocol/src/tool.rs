//! Tool call frames (§5) and the logged tool item, with the §14
//! `parent_index` that nests a sub-agent's calls under their delegation.

use serde::{Deserialize, Serialize};

use crate::branch::lenient_branch;
use crate::Branch;

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
    /// §14: the `index` of the call this one runs under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_index: Option<u32>,
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
    /// §14: the `index` of the call this one ran under.
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

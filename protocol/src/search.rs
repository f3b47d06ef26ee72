//! Search (§10): full-text search over every logged item.

use serde::{Deserialize, Serialize};

use crate::Role;

/// Longest `search.query` in characters after trimming.
pub const MAX_QUERY_CHARS: usize = 200;
/// `search.limit` when absent.
pub const DEFAULT_SEARCH_LIMIT: u32 = 20;
/// Largest `search.limit` (larger ones are clamped).
pub const MAX_SEARCH_LIMIT: u32 = 50;
/// Longest `Hit.snippet` in characters.
pub const MAX_SNIPPET_CHARS: usize = 200;

/// `search` (c→s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Search {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `search.results` (s→c), to the asking device only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResults {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_id: Option<String>,
    #[serde(default)]
    pub hits: Vec<Hit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// What kind of logged item a hit is. Kinds this side does not know decode
/// to `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    Message,
    Commentary,
    Tool,
    #[serde(other)]
    Other,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub channel_id: String,
    pub seq: u64,
    pub kind: HitKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(default)]
    pub snippet: String,
    #[serde(default)]
    pub ts: i64,
    /// Whether the item is on its channel's active path (§12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_path: Option<bool>,
}

/// Trims a query and checks the 1..=200 character rule.
pub fn valid_query(query: &str) -> Option<&str> {
    let q = query.trim();
    (1..=MAX_QUERY_CHARS)
        .contains(&q.chars().count())
        .then_some(q)
}

//! What the components show of the store's state, as plain values: the
//! thread list, the running turn, paging and search. Pure functions of the
//! store; the view state keeps each in a signal set only when it differs.

use crate::protocol::PlanItem;
use crate::store::{ChannelState, RowBody, RowKey, Store, Turn, WorkEvent};

/// A thread as the sidebar shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ChannelSummary {
    pub id: String,
    pub title: String,
    pub preview: String,
    pub unread: u32,
    pub busy: bool,
    /// Approval requests waiting for an answer.
    pub needs_you: u32,
    pub updated_at: i64,
}

/// One work event of the running turn, resolved for the progress draft.
#[derive(Debug, Clone, PartialEq)]
pub enum DraftEvent {
    Tool {
        key: RowKey,
        emoji: Option<String>,
        name: String,
        preview: String,
        args: serde_json::Value,
    },
    Note {
        emoji: Option<String>,
        name: String,
        note: String,
    },
    Commentary(String),
}

/// The open thread's running turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnView {
    pub id: String,
    pub typing: bool,
    pub started_ms: f64,
    pub work_count: u32,
    pub answered: bool,
    pub events: Vec<DraftEvent>,
    /// Requests waiting for an answer: key, title and command.
    pub waiting: Vec<(RowKey, String, Option<String>)>,
    /// The task list as the turn last sent it (§14).
    pub plan: Option<Vec<PlanItem>>,
}

/// Paging state of the open thread.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PagingView {
    pub loaded: bool,
    pub has_older: bool,
    pub loading: bool,
    /// The window ends before the thread does (opened around an item).
    pub has_newer: bool,
    pub loading_newer: bool,
}

/// The search field's state, as the results list shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchView {
    pub status: crate::search::Status,
    pub query: String,
    pub hits: Vec<crate::protocol::Hit>,
    pub has_more: bool,
}

pub fn summary(c: &ChannelState) -> ChannelSummary {
    ChannelSummary {
        id: c.meta.channel_id.clone(),
        title: c.meta.title.clone(),
        preview: c.meta.preview.clone().unwrap_or_default(),
        unread: c.unread,
        busy: c.is_busy(),
        needs_you: u32::try_from(c.waiting.len()).unwrap_or(u32::MAX),
        updated_at: c.meta.updated_at,
    }
}

pub fn paging(c: Option<&ChannelState>) -> PagingView {
    c.map(|c| PagingView {
        loaded: c.loaded,
        has_older: c.has_older,
        loading: c.loading_older(),
        has_newer: c.has_newer,
        loading_newer: c.loading_newer(),
    })
    .unwrap_or_default()
}

pub fn search(store: &Store) -> SearchView {
    let s = store.search();
    SearchView {
        status: s.status().clone(),
        query: s.query().to_string(),
        hits: s.hits().to_vec(),
        has_more: s.has_more(),
    }
}

/// Never inlined: a first visit shows history, with no turn running, so
/// this code stays out of the first load (docs/build.md).
#[inline(never)]
pub fn turn_view(c: &ChannelState, t: &Turn) -> TurnView {
    let tool = |key: &RowKey| match c.timeline.get(key).map(|r| &r.body) {
        Some(RowBody::Tool(call)) => Some(call.clone()),
        _ => None,
    };
    let events = t
        .events
        .iter()
        .filter_map(|e| match e {
            WorkEvent::Tool(key) => tool(key).map(|call| DraftEvent::Tool {
                key: key.clone(),
                emoji: call.emoji,
                name: call.name,
                preview: call.preview,
                args: call.args,
            }),
            WorkEvent::Note { tool: key, note } => tool(key).map(|call| DraftEvent::Note {
                emoji: call.emoji,
                name: call.name,
                note: note.clone(),
            }),
            WorkEvent::Commentary(text) => Some(DraftEvent::Commentary(text.clone())),
        })
        .collect();
    let waiting = c
        .waiting
        .iter()
        .filter_map(|key| match c.timeline.get(key).map(|r| &r.body) {
            Some(RowBody::Approval(a)) => Some((key.clone(), a.title.clone(), a.command.clone())),
            _ => None,
        })
        .collect();
    TurnView {
        id: t.id.clone(),
        typing: c.typing,
        started_ms: t.started_ms,
        work_count: t.work_count,
        answered: t.answered,
        events,
        waiting,
        plan: t.plan.clone(),
    }
}

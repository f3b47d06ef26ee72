//! The running turn of a channel: when it started, whether the agent is
//! typing, and the work it reported (for progress drafts).

use super::row_key::RowKey;
use crate::protocol::PlanItem;

/// How many work events a turn keeps for its progress draft; older ones
/// have scrolled out of any draft already.
const MAX_EVENTS: usize = 64;

/// One thing the agent reported doing, in order, for the progress draft.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkEvent {
    /// A tool call started (the row holds name, preview and args).
    Tool(RowKey),
    /// A `tool.progress` note of a running call.
    Note {
        tool: RowKey,
        note: String,
    },
    Commentary(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The gateway's `turn_id`, or one made up for gateways that omit it.
    pub id: String,
    /// When the client first saw the turn (ms since epoch, client clock).
    pub started_ms: f64,
    /// How many work events arrived, including those scrolled out.
    pub work_count: u32,
    pub events: Vec<WorkEvent>,
    /// Tool rows of this turn, in arrival order.
    pub tools: Vec<RowKey>,
    /// Streaming bubbles of this turn not yet stopped.
    pub bubbles: Vec<RowKey>,
    /// Seen before a reconnect and not yet re-announced by the gateway.
    pub stale: bool,
    /// A final answer arrived (`message.stop`): a progress draft gives way.
    pub answered: bool,
    /// The task list as this turn last changed it (§14).
    pub plan: Option<Vec<PlanItem>>,
}

impl Turn {
    pub fn new(id: String, now_ms: f64) -> Turn {
        Turn {
            id,
            started_ms: now_ms,
            work_count: 0,
            events: Vec::new(),
            tools: Vec::new(),
            bubbles: Vec::new(),
            stale: false,
            answered: false,
            plan: None,
        }
    }

    pub fn push_event(&mut self, event: WorkEvent) {
        self.work_count = self.work_count.saturating_add(1);
        if self.events.len() == MAX_EVENTS {
            self.events.remove(0);
        }
        self.events.push(event);
    }

    pub fn add_tool(&mut self, key: &RowKey) {
        if !self.tools.contains(key) {
            self.tools.push(key.clone());
        }
    }

    pub fn add_bubble(&mut self, key: &RowKey) {
        if !self.bubbles.contains(key) {
            self.bubbles.push(key.clone());
        }
    }
}

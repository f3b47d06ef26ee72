//! What the log holds: the kinds of item a channel's log appends, and what
//! the log needs of each (its `seq`, its idempotency keys, the channel's
//! new preview).

use aria_protocol::{
    thread_preview, ApprovalItem, Branch, CommentaryItem, HistoryItem, LoggedPlan, MessageItem,
    ToolItem,
};

use super::path_page;

/// An item that can be appended to a channel's log.
pub trait LogItem: Clone + serde::Serialize {
    fn set_seq(&mut self, seq: u64);
    /// The `branch` of the item as sent (§12); never stored.
    fn set_branch(&mut self, branch: Option<Branch>);
    fn history_item(&self) -> HistoryItem;
    /// The idempotency key of a user message.
    fn client_msg_id(&self) -> Option<&str> {
        None
    }
    /// The request a resolved approval answers.
    fn request_id(&self) -> Option<&str> {
        None
    }
    /// New `preview` of the channel, for items that change it.
    fn preview(&self) -> Option<String> {
        None
    }
}

impl LogItem for MessageItem {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
    fn set_branch(&mut self, branch: Option<Branch>) {
        self.branch = branch.map(Box::new);
    }
    fn history_item(&self) -> HistoryItem {
        HistoryItem::Message(self.clone())
    }
    fn client_msg_id(&self) -> Option<&str> {
        self.client_msg_id.as_deref()
    }
    fn preview(&self) -> Option<String> {
        Some(thread_preview(&self.text))
    }
}

impl LogItem for CommentaryItem {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
    fn set_branch(&mut self, branch: Option<Branch>) {
        self.branch = branch.map(Box::new);
    }
    fn history_item(&self) -> HistoryItem {
        HistoryItem::Commentary(self.clone())
    }
}

impl LogItem for ToolItem {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
    fn set_branch(&mut self, branch: Option<Branch>) {
        self.branch = branch.map(Box::new);
    }
    fn history_item(&self) -> HistoryItem {
        HistoryItem::Tool(self.clone())
    }
}

impl LogItem for ApprovalItem {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
    fn set_branch(&mut self, branch: Option<Branch>) {
        self.branch = branch.map(Box::new);
    }
    fn history_item(&self) -> HistoryItem {
        HistoryItem::Approval(self.clone())
    }
    fn request_id(&self) -> Option<&str> {
        Some(&self.request_id)
    }
}

impl LogItem for LoggedPlan {
    fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }
    fn set_branch(&mut self, branch: Option<Branch>) {
        self.branch = branch.map(Box::new);
    }
    fn history_item(&self) -> HistoryItem {
        HistoryItem::Plan(self.clone())
    }
}

/// Any item, as seeding logs them.
impl LogItem for HistoryItem {
    fn set_seq(&mut self, seq: u64) {
        match self {
            HistoryItem::Message(m) => m.seq = seq,
            HistoryItem::Commentary(c) => c.seq = seq,
            HistoryItem::Tool(t) => t.seq = seq,
            HistoryItem::Approval(a) => a.seq = seq,
            HistoryItem::Plan(p) => p.seq = seq,
            HistoryItem::Unknown => {}
        }
    }
    fn set_branch(&mut self, branch: Option<Branch>) {
        path_page::set_branch(self, branch);
    }
    fn history_item(&self) -> HistoryItem {
        self.clone()
    }
    fn client_msg_id(&self) -> Option<&str> {
        match self {
            HistoryItem::Message(m) => m.client_msg_id.as_deref(),
            _ => None,
        }
    }
    fn request_id(&self) -> Option<&str> {
        match self {
            HistoryItem::Approval(a) => Some(&a.request_id),
            _ => None,
        }
    }
    fn preview(&self) -> Option<String> {
        match self {
            HistoryItem::Message(m) => Some(thread_preview(&m.text)),
            _ => None,
        }
    }
}

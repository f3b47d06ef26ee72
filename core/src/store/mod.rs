//! The whole chat state as plain Rust. Frames from the gateway change it
//! only through [`Store::apply`]; user actions are methods. Both return the
//! [`Effect`]s to carry out (frames to send, navigation, persistence) and
//! record [`Change`]s so the view re-renders only what moved.
//!
//! Deterministic and free of web APIs: the clock and ids come in as
//! arguments, so every path is tested on the host.

mod apply;
mod approval;
mod branch;
mod branch_offer;
mod branches;
mod channel;
mod channel_list;
mod compose;
mod edit_refusal;
mod errors;
mod history;
mod id_map;
mod jump;
mod navigator;
mod nesting;
mod offline;
mod pending_sends;
mod plan;
pub mod rehearsal;
mod row;
mod row_key;
mod search;
mod streaming;
mod timeline;
mod tools;
mod turn;

#[cfg(test)]
mod branch_tests;
#[cfg(test)]
mod files_tests;
#[cfg(test)]
mod jump_tests;
#[cfg(test)]
mod pending_send_tests;
#[cfg(test)]
mod plan_tests;
#[cfg(test)]
mod steering_tests;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use id_map::IdMap;

pub use branch::BranchBlocker;
pub use branch_offer::BranchOffer;
pub use branches::Branches;
pub use channel::{ChannelState, PageRequest};
pub use edit_refusal::RefusedEdit;
pub use jump::Focus;
pub use navigator::{Editable, Navigator, NodeKind};
pub use nesting::NestedCount;
pub use pending_sends::PendingSend;
pub use rehearsal::rehearse;
pub use row::{
    shown_choices, Answer, Approval, ApprovalState, Row, RowBody, SendState, ToolCall, ToolState,
    UserMessage,
};
pub use row_key::RowKey;
pub use timeline::{Timeline, Upsert};
pub use turn::{Turn, WorkEvent};

use crate::protocol::{ChannelRef, ChannelRename, ClientFrame, HistoryGet, MessageSend};

/// The key of the "new thread" pane, whose pending sends have no channel yet.
pub const NEW_THREAD: &str = "";

/// How many notices (one-sentence errors) are kept for the view.
const MAX_NOTICES: usize = 5;

/// Something the caller must do after a state change.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this frame if connected (dropped otherwise: the store re-asks
    /// for whatever it needs when the connection is back).
    Send(ClientFrame),
    /// The open thread changed because of the gateway (auto-threading, a
    /// deleted thread): reflect it in the URL.
    Navigate(Option<String>),
    /// The pending sends changed: save them so they survive a reload.
    PersistPendingSends,
    /// Something the user may want to hear about while looking elsewhere.
    Alert(Alert),
}

/// An event worth the user's attention (the view decides whether the tab
/// is hidden and how to tell them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Alert {
    /// A request of the agent started waiting for an answer.
    Approval { channel: String, title: String },
    /// A turn of the agent ended.
    TurnEnded { channel: String },
}

impl Alert {
    /// The thread the alert is about.
    pub fn channel(&self) -> &str {
        match self {
            Alert::Approval { channel, .. } | Alert::TurnEnded { channel } => channel,
        }
    }
}

/// What changed, so the reactive layer updates only that.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Change {
    /// The thread list or a thread's metadata, unread count or busy state.
    Channels,
    /// Rows were added, removed or reordered in this channel's timeline.
    Order(String),
    /// One row changed in place.
    Row(String, RowKey),
    /// The running turn of this channel (typing, work events) changed.
    Turn(String),
    /// The open thread changed.
    Active,
    /// This channel's loaded window was replaced (a jump): the view starts
    /// over with it.
    Window(String),
    /// The item to bring on screen and mark changed (see [`Store::focus`]).
    Focus(String),
    Notices,
    Diagnostics,
    /// The search field's state (see [`Store::search`]).
    Search,
}

/// A one-sentence message for the user (an error the gateway reported).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub id: u64,
    pub text: String,
}

/// Counters for the diagnostics view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics {
    pub frames: u64,
    pub dropped: u64,
    pub last_dropped: Option<String>,
}

#[derive(Debug, Default)]
pub struct Store {
    channels: IdMap<String, ChannelState>,
    /// The open thread; `None` is the "new thread" pane.
    active: Option<String>,
    /// An item to open in place (channel, seq), until its page arrives.
    jump: Option<(String, u64)>,
    /// An item on another branch the open thread offers to show.
    offer: Option<BranchOffer>,
    /// The item a selection went to, brought on screen once loaded.
    reveal: Option<(String, u64)>,
    /// The edit sent last, until a switch or a refusal answers it.
    sent_edit: Option<edit_refusal::SentEdit>,
    /// A refused edit, to open again with its text.
    refused_edit: Option<RefusedEdit>,
    /// The gateway answered a branch request `unsupported` (§12).
    branching_unsupported: bool,
    focus: Option<Focus>,
    search: crate::search::SearchState,
    /// Pending sends typed in the "new thread" pane, until auto-threading
    /// gives them a channel.
    new_thread: Timeline,
    pending_sends: Vec<PendingSend>,
    notices: VecDeque<Notice>,
    next_notice: u64,
    online: bool,
    /// This device's id as the gateway knows it (`ready`), to tell which
    /// approvals were answered elsewhere.
    device_id: String,
    /// Alerts raised while applying a frame, handed out with its effects.
    alerts: Vec<Alert>,
    diagnostics: Diagnostics,
    /// The frame counters moved since the view last looked (reported once
    /// per batch of changes rather than once per frame).
    diagnostics_moved: bool,
    changes: Vec<Change>,
}

impl Store {
    pub fn new() -> Store {
        Store::default()
    }

    // ----- reading -----

    pub fn channel(&self, id: &str) -> Option<&ChannelState> {
        self.channels.get(id)
    }

    pub fn channels(&self) -> impl Iterator<Item = &ChannelState> {
        self.channels.values()
    }

    pub fn active(&self) -> Option<&str> {
        self.active.as_deref()
    }

    /// The timeline shown for a channel key (`NEW_THREAD` for the new pane).
    pub fn timeline(&self, channel: &str) -> Option<&Timeline> {
        if channel == NEW_THREAD {
            Some(&self.new_thread)
        } else {
            self.channels.get(channel).map(|c| &c.timeline)
        }
    }

    pub fn row(&self, channel: &str, key: &RowKey) -> Option<&Row> {
        self.timeline(channel)?.get(key)
    }

    pub fn pending_sends(&self) -> &[PendingSend] {
        &self.pending_sends
    }

    pub fn notices(&self) -> impl Iterator<Item = &Notice> {
        self.notices.iter()
    }

    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    pub fn is_online(&self) -> bool {
        self.online
    }

    /// What changed since the last call.
    pub fn take_changes(&mut self) -> Vec<Change> {
        if std::mem::take(&mut self.diagnostics_moved) {
            self.changes.push(Change::Diagnostics);
        }
        std::mem::take(&mut self.changes)
    }

    // ----- user actions -----

    /// Sends a message from the open thread, or auto-threads from the new
    /// thread pane. Shows it at once as a pending bubble.
    pub fn send(&mut self, text: &str, client_msg_id: String, now_ms: f64) -> Vec<Effect> {
        let active = self.active.clone();
        self.send_with_files(active, text, Vec::new(), client_msg_id, now_ms)
    }

    /// Puts back the sends that were pending when the page was closed.
    /// Their threads are not known until the gateway lists them, so a
    /// thread a send belongs to is shown at once as a placeholder (the
    /// gateway's list replaces or removes it).
    pub fn restore_pending_sends(&mut self, entries: Vec<PendingSend>) {
        for entry in entries {
            if self
                .pending_sends
                .iter()
                .any(|e| e.client_msg_id == entry.client_msg_id)
            {
                continue;
            }
            if let Some(id) = &entry.channel_id {
                if !self.channels.contains_key(id) {
                    let title = entry.channel_title.clone().unwrap_or_default();
                    self.channels
                        .insert(id.clone(), ChannelState::placeholder(id, title));
                    self.changes.push(Change::Channels);
                }
            }
            self.show_pending(&entry);
            self.pending_sends.push(entry);
        }
    }

    /// Sends a failed message again.
    pub fn retry(&mut self, client_msg_id: &str) -> Vec<Effect> {
        let Some(i) = self.pending_index(client_msg_id) else {
            return Vec::new();
        };
        self.pending_sends[i].failed = None;
        let entry = self.pending_sends[i].clone();
        self.show_pending(&entry);
        let mut effects = self.send_entry(&entry);
        effects.push(Effect::PersistPendingSends);
        effects
    }

    /// Drops a failed message the user gave up on.
    pub fn discard(&mut self, client_msg_id: &str) -> Vec<Effect> {
        let Some(i) = self.pending_index(client_msg_id) else {
            return Vec::new();
        };
        let entry = self.pending_sends.remove(i);
        let channel = entry.channel_id.unwrap_or_default();
        let key = RowKey::send(client_msg_id);
        if let Some(t) = self.timeline_mut(&channel) {
            t.remove(&key);
        }
        self.changes.push(Change::Order(channel));
        vec![Effect::PersistPendingSends]
    }

    /// Opens a thread (`None`: the new thread pane) and loads it if needed.
    pub fn open(&mut self, channel: Option<String>) -> Vec<Effect> {
        if self.active != channel {
            if self.offer.as_ref().map(|o| &o.channel) != channel.as_ref() {
                self.offer = None;
            }
            self.active = channel.clone();
            self.changes.push(Change::Active);
        }
        let Some(id) = channel else {
            self.jump = None;
            return Vec::new();
        };
        let Some(c) = self.channels.get_mut(&id) else {
            // Not listed yet: `ready` opens it again.
            return Vec::new();
        };
        if c.unread > 0 {
            c.unread = 0;
            self.changes.push(Change::Channels);
        }
        let loaded = c.loaded;
        match self.jump_request(&id) {
            Some(req) => self.request_page(&id, req),
            None if !loaded => self.request_page(&id, PageRequest::Newest),
            None => Vec::new(),
        }
    }

    /// Asks for the page before the oldest loaded row, once at a time.
    pub fn load_older(&mut self, channel: &str) -> Vec<Effect> {
        let Some(c) = self.channels.get(channel) else {
            return Vec::new();
        };
        if !c.loaded || !c.has_older || c.loading_older() {
            return Vec::new();
        }
        match c.timeline.oldest_seq() {
            Some(oldest) => self.request_page(channel, PageRequest::Before(oldest)),
            None => Vec::new(),
        }
    }

    pub fn mark_read(&mut self, channel: &str) {
        if let Some(c) = self.channels.get_mut(channel) {
            c.unread = 0;
            self.changes.push(Change::Channels);
        }
    }

    pub fn rename(&self, channel: &str, title: &str) -> Vec<Effect> {
        match crate::protocol::valid_title(title) {
            Some(title) => vec![Effect::Send(ClientFrame::ChannelRename(ChannelRename {
                channel_id: channel.to_string(),
                title: title.to_string(),
            }))],
            None => Vec::new(),
        }
    }

    pub fn delete(&self, channel: &str) -> Vec<Effect> {
        vec![Effect::Send(ClientFrame::ChannelDelete(ChannelRef {
            channel_id: channel.to_string(),
        }))]
    }

    pub fn cancel_turn(&self, channel: &str) -> Vec<Effect> {
        vec![Effect::Send(ClientFrame::TurnCancel(ChannelRef {
            channel_id: channel.to_string(),
        }))]
    }

    pub fn dismiss_notice(&mut self, id: u64) {
        self.notices.retain(|n| n.id != id);
        self.changes.push(Change::Notices);
    }

    /// The socket closed: requests in flight will never be answered.
    pub fn connection_lost(&mut self) {
        self.online = false;
        self.search.connection_lost();
        self.changes.push(Change::Search);
        for c in self.channels.values_mut() {
            c.requests.clear();
        }
        self.forget_answers();
    }

    /// A frame could not be decoded: counted for the diagnostics view.
    pub fn record_dropped(&mut self, reason: String) {
        self.diagnostics.frames += 1;
        self.diagnostics.dropped += 1;
        self.diagnostics.last_dropped = Some(reason);
        self.changes.push(Change::Diagnostics);
    }

    // ----- helpers shared by actions and apply -----

    fn timeline_mut(&mut self, channel: &str) -> Option<&mut Timeline> {
        if channel == NEW_THREAD {
            Some(&mut self.new_thread)
        } else {
            self.channels.get_mut(channel).map(|c| &mut c.timeline)
        }
    }

    fn pending_index(&self, client_msg_id: &str) -> Option<usize> {
        self.pending_sends
            .iter()
            .position(|e| e.client_msg_id == client_msg_id)
    }

    fn show_pending(&mut self, entry: &PendingSend) {
        let channel = entry.channel_id.clone().unwrap_or_default();
        let row = entry.pending_row();
        let key = row.key.clone();
        if let Some(t) = self.timeline_mut(&channel) {
            if let Some(change) = t.upsert(row).change(&channel, key) {
                self.changes.push(change);
            }
        }
    }

    fn send_entry(&self, entry: &PendingSend) -> Vec<Effect> {
        if !self.online {
            return Vec::new();
        }
        vec![Effect::Send(ClientFrame::MessageSend(MessageSend {
            channel_id: entry.channel_id.clone(),
            text: entry.text.clone(),
            client_msg_id: entry.client_msg_id.clone(),
            auto_thread: entry.channel_id.is_none().then_some(true),
            files: entry.files.iter().map(|f| f.file_id.clone()).collect(),
        }))]
    }

    fn request_page(&mut self, channel: &str, req: PageRequest) -> Vec<Effect> {
        if !self.online {
            return Vec::new();
        }
        let Some(c) = self.channels.get_mut(channel) else {
            return Vec::new();
        };
        if c.is_requesting(req) {
            return Vec::new();
        }
        c.requests.push_back(req);
        let (before, after, around, limit) = match req {
            PageRequest::Newest | PageRequest::Stale => (None, None, None, None),
            PageRequest::Before(s) => (Some(s), None, None, None),
            PageRequest::After(s) => (
                None,
                Some(s),
                None,
                Some(crate::protocol::MAX_HISTORY_LIMIT),
            ),
            PageRequest::Newer(s) => (None, Some(s), None, None),
            PageRequest::Around(s) => (None, None, Some(s), None),
        };
        vec![Effect::Send(ClientFrame::HistoryGet(HistoryGet {
            channel_id: channel.to_string(),
            before,
            after,
            around,
            limit,
        }))]
    }

    fn notify(&mut self, text: String) {
        self.next_notice += 1;
        self.notices.push_back(Notice {
            id: self.next_notice,
            text,
        });
        if self.notices.len() > MAX_NOTICES {
            self.notices.pop_front();
        }
        self.changes.push(Change::Notices);
    }
}

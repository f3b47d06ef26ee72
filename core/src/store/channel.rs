//! One thread as the client knows it: the gateway's metadata, the rows
//! loaded so far, paging state and the running turn.

use std::collections::{BTreeMap, VecDeque};

use super::branches::Branches;
use super::row::Row;
use super::row_key::RowKey;
use super::timeline::Timeline;
use super::turn::Turn;
use crate::protocol::Channel;

/// A `history.get` the client sent and awaits, answered in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageRequest {
    Newest,
    Before(u64),
    /// Gap fill after a reconnect or a seq jump: repeated until the end.
    After(u64),
    /// The next page below a window that does not reach the end yet.
    Newer(u64),
    /// A page centred on one item (a search hit, a deep link).
    Around(u64),
    /// A request made for a window that was replaced since: its reply is
    /// dropped (it would leave a hole).
    Stale,
}

#[derive(Debug, Clone)]
pub struct ChannelState {
    pub meta: Channel,
    pub timeline: Timeline,
    /// The newest page was loaded: live seqs are checked for gaps from here.
    pub loaded: bool,
    /// Every seq up to this one is in the timeline (or older than the oldest
    /// page loaded): the point gap filling asks `after`.
    pub contiguous_seq: u64,
    /// Older items exist on the gateway that are not loaded yet.
    pub has_older: bool,
    /// The loaded window ends before the thread does (it was opened around
    /// an item): newer pages load on scrolling down, and live logged rows
    /// wait in `ahead` instead of being shown after a hole.
    pub has_newer: bool,
    /// Logged rows newer than the window, by seq, kept until the window
    /// reaches them.
    pub ahead: BTreeMap<u64, Row>,
    pub requests: VecDeque<PageRequest>,
    pub typing: bool,
    pub turn: Option<Turn>,
    /// Approval rows still waiting for an answer, in arrival order.
    pub waiting: Vec<RowKey>,
    pub unread: u32,
    /// Counter for turns of gateways that send no `turn_id`.
    pub implicit_turns: u32,
    /// The newest seq of the offline copy shown, until the gateway's
    /// first newest page reconciles it (see `store/offline.rs`).
    pub offline_newest: Option<u64>,
    /// Its `branch_rev` and its items' `branch` (§12).
    pub branches: Branches,
}

impl ChannelState {
    pub fn new(meta: Channel) -> ChannelState {
        ChannelState {
            meta,
            timeline: Timeline::default(),
            loaded: false,
            contiguous_seq: 0,
            has_older: false,
            has_newer: false,
            ahead: BTreeMap::new(),
            requests: VecDeque::new(),
            typing: false,
            turn: None,
            waiting: Vec::new(),
            unread: 0,
            implicit_turns: 0,
            offline_newest: None,
            branches: Branches::default(),
        }
    }

    /// A thread known only from a kept send, until the gateway lists it.
    pub fn placeholder(id: &str, title: String) -> ChannelState {
        ChannelState::new(Channel {
            channel_id: id.to_string(),
            title,
            created_at: 0,
            updated_at: 0,
            auto: false,
            last_seq: 0,
            preview: None,
            branch_rev: None,
        })
    }

    /// Whether this is only a [`ChannelState::placeholder`] so far.
    pub fn is_placeholder(&self) -> bool {
        !self.loaded && self.meta.created_at == 0 && self.meta.last_seq == 0
    }

    /// A thread this client just saw being created: nothing to load.
    pub fn new_empty(meta: Channel) -> ChannelState {
        let mut c = ChannelState::new(meta);
        c.loaded = true;
        c.contiguous_seq = c.meta.last_seq;
        c
    }

    pub fn is_requesting(&self, req: PageRequest) -> bool {
        self.requests.contains(&req)
    }

    pub fn loading_older(&self) -> bool {
        self.requests
            .iter()
            .any(|r| matches!(r, PageRequest::Before(_) | PageRequest::Newest))
    }

    pub fn loading_newer(&self) -> bool {
        self.requests
            .iter()
            .any(|r| matches!(r, PageRequest::Newer(_) | PageRequest::Around(_)))
    }

    pub fn gap_fill_pending(&self) -> bool {
        self.requests
            .iter()
            .any(|r| matches!(r, PageRequest::After(_)))
    }

    /// Whether the agent is working in this thread right now.
    pub fn is_busy(&self) -> bool {
        self.typing || self.turn.is_some()
    }
}

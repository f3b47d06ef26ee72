//! Branches (§12) as the client keeps them: each logged item's `branch`
//! (what the "‹ 2/3 ›" navigator shows), the `branch_rev` a thread's rows
//! were read at, what a switch does to the loaded rows, and the three
//! requests that steer a thread. A gateway's bad branch data never costs a
//! shown item of the active path: a `branch` that does not fit its item
//! is ignored, and a switch or a page that does not fit what is held
//! reloads the thread's newest page.

use super::branches::Branches;
use super::{Change, ChannelState, Effect, PageRequest, Store};
use crate::protocol::{
    Branch, BranchCause, BranchSelect, BranchSwitched, ClientFrame, History, HistoryItem,
    MessageEdit, Role, ServerFrame, TurnRegenerate,
};

/// An item's seq, `branch` and whether it is a user message.
type Noted<'a> = (u64, Option<&'a Branch>, bool);

/// What a live frame that carries a logged item says of its branch.
fn logged_branch(frame: &ServerFrame) -> Option<(&str, Noted<'_>)> {
    use ServerFrame as F;
    Some(match frame {
        F::Message(m) => {
            let user = m.item.role == Role::User;
            (&m.channel_id, (m.item.seq, m.item.branch.as_deref(), user))
        }
        F::Commentary(c) => (&c.channel_id, (c.item.seq, c.item.branch.as_deref(), false)),
        F::ApprovalResolved(a) => (&a.channel_id, (a.item.seq, a.item.branch.as_deref(), false)),
        F::MessageStop(s) => (&s.channel_id, (s.seq, s.branch.as_deref(), false)),
        F::ToolEnd(e) => (&e.channel_id, (e.seq, e.branch.as_deref(), false)),
        F::Plan(p) => match p.seq {
            Some(seq) => (&p.channel_id, (seq, p.branch.as_deref(), false)),
            None => return None,
        },
        _ => return None,
    })
}

fn item_branch(item: &HistoryItem) -> Option<Noted<'_>> {
    Some(match item {
        HistoryItem::Message(m) => (m.seq, m.branch.as_deref(), m.role == Role::User),
        HistoryItem::Commentary(c) => (c.seq, c.branch.as_deref(), false),
        HistoryItem::Tool(t) => (t.seq, t.branch.as_deref(), false),
        HistoryItem::Approval(a) => (a.seq, a.branch.as_deref(), false),
        HistoryItem::Plan(p) => (p.seq, p.branch.as_deref(), false),
        HistoryItem::Unknown => return None,
    })
}

impl Store {
    /// The `branch` of the item `seq` of a thread, when its node has
    /// siblings.
    pub fn branch_at(&self, channel: &str, seq: u64) -> Option<&Branch> {
        self.channels.get(channel)?.branches.at.get(&seq)
    }

    /// Records the `branch` of the logged item a live frame carries.
    pub(super) fn note_live_branch(&mut self, frame: &ServerFrame) {
        if let Some((channel, (seq, branch, user))) = logged_branch(frame) {
            if let Some(c) = self.channels.get_mut(channel) {
                c.branches.note(seq, branch, user);
            }
        }
    }

    /// Checks a `history` reply against the thread's `branch_rev` and
    /// records its items' branches. `Some` when the reply was read on
    /// another path than the rows held: it is dropped and the thread's
    /// newest page reloaded (the effects).
    pub(super) fn check_page(&mut self, h: &History) -> Option<Vec<Effect>> {
        let c = self.channels.get_mut(&h.channel_id)?;
        if matches!(c.requests.front(), Some(PageRequest::Stale) | None) {
            return None;
        }
        match (c.branches.rev, h.branch_rev) {
            (Some(held), Some(read)) if held != read => {
                // The request is answered, however it is used.
                c.requests.pop_front();
                return Some(self.reload(&h.channel_id));
            }
            (None, Some(read)) => c.branches.rev = Some(read),
            _ => {}
        }
        for (seq, branch, user) in h.items.iter().filter_map(item_branch) {
            c.branches.note(seq, branch, user);
        }
        None
    }

    /// `branch.switched`: the rows past `fork_seq` go and the rest of the
    /// new path loads after it. A switch this client cannot place (an
    /// unknown thread is ignored; a revision that goes back or a fork past
    /// the thread's end) reloads the newest page instead.
    pub(super) fn on_branch_switched(&mut self, s: BranchSwitched) -> Vec<Effect> {
        let channel = s.channel_id;
        if s.cause == BranchCause::Edit {
            self.edit_settled(&channel);
        }
        let Some(c) = self.channels.get_mut(&channel) else {
            return Vec::new();
        };
        c.meta.branch_rev = Some(s.branch_rev);
        c.branches.selecting = false;
        self.changes.push(Change::Channels);
        if !c.loaded {
            // Nothing held: the thread's first page reads the new path.
            return Vec::new();
        }
        match c.branches.rev {
            Some(held) if held == s.branch_rev => return Vec::new(),
            Some(held) if held > s.branch_rev => return self.reload(&channel),
            _ => {}
        }
        if s.fork_seq > c.meta.last_seq {
            return self.reload(&channel);
        }
        drop_after(c, s.fork_seq);
        c.branches.rev = Some(s.branch_rev);
        self.changes.push(Change::Order(channel.clone()));
        // A window opened in the middle (it does not reach the end) goes on
        // one page at a time below the fork, as it pages down; one that
        // reaches the end loads the whole rest of the new path.
        let next = if c.has_newer {
            PageRequest::Newer(s.fork_seq)
        } else {
            PageRequest::After(s.fork_seq)
        };
        self.request_page(&channel, next)
    }

    /// Whether a listed revision says this client missed a switch of a
    /// thread it holds rows of (it then reloads the newest page rather
    /// than filling a gap with `after`).
    pub(super) fn missed_switch(c: &ChannelState) -> bool {
        c.loaded
            && matches!((c.branches.rev, c.meta.branch_rev), (Some(held), Some(listed)) if listed > held)
    }

    /// Drops a thread's loaded rows and asks for its newest page again.
    pub(super) fn reload(&mut self, channel: &str) -> Vec<Effect> {
        let Some(c) = self.channels.get_mut(channel) else {
            return Vec::new();
        };
        c.timeline.take_logged();
        c.ahead.clear();
        c.offline_newest = None;
        c.branches = Branches::default();
        for r in c.requests.iter_mut() {
            *r = PageRequest::Stale;
        }
        c.loaded = false;
        c.has_older = false;
        c.has_newer = false;
        c.contiguous_seq = 0;
        self.changes.push(Change::Window(channel.to_string()));
        self.changes.push(Change::Channels);
        self.request_page(channel, PageRequest::Newest)
    }

    /// Edit: `text` in the place of the user message `message_id`, as a
    /// new branch (the gateway echoes it and answers it). The edit keeps
    /// the message's files (§13) but those in `removed`.
    pub fn edit_message(
        &mut self,
        channel: &str,
        message_id: &str,
        text: &str,
        removed: &[String],
        client_msg_id: String,
    ) -> Vec<Effect> {
        let text = text.trim();
        let mut files = self.files_of(channel, message_id);
        files.retain(|f| !removed.contains(f));
        if (text.is_empty() && files.is_empty()) || !self.can_branch(channel) {
            return Vec::new();
        }
        self.edit_sent(channel, message_id, text, removed, &client_msg_id);
        vec![Effect::Send(ClientFrame::MessageEdit(MessageEdit {
            channel_id: channel.to_string(),
            message_id: message_id.to_string(),
            text: text.to_string(),
            client_msg_id,
            files,
        }))]
    }

    /// Regenerate: a new answer in the place of the turn `turn_id`.
    pub fn regenerate(
        &mut self,
        channel: &str,
        turn_id: &str,
        client_msg_id: String,
    ) -> Vec<Effect> {
        if !self.can_branch(channel) {
            return Vec::new();
        }
        vec![Effect::Send(ClientFrame::TurnRegenerate(TurnRegenerate {
            channel_id: channel.to_string(),
            turn_id: turn_id.to_string(),
            client_msg_id,
        }))]
    }

    /// Shows the sibling `step` places away (`-1`, `1`) of the node of the
    /// item `seq`.
    pub fn switch_branch(&mut self, channel: &str, seq: u64, step: i64) -> Vec<Effect> {
        let Some(target) = self.branch_at(channel, seq).and_then(|b| b.neighbour(step)) else {
            return Vec::new();
        };
        self.select_branch(channel, target)
    }

    /// Makes the active path go through the node of the item `seq` (a
    /// search hit on another branch, "Show this branch").
    pub fn select_branch(&mut self, channel: &str, seq: u64) -> Vec<Effect> {
        if !self.can_branch(channel) {
            return Vec::new();
        }
        if let Some(c) = self.channels.get_mut(channel) {
            c.branches.selecting = true;
        }
        self.reveal = Some((channel.to_string(), seq));
        vec![Effect::Send(ClientFrame::BranchSelect(BranchSelect {
            channel_id: channel.to_string(),
            seq,
        }))]
    }

    /// Edit, regenerate and the arrows work only while no turn runs in the
    /// thread (§12: the gateway refuses them then).
    pub fn can_branch(&self, channel: &str) -> bool {
        self.branch_blocker(channel).is_none()
    }

    /// Why edit, regenerate and the arrows do not work in a thread now.
    pub fn branch_blocker(&self, channel: &str) -> Option<BranchBlocker> {
        if self.branching_unsupported {
            return Some(BranchBlocker::Unsupported);
        }
        if !self.online {
            return Some(BranchBlocker::Offline);
        }
        match self.channels.get(channel) {
            Some(c) if !c.is_busy() => None,
            Some(_) => Some(BranchBlocker::Busy),
            None => Some(BranchBlocker::Offline),
        }
    }
}

/// What keeps a thread from being steered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchBlocker {
    /// A turn runs or is queued: Stop comes first.
    Busy,
    /// Not connected (or the thread is not known to the gateway).
    Offline,
    /// The gateway cannot branch: the controls are not offered.
    Unsupported,
}

impl BranchBlocker {
    /// The tooltip of a control that cannot work now.
    pub fn reason(self) -> &'static str {
        match self {
            BranchBlocker::Busy => "Stop the agent first",
            BranchBlocker::Offline => "Not connected to the gateway",
            BranchBlocker::Unsupported => "This gateway cannot branch",
        }
    }
}

/// Removes every logged row, kept row and branch past `fork_seq`.
fn drop_after(c: &mut ChannelState, fork_seq: u64) {
    for row in c.timeline.take_logged() {
        if row.seq.is_some_and(|s| s <= fork_seq) {
            c.timeline.upsert(row);
        }
    }
    c.ahead.split_off(&fork_seq.saturating_add(1));
    c.branches.at.split_off(&fork_seq.saturating_add(1));
    c.contiguous_seq = c.contiguous_seq.min(fork_seq);
    for r in c.requests.iter_mut() {
        if matches!(r, PageRequest::After(_) | PageRequest::Newer(_)) {
            *r = PageRequest::Stale;
        }
    }
}

//! An item on another branch (§12): a search hit with `on_path: false`, or
//! a deep link whose `around` page the gateway refused as off the active
//! path. The thread opens at its newest page and offers "Show this
//! branch"; only that click switches. After any selection, the node
//! selected is brought on screen once the new path has loaded it.

use super::{Change, Effect, PageRequest, Store};
use crate::protocol::ErrorCode;

/// The offer of one thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchOffer {
    pub channel: String,
    /// The item on another branch.
    pub seq: u64,
    /// "Show this branch" was clicked: waiting for the item to load.
    pub switching: bool,
}

impl Store {
    /// The offer of the open thread, if any.
    pub fn branch_offer(&self) -> Option<&BranchOffer> {
        self.offer
            .as_ref()
            .filter(|o| self.active.as_deref() == Some(o.channel.as_str()))
    }

    /// Opens a search hit: in place when it is on the active path (or the
    /// gateway does not say), else at the newest page with the offer.
    pub fn open_hit(&mut self, channel: String, seq: u64, on_path: Option<bool>) -> Vec<Effect> {
        if on_path != Some(false) {
            self.dismiss_branch_offer();
            return self.open_at(channel, seq);
        }
        self.offer_branch(channel.clone(), seq);
        self.open(Some(channel))
    }

    /// "Show this branch": selects the offered item's branch.
    pub fn show_offered_branch(&mut self) -> Vec<Effect> {
        let Some(o) = self.branch_offer().cloned() else {
            return Vec::new();
        };
        let effects = self.select_branch(&o.channel, o.seq);
        if !effects.is_empty() {
            if let Some(offer) = &mut self.offer {
                offer.switching = true;
            }
            self.changes.push(Change::Channels);
        }
        effects
    }

    /// Drops the offer ("Not now", or another thread opened).
    pub fn dismiss_branch_offer(&mut self) {
        if self.offer.take().is_some() {
            self.changes.push(Change::Channels);
        }
    }

    pub(super) fn offer_branch(&mut self, channel: String, seq: u64) {
        self.offer = Some(BranchOffer {
            channel,
            seq,
            switching: false,
        });
        self.changes.push(Change::Channels);
    }

    /// An `error {not_found, channel_id}` that answers this client's
    /// `around` request: the item is off the active path (§12), not the
    /// thread gone. Offers its branch and reads the newest page instead.
    pub(super) fn around_refused(&mut self, channel: &str) -> Option<Vec<Effect>> {
        let c = self.channels.get_mut(channel)?;
        let Some(PageRequest::Around(seq)) = c.requests.front().copied() else {
            return None;
        };
        c.requests.pop_front();
        if self
            .jump
            .as_ref()
            .is_some_and(|(id, s)| id == channel && *s == seq)
        {
            self.jump = None;
        }
        self.offer_branch(channel.to_string(), seq);
        Some(self.reload(channel))
    }

    /// An error about a thread that answers one of the three branch
    /// requests (an edit's or regeneration's `client_msg_id`, or a
    /// selection in flight): the thread itself is fine, and an offer
    /// whose switch was refused stands again. A gateway that answers one
    /// `unsupported` cannot branch: none of them is offered again. True
    /// if it was one.
    pub(super) fn branch_refused(
        &mut self,
        channel: &str,
        code: &ErrorCode,
        with_client_msg_id: bool,
    ) -> bool {
        if let Some(o) = self
            .offer
            .as_mut()
            .filter(|o| o.channel == channel && o.switching)
        {
            o.switching = false;
            self.changes.push(Change::Channels);
        }
        let selecting = self
            .channels
            .get_mut(channel)
            .is_some_and(|c| std::mem::take(&mut c.branches.selecting));
        let refused = selecting || with_client_msg_id;
        if refused && *code == ErrorCode::Unsupported {
            self.branching_unsupported = true;
            self.changes.push(Change::Channels);
        }
        refused
    }

    /// After rows arrived in `channel`: brings the node a selection went
    /// to on screen once the new path has loaded it (the reader stays at
    /// the node being switched), and ends the offer it answered.
    pub(super) fn reveal_selected(&mut self, channel: &str) {
        let Some((id, seq)) = self.reveal.clone() else {
            return;
        };
        if id != channel
            || !self
                .channels
                .get(channel)
                .is_some_and(|c| c.timeline.has_seq(seq))
        {
            return;
        }
        self.reveal = None;
        if self
            .offer
            .as_ref()
            .is_some_and(|o| o.channel == channel && o.seq == seq && o.switching)
        {
            self.offer = None;
            self.changes.push(Change::Channels);
        }
        self.set_focus(channel, seq);
    }
}

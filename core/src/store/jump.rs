//! Opening a thread at one item (a search hit, a deep link) and the
//! two-way window that follows: the loaded rows are one contiguous run of
//! seqs around that item, older pages load above (`before`), newer ones
//! below (`after`), and logged live frames past the window's end wait in
//! `ahead` until the window reaches them. The window is replaced as a
//! whole (never left with a hole): by the `around` page, or by the newest
//! page on "Jump to latest".

use super::channel::{ChannelState, PageRequest};
use super::row::Row;
use super::row_key::RowKey;
use super::{Change, Effect, Store};

/// The item the view should bring on screen and mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Focus {
    pub channel: String,
    pub key: RowKey,
    pub seq: u64,
}

impl Store {
    /// The item last jumped to, if it is in the open thread's window.
    pub fn focus(&self) -> Option<&Focus> {
        self.focus.as_ref()
    }

    /// Opens `channel` with the item `seq` on screen: at once when it is
    /// loaded, else with one `history.get {around}`.
    pub fn open_at(&mut self, channel: String, seq: u64) -> Vec<Effect> {
        self.jump = Some((channel.clone(), seq));
        self.open(Some(channel))
    }

    /// The pending jump of `channel`, once: focused if its item is loaded,
    /// else the page to ask for.
    pub(super) fn jump_request(&mut self, channel: &str) -> Option<PageRequest> {
        let (id, seq) = self.jump.clone()?;
        if id != channel {
            self.jump = None;
            return None;
        }
        let c = self.channels.get(channel)?;
        if c.timeline.has_seq(seq) {
            self.jump = None;
            self.set_focus(channel, seq);
            return None;
        }
        Some(PageRequest::Around(seq))
    }

    /// Asks for the page after the newest loaded row of a window that does
    /// not reach the end, once at a time.
    pub fn load_newer(&mut self, channel: &str) -> Vec<Effect> {
        let Some(c) = self.channels.get(channel) else {
            return Vec::new();
        };
        if !c.loaded || !c.has_newer || c.loading_newer() {
            return Vec::new();
        }
        match c.timeline.newest_seq() {
            Some(newest) => self.request_page(channel, PageRequest::Newer(newest)),
            None => Vec::new(),
        }
    }

    /// Leaves a window in the middle of the thread for its newest page.
    pub fn jump_to_latest(&mut self, channel: &str) -> Vec<Effect> {
        let Some(c) = self.channels.get_mut(channel) else {
            return Vec::new();
        };
        if !c.has_newer {
            return Vec::new();
        }
        c.timeline.take_logged();
        c.timeline.anchor_live_at(c.meta.last_seq);
        // The newest page has them, in their place.
        c.ahead.clear();
        c.has_newer = false;
        c.has_older = false;
        c.loaded = false;
        c.contiguous_seq = 0;
        for r in c.requests.iter_mut() {
            if !matches!(r, PageRequest::After(_)) {
                *r = PageRequest::Stale;
            }
        }
        if self.focus.as_ref().is_some_and(|f| f.channel == channel) {
            self.focus = None;
        }
        self.changes.push(Change::Window(channel.to_string()));
        self.changes.push(Change::Order(channel.to_string()));
        self.changes.push(Change::Channels);
        self.request_page(channel, PageRequest::Newest)
    }

    /// After an `around` request's reply: whether the gateway answered it
    /// (it echoes `around`); one that ignored it sent the newest page.
    pub(super) fn landed(&mut self, channel: &str, seq: u64, answered: bool) {
        if self
            .jump
            .as_ref()
            .is_some_and(|(c, s)| c == channel && *s == seq)
        {
            self.jump = None;
        }
        if answered {
            self.set_focus(channel, seq);
            return;
        }
        self.notify(
            "This gateway cannot open a message in place: showing the newest messages.".into(),
        );
        if self
            .channels
            .get(channel)
            .is_some_and(|c| c.timeline.has_seq(seq))
        {
            self.set_focus(channel, seq);
        }
    }

    pub(super) fn set_focus(&mut self, channel: &str, seq: u64) {
        let key = self
            .channels
            .get(channel)
            .and_then(|c| c.timeline.key_from(seq))
            .cloned();
        if let Some(key) = key {
            self.focus = Some(Focus {
                channel: channel.to_string(),
                key,
                seq,
            });
            self.changes.push(Change::Focus(channel.to_string()));
        }
    }
}

/// A page that replaces the window arrives (the `around` page, or the
/// newest page sent instead): the old window's rows go, those past the
/// page's end are kept in `ahead` for later, and requests made for the old
/// window are dropped.
pub(super) fn replace_window(c: &mut ChannelState) {
    for row in c.timeline.take_logged() {
        if let Some(seq) = row.seq {
            c.ahead.insert(seq, row);
        }
    }
    for r in c.requests.iter_mut() {
        if matches!(r, PageRequest::Before(_) | PageRequest::Newer(_)) {
            *r = PageRequest::Stale;
        }
    }
}

/// Whether a logged row arriving live belongs past the window's end.
pub(super) fn is_ahead(c: &ChannelState, seq: u64) -> bool {
    c.has_newer && c.timeline.newest_seq().is_none_or(|n| seq > n)
}

/// Moves the rows of `ahead` that the window now reaches into the
/// timeline (all of them once it reaches the end). True if any was new.
pub(super) fn absorb_ahead(c: &mut ChannelState) -> bool {
    let reach = if c.has_newer {
        c.timeline.newest_seq().unwrap_or(0)
    } else {
        u64::MAX
    };
    let oldest = c.timeline.oldest_seq().unwrap_or(0);
    let mut inserted = false;
    while let Some(entry) = c.ahead.first_entry() {
        let seq = *entry.key();
        if seq > reach {
            break;
        }
        let row: Row = entry.remove();
        // Older than the window: it would stand above a hole.
        if seq >= oldest && !c.timeline.has_seq(seq) {
            inserted |= matches!(c.timeline.upsert(row), super::Upsert::Inserted);
        }
    }
    inserted
}

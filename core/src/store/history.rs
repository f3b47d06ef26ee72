//! `history` pages: merged into the thread's window by their kind of
//! request, and logged items put in place of their live rows.

use super::approval::{answered_elsewhere, resolved_row};
use super::channel::{ChannelState, PageRequest};
use super::jump::{absorb_ahead, is_ahead, replace_window};
use super::row::Row;
use super::{Change, Effect, Store};
use crate::protocol::{History, HistoryItem};
use crate::render::thread_preview;

impl Store {
    /// Shows a logged row and keeps the channel's bookkeeping: last seq,
    /// preview, unread count, and gap detection.
    pub(super) fn put_logged(
        &mut self,
        channel: &str,
        row: Row,
        counts_unread: bool,
    ) -> Vec<Effect> {
        let active = self.active.as_deref() == Some(channel);
        let Some(c) = self.channels.get_mut(channel) else {
            return Vec::new();
        };
        let Some(seq) = row.seq else {
            return Vec::new();
        };
        let is_new = !c.timeline.has_seq(seq) && !c.ahead.contains_key(&seq);
        // Only a new newest row changes the preview.
        let preview = if is_new && seq >= c.meta.last_seq {
            row.preview_text().map(thread_preview)
        } else {
            None
        };
        let key = row.key.clone();
        let ts = row.ts;
        if is_ahead(c, seq) {
            // Past the window: kept for when the window gets there. Its
            // live row (a streamed bubble, a running tool) leaves with it.
            if c.timeline.remove(&key).is_some() {
                self.changes.push(Change::Order(channel.to_string()));
            }
            c.ahead.entry(seq).or_insert(row);
        } else {
            if let Some(change) = c.timeline.upsert(row).change(channel, key) {
                self.changes.push(change);
            }
        }
        if !is_new {
            return Vec::new();
        }
        if seq >= c.meta.last_seq {
            c.meta.last_seq = seq;
            if let Some(p) = preview {
                c.meta.preview = Some(p);
            }
        }
        c.meta.updated_at = c.meta.updated_at.max(ts);
        if counts_unread && !active {
            c.unread = c.unread.saturating_add(1);
        }
        self.changes.push(Change::Channels);
        if !c.loaded || c.has_newer {
            return Vec::new();
        }
        advance_contiguous(c);
        if seq > c.contiguous_seq + 1 && !c.gap_fill_pending() {
            let from = c.contiguous_seq;
            return self.request_page(channel, PageRequest::After(from));
        }
        Vec::new()
    }

    pub(super) fn on_history(&mut self, h: History) -> Vec<Effect> {
        if let Some(reloaded) = self.check_page(&h) {
            return reloaded;
        }
        let channel = h.channel_id.clone();
        let Some(c) = self.channels.get_mut(&channel) else {
            return Vec::new();
        };
        let req = c.requests.pop_front();
        let mut inserted = false;
        match req {
            // Asked for a window that is gone.
            Some(PageRequest::Stale) => return Vec::new(),
            Some(PageRequest::Around(_)) => {
                c.offline_newest = None;
                replace_window(c);
                self.changes.push(Change::Window(channel.clone()));
                inserted = true;
            }
            Some(PageRequest::Newest) => inserted = super::offline::reconcile(c, &h.items),
            _ => {}
        }
        let mut preview_update = None;
        for item in h.items {
            let row = match item {
                HistoryItem::Message(m) => Row::from_message(m),
                HistoryItem::Commentary(m) => Row::from_commentary(m),
                HistoryItem::Tool(t) => Row::from_tool(t),
                HistoryItem::Approval(a) => {
                    let elsewhere = answered_elsewhere(&self.device_id, &a);
                    resolved_row(c, a, elsewhere, &mut self.changes)
                }
                HistoryItem::Unknown => {
                    self.diagnostics.dropped += 1;
                    self.diagnostics.last_dropped =
                        Some("history item of an unknown or malformed kind".into());
                    self.changes.push(Change::Diagnostics);
                    continue;
                }
            };
            let seq = row.seq.unwrap_or(0);
            if seq >= c.meta.last_seq {
                c.meta.last_seq = seq;
                if let Some(p) = row.preview_text() {
                    preview_update = Some(thread_preview(p));
                }
            }
            let key = row.key.clone();
            // One order change for the whole page.
            match c.timeline.upsert(row).change(&channel, key) {
                Some(Change::Order(_)) => inserted = true,
                Some(change) => self.changes.push(change),
                None => {}
            }
        }
        if preview_update.is_some() {
            c.meta.preview = preview_update;
            self.changes.push(Change::Channels);
        }
        if inserted {
            self.changes.push(Change::Order(channel.clone()));
        }
        let mut more = None;
        let mut landed = None;
        match req {
            Some(PageRequest::Newest) => {
                c.loaded = true;
                c.has_older = h.has_more;
                c.contiguous_seq = c.timeline.newest_seq().unwrap_or(0);
                advance_contiguous(c);
            }
            Some(PageRequest::Before(_)) => c.has_older = h.has_more,
            Some(PageRequest::Around(n)) => {
                // Without the echo the gateway ignored `around` and sent
                // the newest page (§6).
                let answered = h.around == Some(n);
                c.loaded = true;
                c.has_older = h.has_more;
                c.has_newer = answered && h.has_newer.unwrap_or(false);
                c.contiguous_seq = c.timeline.newest_seq().unwrap_or(0);
                landed = Some((n, answered));
            }
            Some(PageRequest::Newer(_)) => c.has_newer = h.has_newer.unwrap_or(h.has_more),
            Some(PageRequest::After(_)) => {
                advance_contiguous(c);
                if h.has_more {
                    more = Some(c.contiguous_seq);
                } else {
                    // Everything newer is here now, live rows included.
                    c.contiguous_seq = c.contiguous_seq.max(c.timeline.newest_seq().unwrap_or(0));
                }
            }
            None | Some(PageRequest::Stale) => {}
        }
        if absorb_ahead(c) {
            self.changes.push(Change::Order(channel.clone()));
        }
        if !c.has_newer && c.loaded {
            advance_contiguous(c);
        }
        self.changes.push(Change::Channels);
        if let Some((seq, answered)) = landed {
            self.landed(&channel, seq, answered);
        }
        match more {
            Some(from) => self.request_page(&channel, PageRequest::After(from)),
            None => Vec::new(),
        }
    }
}

/// Moves the contiguous mark over seqs that are already present.
fn advance_contiguous(c: &mut ChannelState) {
    while c.timeline.has_seq(c.contiguous_seq + 1) {
        c.contiguous_seq += 1;
    }
}

//! The thread list's frames: `ready`, `channel.list`, `channel.created`,
//! `channel.renamed`, `channel.deleted`, and the pending sends a created or
//! deleted thread takes along.

use super::channel::{ChannelState, PageRequest};
use super::row_key::RowKey;
use super::{Change, Effect, Store, NEW_THREAD};
use crate::protocol::{
    Channel, ChannelCreated, ChannelList, ChannelRenamed, ClientFrame, Empty, Ready,
};
use crate::render::thread_preview;

impl Store {
    pub(super) fn on_ready(&mut self, r: Ready) -> Vec<Effect> {
        self.device_id = r.device_id;
        self.online = true;
        self.search.connected();
        self.changes.push(Change::Search);
        for c in self.channels.values_mut() {
            c.typing = false;
            if let Some(t) = &mut c.turn {
                t.stale = true;
            }
        }
        let mut effects = self.merge_channels(r.channels);
        // Answered after the gateway's re-sends of running turns: whatever
        // is still stale then has ended while this client was away.
        effects.push(Effect::Send(ClientFrame::ChannelList(Empty {})));
        let loaded: Vec<(String, u64)> = self
            .channels
            .values()
            // A window short of the end gets there by paging.
            .filter(|c| c.loaded && !c.has_newer)
            .map(|c| (c.meta.channel_id.clone(), c.contiguous_seq))
            .collect();
        for (id, seq) in loaded {
            effects.extend(self.request_page(&id, PageRequest::After(seq)));
        }
        match self.active.clone() {
            Some(id) if !self.channels.contains_key(&id) => {
                self.notify("That thread does not exist on this gateway.".into());
                self.active = None;
                self.changes.push(Change::Active);
                effects.push(Effect::Navigate(None));
            }
            Some(id) => effects.extend(self.open(Some(id))),
            None => {}
        }
        let resend: Vec<_> = self
            .pending_sends
            .iter()
            .filter(|e| e.failed.is_none())
            .cloned()
            .collect();
        for entry in resend {
            effects.extend(self.send_entry(&entry));
        }
        effects
    }

    pub(super) fn on_channel_list(&mut self, l: ChannelList) -> Vec<Effect> {
        let effects = self.merge_channels(l.channels);
        self.end_stale_turns();
        effects
    }

    pub(super) fn on_channel_renamed(&mut self, r: ChannelRenamed) -> Vec<Effect> {
        if let Some(c) = self.channels.get_mut(&r.channel_id) {
            c.meta.title = r.title;
            c.meta.auto = c.meta.auto || r.auto;
            self.changes.push(Change::Channels);
        }
        Vec::new()
    }

    /// Replaces the thread list, keeping what is loaded of threads that stay.
    pub(super) fn merge_channels(&mut self, list: Vec<Channel>) -> Vec<Effect> {
        let ids: std::collections::HashSet<&str> =
            list.iter().map(|c| c.channel_id.as_str()).collect();
        let gone: Vec<String> = self
            .channels
            .keys()
            .filter(|id| !ids.contains(id.as_str()))
            .cloned()
            .collect();
        let mut effects = Vec::new();
        for id in gone {
            effects.extend(self.remove_channel(&id));
        }
        let mut switched = Vec::new();
        for mut meta in list {
            meta.preview = meta.preview.as_deref().map(thread_preview);
            match self.channels.get_mut(&meta.channel_id) {
                Some(c) => {
                    // The log may know more than the list snapshot did.
                    let last_seq = c.meta.last_seq.max(meta.last_seq);
                    c.meta = meta;
                    c.meta.last_seq = last_seq;
                    if Store::missed_switch(c) {
                        switched.push(c.meta.channel_id.clone());
                    }
                }
                None => {
                    self.channels
                        .insert(meta.channel_id.clone(), ChannelState::new(meta));
                }
            }
        }
        self.changes.push(Change::Channels);
        for id in switched {
            effects.extend(self.reload(&id));
        }
        effects
    }

    pub(super) fn remove_channel(&mut self, id: &str) -> Vec<Effect> {
        if self.channels.remove(id).is_none() {
            return Vec::new();
        }
        self.changes.push(Change::Channels);
        let mut effects = self.orphan_sends(id);
        if self.active.as_deref() == Some(id) {
            self.active = None;
            self.changes.push(Change::Active);
            effects.push(Effect::Navigate(None));
        }
        effects
    }

    /// Unsent messages of a thread that is gone move to the new thread
    /// pane, failed, so they are neither lost silently nor resent forever
    /// into a thread that does not exist; "Retry" sends them as a new thread.
    pub(super) fn orphan_sends(&mut self, channel: &str) -> Vec<Effect> {
        let mut moved = Vec::new();
        for e in &mut self.pending_sends {
            if e.channel_id.as_deref() == Some(channel) {
                e.channel_id = None;
                e.channel_title = None;
                e.failed =
                    Some("Its thread no longer exists. Retry sends it as a new thread.".into());
                moved.push(e.clone());
            }
        }
        for entry in &moved {
            self.show_pending(entry);
        }
        if moved.is_empty() {
            Vec::new()
        } else {
            vec![Effect::PersistPendingSends]
        }
    }

    pub(super) fn on_channel_created(&mut self, mut created: ChannelCreated) -> Vec<Effect> {
        let preview = created.channel.preview.as_deref().map(thread_preview);
        created.channel.preview = preview;
        let id = created.channel.channel_id.clone();
        if !self.channels.contains_key(&id) {
            self.channels
                .insert(id.clone(), ChannelState::new_empty(created.channel));
        }
        self.changes.push(Change::Channels);
        let jump = match &created.client_msg_id {
            Some(cmid) => self.relocate_pending(cmid, &id),
            None => false,
        };
        if jump {
            self.active = Some(id.clone());
            self.changes.push(Change::Active);
            return vec![Effect::Navigate(Some(id)), Effect::PersistPendingSends];
        }
        Vec::new()
    }

    /// Moves a pending auto-thread send into the thread the gateway minted
    /// for it. True when the user was looking at it, so the app follows.
    pub(super) fn relocate_pending(&mut self, client_msg_id: &str, to: &str) -> bool {
        let Some(i) = self.pending_index(client_msg_id) else {
            return false;
        };
        let from = self.pending_sends[i].channel_id.clone().unwrap_or_default();
        if from == to {
            return false;
        }
        self.pending_sends[i].channel_id = Some(to.to_string());
        self.pending_sends[i].channel_title = self.channels.get(to).map(|c| c.meta.title.clone());
        let key = RowKey::send(client_msg_id);
        let row = self.timeline_mut(&from).and_then(|t| t.remove(&key));
        if let (Some(row), Some(c)) = (row, self.channels.get_mut(to)) {
            c.timeline.upsert(row);
            self.changes.push(Change::Order(to.to_string()));
        }
        self.changes.push(Change::Order(from.clone()));
        self.active.as_deref().unwrap_or(NEW_THREAD) == from
    }
}

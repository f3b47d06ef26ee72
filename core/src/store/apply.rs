//! `Store::apply`: how each server frame changes the state, one method per
//! frame kind (`on_<frame>`), each returning its effects. Tolerant of
//! frames out of order, repeated or about unknown ids: the worst a bad frame
//! can do is be ignored.

use super::approval::{answered_elsewhere, end_waiting, resolved_row};
use super::channel::{ChannelState, PageRequest};
use super::jump::{absorb_ahead, is_ahead, replace_window};
use super::row::{Answer, Row, RowBody, SendState, ToolCall, ToolState};
use super::row_key::RowKey;
use super::turn::{Turn, WorkEvent};
use super::{Alert, Change, Effect, Store, NEW_THREAD};
use crate::protocol::{
    Channel, ChannelCreated, ChannelList, ChannelRenamed, ClientFrame, CommentaryItem, Empty,
    ErrorCode, ErrorFrame, History, HistoryItem, InChannel, MessageItem, MessageStart, MessageStop,
    MessageUpdate, Ready, SearchResults, ServerFrame, ToolEnd, ToolProgress, ToolStart, Typing,
};
use crate::render::thread_preview;

/// Most `tool.progress` notes kept per tool card.
const MAX_NOTES: usize = 20;

impl Store {
    /// Applies one decoded frame. `now_ms` is the client clock.
    pub fn apply(&mut self, frame: ServerFrame, now_ms: f64) -> Vec<Effect> {
        let mut effects = self.apply_frame(frame, now_ms);
        effects.extend(self.alerts.drain(..).map(Effect::Alert));
        effects
    }

    fn apply_frame(&mut self, frame: ServerFrame, now_ms: f64) -> Vec<Effect> {
        use ServerFrame as F;
        self.diagnostics.frames += 1;
        self.diagnostics_moved = true;
        self.note_live_branch(&frame);
        match frame {
            F::Ready(r) => self.on_ready(r),
            F::ChannelList(l) => self.on_channel_list(l),
            F::Error(e) => self.on_error(e),
            F::ChannelCreated(c) => self.on_channel_created(c),
            F::ChannelRenamed(r) => self.on_channel_renamed(r),
            F::ChannelDeleted(d) => self.remove_channel(&d.channel_id),
            F::Typing(t) => self.on_typing(t, now_ms),
            F::MessageStart(s) => self.on_message_start(s, now_ms),
            F::MessageUpdate(u) => self.on_message_update(u, now_ms),
            F::MessageStop(s) => self.on_message_stop(s),
            F::Message(m) => self.on_message(m),
            F::Commentary(c) => self.on_commentary(c, now_ms),
            F::ToolStart(t) => self.on_tool_start(t, now_ms),
            F::ToolProgress(p) => self.on_tool_progress(p, now_ms),
            F::ToolEnd(e) => self.on_tool_end(e, now_ms),
            F::History(h) => self.on_history(h),
            F::ApprovalRequest(r) => self.on_approval_request(r, now_ms),
            F::ApprovalResolved(r) => self.on_approval_resolved(&r.channel_id, r.item),
            F::SearchResults(r) => self.on_search_results(r),
            F::BranchSwitched(s) => self.on_branch_switched(s),
            // Plans (§14) are not shown by this client yet.
            F::Pong(_) | F::Plan(_) | F::Unknown => Vec::new(),
        }
    }

    // ----- connection and channels -----

    fn on_ready(&mut self, r: Ready) -> Vec<Effect> {
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

    fn on_channel_list(&mut self, l: ChannelList) -> Vec<Effect> {
        let effects = self.merge_channels(l.channels);
        self.end_stale_turns();
        effects
    }

    fn on_channel_renamed(&mut self, r: ChannelRenamed) -> Vec<Effect> {
        if let Some(c) = self.channels.get_mut(&r.channel_id) {
            c.meta.title = r.title;
            c.meta.auto = c.meta.auto || r.auto;
            self.changes.push(Change::Channels);
        }
        Vec::new()
    }

    fn on_search_results(&mut self, r: SearchResults) -> Vec<Effect> {
        if self.search.on_results(r) {
            self.changes.push(Change::Search);
        }
        Vec::new()
    }

    /// Replaces the thread list, keeping what is loaded of threads that stay.
    fn merge_channels(&mut self, list: Vec<Channel>) -> Vec<Effect> {
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

    fn remove_channel(&mut self, id: &str) -> Vec<Effect> {
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
    fn orphan_sends(&mut self, channel: &str) -> Vec<Effect> {
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

    fn on_channel_created(&mut self, mut created: ChannelCreated) -> Vec<Effect> {
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
    fn relocate_pending(&mut self, client_msg_id: &str, to: &str) -> bool {
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

    /// The echo of one of this client's sends arrived: it is delivered.
    fn delivered(&mut self, channel: &str, client_msg_id: Option<&str>) -> Vec<Effect> {
        let Some(cmid) = client_msg_id else {
            return Vec::new();
        };
        // An echo in another thread than the bubble (auto-thread without a
        // `channel.created` seen): move the bubble along first.
        let jump = self.relocate_pending(cmid, channel);
        let Some(i) = self.pending_index(cmid) else {
            return Vec::new();
        };
        self.pending_sends.remove(i);
        let mut effects = vec![Effect::PersistPendingSends];
        if jump {
            self.active = Some(channel.to_string());
            self.changes.push(Change::Active);
            effects.push(Effect::Navigate(Some(channel.to_string())));
        }
        effects
    }

    fn mark_delivered(&mut self, channel: &str, key: &RowKey) {
        let Some(c) = self.channels.get_mut(channel) else {
            return;
        };
        if let Some(Row {
            body: RowBody::User(u),
            ..
        }) = c.timeline.get_mut(key)
        {
            if u.send != SendState::Delivered {
                u.send = SendState::Delivered;
                self.changes
                    .push(Change::Row(channel.to_string(), key.clone()));
            }
        }
    }

    fn on_error(&mut self, e: ErrorFrame) -> Vec<Effect> {
        // About a search: the field says so.
        if self.search.on_error(&e) {
            self.changes.push(Change::Search);
            return Vec::new();
        }
        if e.query.is_some() {
            // About a search no longer awaited.
            return Vec::new();
        }
        // About an approval, not the thread: the thread stays.
        if let Some(request_id) = e.request_id.clone() {
            self.on_approval_error(&request_id, e);
            return Vec::new();
        }
        if let Some(cmid) = &e.client_msg_id {
            if let Some(i) = self.pending_index(cmid) {
                let why = if e.message.is_empty() {
                    format!("The gateway refused this message ({:?}).", e.code)
                } else {
                    e.message.clone()
                };
                self.pending_sends[i].failed = Some(why);
                let entry = self.pending_sends[i].clone();
                self.show_pending(&entry);
                return vec![Effect::PersistPendingSends];
            }
        }
        if let Some(id) = &e.channel_id {
            if e.code == ErrorCode::NotFound {
                if let Some(effects) = self.around_refused(id) {
                    return effects;
                }
            }
            if self.branch_refused(id, &e.code, e.client_msg_id.is_some()) {
                let text = if e.message.is_empty() {
                    format!("The gateway refused to change this branch ({:?}).", e.code)
                } else {
                    e.message
                };
                self.notify(text);
                return Vec::new();
            }
            if let Some(c) = self.channels.get_mut(id) {
                // A failed page request would otherwise spin forever.
                c.requests.clear();
            }
            if e.code == ErrorCode::NotFound {
                self.notify("That thread no longer exists.".into());
                return self.remove_channel(id);
            }
        }
        if !e.code.is_fatal() {
            let text = if e.message.is_empty() {
                format!("The gateway reported an error ({:?}).", e.code)
            } else {
                e.message
            };
            self.notify(text);
        }
        Vec::new()
    }

    // ----- turns -----

    fn on_typing(&mut self, t: Typing, now_ms: f64) -> Vec<Effect> {
        if let Some(c) = self.channels.get_mut(&t.channel_id) {
            c.typing = t.on;
            if t.on {
                self.ensure_turn(&t.channel_id, None, now_ms);
            } else {
                self.finish_turn(&t.channel_id);
            }
            self.changes.push(Change::Turn(t.channel_id));
            self.changes.push(Change::Channels);
        }
        Vec::new()
    }

    fn turn_mut(&mut self, channel: &str) -> Option<&mut Turn> {
        self.channels.get_mut(channel)?.turn.as_mut()
    }

    /// The turn a frame belongs to, starting one if needed. Gateways that
    /// send no `turn_id` get one made up that lasts until typing stops.
    pub(super) fn ensure_turn(
        &mut self,
        channel: &str,
        turn_id: Option<&str>,
        now_ms: f64,
    ) -> Option<String> {
        let c = self.channels.get_mut(channel)?;
        match (turn_id, &mut c.turn) {
            (Some(id), Some(t)) if t.id == id => {
                t.stale = false;
                return Some(t.id.clone());
            }
            (None, Some(t)) => {
                t.stale = false;
                return Some(t.id.clone());
            }
            (Some(_), Some(_)) => self.end_turn(channel),
            (_, None) => {}
        }
        let c = self.channels.get_mut(channel)?;
        let id = match turn_id {
            Some(id) => id.to_string(),
            None => {
                c.implicit_turns += 1;
                format!("~{}", c.implicit_turns)
            }
        };
        c.turn = Some(Turn::new(id.clone(), now_ms));
        self.changes.push(Change::Turn(channel.to_string()));
        self.changes.push(Change::Channels);
        Some(id)
    }

    /// The agent stopped working (not merely a new turn id replacing the
    /// old): ends the turn and tells the user.
    fn finish_turn(&mut self, channel: &str) {
        if self.channels.get(channel).is_some_and(|c| c.turn.is_some()) {
            self.alerts.push(Alert::TurnEnded {
                channel: channel.to_string(),
            });
        }
        self.end_turn(channel);
    }

    /// The turn is over: tools that never ended have an unknown outcome,
    /// bubbles that never stopped stay as interim text, requests nobody
    /// resolved wait no more.
    fn end_turn(&mut self, channel: &str) {
        let Some(c) = self.channels.get_mut(channel) else {
            return;
        };
        let Some(turn) = c.turn.take() else {
            return;
        };
        end_waiting(c, &mut self.changes);
        for key in turn.tools.iter().chain(turn.bubbles.iter()) {
            let Some(row) = c.timeline.get_mut(key) else {
                continue;
            };
            let changed = match &mut row.body {
                RowBody::Tool(t) if t.state == ToolState::Running => {
                    t.state = ToolState::Unknown;
                    true
                }
                RowBody::Assistant(a) if a.streaming => {
                    a.streaming = false;
                    a.interim = true;
                    true
                }
                _ => false,
            };
            if changed {
                self.changes
                    .push(Change::Row(channel.to_string(), key.clone()));
            }
        }
        self.changes.push(Change::Turn(channel.to_string()));
        self.changes.push(Change::Channels);
    }

    fn end_stale_turns(&mut self) {
        let stale: Vec<String> = self
            .channels
            .values()
            .filter(|c| c.turn.as_ref().is_some_and(|t| t.stale))
            .map(|c| c.meta.channel_id.clone())
            .collect();
        for id in stale {
            self.finish_turn(&id);
        }
    }

    // ----- streaming answers -----

    fn on_message_start(&mut self, s: MessageStart, now_ms: f64) -> Vec<Effect> {
        if let Some(c) = self.channels.get_mut(&s.channel_id) {
            // The typing dots give way to the bubble.
            c.typing = false;
        }
        self.changes.push(Change::Turn(s.channel_id.clone()));
        self.snapshot(
            &s.channel_id,
            s.turn_id,
            &s.message_id,
            String::new(),
            now_ms,
        );
        Vec::new()
    }

    fn on_message_update(&mut self, u: MessageUpdate, now_ms: f64) -> Vec<Effect> {
        self.snapshot(&u.channel_id, u.turn_id, &u.message_id, u.text, now_ms);
        Vec::new()
    }

    /// A `message.start` (empty text) or `message.update` snapshot.
    fn snapshot(
        &mut self,
        channel: &str,
        turn_id: Option<String>,
        message_id: &str,
        text: String,
        now_ms: f64,
    ) {
        let Some(turn) = self.ensure_turn(channel, turn_id.as_deref(), now_ms) else {
            return;
        };
        let key = RowKey::message(message_id);
        let Some(c) = self.channels.get_mut(channel) else {
            return;
        };
        if let Some(t) = &mut c.turn {
            t.add_bubble(&key);
        }
        match c.timeline.get_mut(&key) {
            Some(row) => {
                let RowBody::Assistant(a) = &mut row.body else {
                    return;
                };
                // A stopped bubble keeps its final text; an empty start
                // re-sent on resume keeps the text streamed so far.
                if !a.streaming || a.text == text || (text.is_empty() && !a.text.is_empty()) {
                    return;
                }
                a.text = text;
                self.changes.push(Change::Row(channel.to_string(), key));
            }
            None => {
                c.timeline.upsert(Row {
                    key,
                    seq: None,
                    turn: Some(turn),
                    ts: now_ms as i64,
                    body: RowBody::Assistant(Answer {
                        text,
                        streaming: true,
                        ..Answer::default()
                    }),
                });
                self.changes.push(Change::Order(channel.to_string()));
                self.changes.push(Change::Turn(channel.to_string()));
            }
        }
    }

    fn on_message_stop(&mut self, s: MessageStop) -> Vec<Effect> {
        let key = RowKey::message(&s.message_id);
        let turn = match self.turn_mut(&s.channel_id) {
            Some(t) => {
                t.answered = true;
                t.bubbles.retain(|b| *b != key);
                Some(t.id.clone())
            }
            None => None,
        };
        let row = Row {
            key,
            seq: Some(s.seq),
            turn: s.turn_id.or(turn),
            ts: s.ts,
            body: RowBody::Assistant(Answer {
                text: s.final_text,
                reasoning: s.reasoning,
                model: s.model,
                tokens: s.tokens,
                ..Answer::default()
            }),
        };
        self.changes.push(Change::Turn(s.channel_id.clone()));
        self.put_logged(&s.channel_id, row, true)
    }

    fn on_message(&mut self, m: InChannel<MessageItem>) -> Vec<Effect> {
        let own = self.delivered(&m.channel_id, m.item.client_msg_id.as_deref());
        let mut effects = own.clone();
        let own_key = m.item.client_msg_id.as_deref().map(RowKey::send);
        let row = Row::from_message(m.item);
        if matches!(row.body, RowBody::Assistant(_)) {
            if let Some(t) = self.turn_mut(&m.channel_id) {
                t.answered = true;
                self.changes.push(Change::Turn(m.channel_id.clone()));
            }
        }
        effects.extend(self.put_logged(&m.channel_id, row, own.is_empty()));
        if let (false, Some(key)) = (own.is_empty(), own_key) {
            // The echo could not take its row's place (its seq is
            // shown by another row): the message is still delivered.
            self.mark_delivered(&m.channel_id, &key);
        }
        effects
    }

    fn on_commentary(&mut self, c: InChannel<CommentaryItem>, now_ms: f64) -> Vec<Effect> {
        let text = c.item.text.clone();
        let mut row = Row::from_commentary(c.item);
        row.turn = self.ensure_turn(&c.channel_id, row.turn.as_deref(), now_ms);
        if let Some(t) = self.turn_mut(&c.channel_id) {
            t.push_event(WorkEvent::Commentary(text));
            self.changes.push(Change::Turn(c.channel_id.clone()));
        }
        self.put_logged(&c.channel_id, row, true)
    }

    // ----- tools -----

    fn on_tool_start(&mut self, t: ToolStart, now_ms: f64) -> Vec<Effect> {
        let Some(turn) = self.ensure_turn(&t.channel_id, t.turn_id.as_deref(), now_ms) else {
            return Vec::new();
        };
        let key = RowKey::tool(&turn, t.index);
        let Some(c) = self.channels.get_mut(&t.channel_id) else {
            return Vec::new();
        };
        if let Some(tr) = &mut c.turn {
            tr.add_tool(&key);
            tr.push_event(WorkEvent::Tool(key.clone()));
        }
        self.changes.push(Change::Turn(t.channel_id.clone()));
        // A re-sent start (after a reconnect) or a start after its end
        // changes nothing already shown.
        if c.timeline.get(&key).is_some() {
            return Vec::new();
        }
        c.timeline.upsert(Row {
            key,
            seq: None,
            turn: Some(turn),
            ts: now_ms as i64,
            body: RowBody::Tool(ToolCall {
                emoji: t.emoji,
                preview: t.preview,
                args: t.args,
                ..ToolCall::running(t.index, t.name)
            }),
        });
        self.changes.push(Change::Order(t.channel_id));
        Vec::new()
    }

    fn on_tool_progress(&mut self, p: ToolProgress, now_ms: f64) -> Vec<Effect> {
        let Some(turn) = self.ensure_turn(&p.channel_id, p.turn_id.as_deref(), now_ms) else {
            return Vec::new();
        };
        let key = RowKey::tool(&turn, p.index);
        let Some(c) = self.channels.get_mut(&p.channel_id) else {
            return Vec::new();
        };
        if let Some(tr) = &mut c.turn {
            tr.push_event(WorkEvent::Note {
                tool: key.clone(),
                note: p.note.clone(),
            });
        }
        self.changes.push(Change::Turn(p.channel_id.clone()));
        if let Some(Row {
            body: RowBody::Tool(call),
            ..
        }) = c.timeline.get_mut(&key)
        {
            if call.state == ToolState::Running {
                if call.notes.len() == MAX_NOTES {
                    call.notes.remove(0);
                }
                call.notes.push(p.note);
                self.changes.push(Change::Row(p.channel_id, key));
            }
        }
        Vec::new()
    }

    fn on_tool_end(&mut self, e: ToolEnd, now_ms: f64) -> Vec<Effect> {
        let turn = match (&e.turn_id, self.turn_mut(&e.channel_id)) {
            (Some(id), _) => Some(id.clone()),
            (None, Some(t)) => Some(t.id.clone()),
            (None, None) => None,
        };
        let key = RowKey::logged_tool(turn.as_deref(), e.index, e.seq);
        let started = match self.row(&e.channel_id, &key) {
            Some(Row {
                body: RowBody::Tool(call),
                ts,
                ..
            }) => Some((call.clone(), *ts)),
            _ => None,
        };
        let (mut call, ts) =
            started.unwrap_or_else(|| (ToolCall::running(e.index, e.name.clone()), now_ms as i64));
        call.state = if e.ok {
            ToolState::Ok
        } else {
            ToolState::Failed
        };
        call.duration = Some(e.duration);
        call.output_preview = e.output_preview;
        call.output = e.output;
        if call.name.is_empty() {
            call.name = e.name;
        }
        let row = Row {
            key,
            seq: Some(e.seq),
            turn,
            ts,
            body: RowBody::Tool(call),
        };
        self.put_logged(&e.channel_id, row, false)
    }

    // ----- logged items and history -----

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

    fn on_history(&mut self, h: History) -> Vec<Effect> {
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
        self.reveal_selected(&channel);
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

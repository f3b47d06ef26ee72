//! A turn's live frames: `typing`, the streamed answer (`message.start`,
//! `message.update`, `message.stop`), final `message`s and `commentary`,
//! the delivery of the user's own sends, and when a turn begins and ends.

use super::approval::end_waiting;
use super::row::{Answer, Row, RowBody, SendState, ToolState};
use super::row_key::RowKey;
use super::turn::{Turn, WorkEvent};
use super::{Alert, Change, Effect, Store};
use crate::protocol::{
    CommentaryItem, InChannel, MessageItem, MessageStart, MessageStop, MessageUpdate, Typing,
};

impl Store {
    /// The echo of one of this client's sends arrived: it is delivered.
    pub(super) fn delivered(&mut self, channel: &str, client_msg_id: Option<&str>) -> Vec<Effect> {
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

    pub(super) fn mark_delivered(&mut self, channel: &str, key: &RowKey) {
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

    pub(super) fn on_typing(&mut self, t: Typing, now_ms: f64) -> Vec<Effect> {
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

    pub(super) fn turn_mut(&mut self, channel: &str) -> Option<&mut Turn> {
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
    pub(super) fn finish_turn(&mut self, channel: &str) {
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
    pub(super) fn end_turn(&mut self, channel: &str) {
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

    pub(super) fn end_stale_turns(&mut self) {
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

    pub(super) fn on_message_start(&mut self, s: MessageStart, now_ms: f64) -> Vec<Effect> {
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

    pub(super) fn on_message_update(&mut self, u: MessageUpdate, now_ms: f64) -> Vec<Effect> {
        self.snapshot(&u.channel_id, u.turn_id, &u.message_id, u.text, now_ms);
        Vec::new()
    }

    /// A `message.start` (empty text) or `message.update` snapshot.
    pub(super) fn snapshot(
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

    pub(super) fn on_message_stop(&mut self, s: MessageStop) -> Vec<Effect> {
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
                files: s.files,
                ..Answer::default()
            }),
        };
        self.changes.push(Change::Turn(s.channel_id.clone()));
        self.put_logged(&s.channel_id, row, true)
    }

    pub(super) fn on_message(&mut self, m: InChannel<MessageItem>) -> Vec<Effect> {
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

    pub(super) fn on_commentary(
        &mut self,
        c: InChannel<CommentaryItem>,
        now_ms: f64,
    ) -> Vec<Effect> {
        let text = c.item.text.clone();
        let mut row = Row::from_commentary(c.item);
        row.turn = self.ensure_turn(&c.channel_id, row.turn.as_deref(), now_ms);
        if let Some(t) = self.turn_mut(&c.channel_id) {
            t.push_event(WorkEvent::Commentary(text));
            self.changes.push(Change::Turn(c.channel_id.clone()));
        }
        self.put_logged(&c.channel_id, row, true)
    }
}

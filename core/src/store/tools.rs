//! Tool-call cards: `tool.start`, `tool.progress` and `tool.end`.

use super::row::{Row, RowBody, ToolCall, ToolState};
use super::row_key::RowKey;
use super::turn::WorkEvent;
use super::{Change, Effect, Store};
use crate::protocol::{ToolEnd, ToolProgress, ToolStart};

/// Most `tool.progress` notes kept per tool card.
const MAX_NOTES: usize = 20;

impl Store {
    pub(super) fn on_tool_start(&mut self, t: ToolStart, now_ms: f64) -> Vec<Effect> {
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

    pub(super) fn on_tool_progress(&mut self, p: ToolProgress, now_ms: f64) -> Vec<Effect> {
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

    pub(super) fn on_tool_end(&mut self, e: ToolEnd, now_ms: f64) -> Vec<Effect> {
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
}

//! Plans (§14): the agent's task list, one checklist per turn that changed
//! it. Live `plan` frames update the turn's checklist in place; the state
//! logged at the turn's end takes the same row (its key is the turn's), so
//! a turn never shows two. The running turn also keeps the list for its
//! progress draft (`render::plan_line` counts and words it).

use super::row::{Row, RowBody};
use super::row_key::RowKey;
use super::{Change, Effect, Store};
use crate::protocol::{LoggedPlan, Plan};

impl Row {
    /// A logged plan. Without a turn id the seq keeps keys unique.
    pub fn from_plan(item: LoggedPlan) -> Row {
        Row {
            key: RowKey::logged_plan(item.turn_id.as_deref(), item.seq),
            seq: Some(item.seq),
            turn: item.turn_id,
            ts: item.ts,
            body: RowBody::Plan(item.items),
        }
    }
}

impl Store {
    pub(super) fn on_plan(&mut self, p: Plan, now_ms: f64) -> Vec<Effect> {
        match p.seq {
            Some(seq) => self.logged_plan(p, seq),
            None => self.live_plan(p, now_ms),
        }
    }

    fn live_plan(&mut self, p: Plan, now_ms: f64) -> Vec<Effect> {
        let Some(turn) = self.ensure_turn(&p.channel_id, p.turn_id.as_deref(), now_ms) else {
            return Vec::new();
        };
        let key = RowKey::plan(&turn);
        let Some(c) = self.channels.get_mut(&p.channel_id) else {
            return Vec::new();
        };
        if let Some(t) = &mut c.turn {
            t.plan = Some(p.items.clone());
            self.changes.push(Change::Turn(p.channel_id.clone()));
        }
        // The logged state is final: a late live frame changes nothing.
        if c.timeline.get(&key).is_some_and(|r| r.seq.is_some()) {
            return Vec::new();
        }
        let row = Row {
            key: key.clone(),
            seq: None,
            turn: Some(turn),
            ts: now_ms as i64,
            body: RowBody::Plan(p.items),
        };
        if let Some(change) = c.timeline.upsert(row).change(&p.channel_id, key) {
            self.changes.push(change);
        }
        Vec::new()
    }

    fn logged_plan(&mut self, p: Plan, seq: u64) -> Vec<Effect> {
        let running = self
            .channels
            .get_mut(&p.channel_id)
            .and_then(|c| c.turn.as_mut())
            .filter(|t| p.turn_id.as_ref().is_none_or(|id| *id == t.id));
        let turn = match running {
            Some(t) => {
                t.plan = Some(p.items.clone());
                self.changes.push(Change::Turn(p.channel_id.clone()));
                Some(t.id.clone())
            }
            None => p.turn_id.clone(),
        };
        let row = Row::from_plan(LoggedPlan {
            seq,
            turn_id: turn,
            items: p.items,
            ts: p.ts,
            branch: None,
        });
        self.put_logged(&p.channel_id, row, false)
    }
}

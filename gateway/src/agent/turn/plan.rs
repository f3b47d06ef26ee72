//! The agent's task list (§14 `plan`), sent whole as it changes.

use aria_protocol::{Plan, PlanItem, ServerFrame};

use super::{Turn, TurnError};
use crate::clock::now_ms;

impl Turn {
    /// Sends the thread's current plan as a live `plan` frame (no `seq`).
    pub fn plan(&mut self, items: Vec<PlanItem>) -> Result<(), TurnError> {
        self.check()?;
        self.publish(ServerFrame::Plan(Plan {
            channel_id: self.channel_id.clone(),
            turn_id: Some(self.turn_id.clone()),
            seq: None,
            items,
            ts: now_ms(),
        }));
        Ok(())
    }
}

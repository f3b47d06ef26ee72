//! The agent's task list (§14 `plan`): sent whole as it changes, and its
//! final state logged once, right before the turn's last item.

use aria_protocol::{LoggedPlan, Plan, PlanItem, ServerFrame};

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
            items: items.clone(),
            ts: now_ms(),
            branch: None,
        }));
        self.plan = Some(items);
        Ok(())
    }

    /// Logs the plan this turn sent, if it has not (a `plan` item, sent
    /// again as a `plan` frame with its `seq`). An agent calls it right
    /// before its last item, the answer; the turn's end calls it for
    /// agents that do not.
    pub async fn log_plan(&mut self) -> Result<(), TurnError> {
        let Some(items) = self.plan.take() else {
            return Ok(());
        };
        let item = LoggedPlan {
            seq: 0,
            turn_id: Some(self.turn_id.clone()),
            items,
            ts: now_ms(),
            branch: None,
        };
        let channel_id = self.channel_id.clone();
        self.outbox
            .run(move |store, hub| {
                let item = store.append(&channel_id, item)?;
                hub.publish(&ServerFrame::Plan(item.frame(channel_id)));
                Ok(())
            })
            .await?;
        Ok(())
    }
}

//! §14 plans: the agent's task list (a todo list), sent whole.

use serde::{Deserialize, Serialize};

use crate::branch::lenient_branch;
use crate::Branch;

/// `plan`: the thread's current task list, replacing the last one. Live
/// frames have no `seq`; the state logged at the turn's end has one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub channel_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    pub items: Vec<PlanItem>,
    #[serde(default)]
    pub ts: i64,
    /// The logged plan's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

/// A plan's state at the end of the turn that changed it (history item
/// `plan`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggedPlan {
    pub seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub items: Vec<PlanItem>,
    #[serde(default)]
    pub ts: i64,
    /// The item's node and its siblings, when it has any (§12).
    #[serde(
        default,
        deserialize_with = "lenient_branch",
        skip_serializing_if = "Option::is_none"
    )]
    pub branch: Option<Box<Branch>>,
}

impl LoggedPlan {
    /// The live frame that announces this logged state in `channel_id`.
    pub fn frame(&self, channel_id: String) -> Plan {
        Plan {
            channel_id,
            turn_id: self.turn_id.clone(),
            seq: Some(self.seq),
            items: self.items.clone(),
            ts: self.ts,
            branch: self.branch.clone(),
        }
    }
}

/// One task of a plan; `text` is untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanItem {
    pub id: String,
    pub text: String,
    pub status: PlanStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
    Cancelled,
    /// A status this side does not know: shown as pending.
    #[serde(other)]
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerFrame;
    use serde_json::{json, Value};

    #[test]
    fn a_plan_frame_round_trips() {
        let frame = ServerFrame::Plan(Plan {
            channel_id: "c1".into(),
            turn_id: Some("t1".into()),
            seq: None,
            items: vec![
                PlanItem {
                    id: "1".into(),
                    text: "Read the code".into(),
                    status: PlanStatus::Completed,
                },
                PlanItem {
                    id: "2".into(),
                    text: "<b>Write</b> tests".into(),
                    status: PlanStatus::InProgress,
                },
            ],
            ts: 5,
            branch: None,
        });
        let text = frame.encode();
        let value: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(value["type"], "plan");
        assert_eq!(value["items"][1]["status"], "in_progress");
        assert!(value.get("seq").is_none());
        assert_eq!(ServerFrame::decode(&text).expect("decodes"), frame);
    }

    #[test]
    fn an_unknown_status_is_tolerated() {
        let text = json!({"type": "plan", "channel_id": "c1", "seq": 4, "ts": 1,
            "items": [{"id": "a", "text": "x", "status": "blocked"}]})
        .to_string();
        let Ok(ServerFrame::Plan(plan)) = ServerFrame::decode(&text) else {
            panic!("not a plan");
        };
        assert_eq!(plan.seq, Some(4));
        assert_eq!(plan.items[0].status, PlanStatus::Unknown);
    }

    #[test]
    fn a_logged_plan_is_a_history_item_and_its_frame_has_the_seq() {
        let text = json!({"type": "plan", "seq": 9, "turn_id": "t1", "ts": 3,
            "items": [{"id": "1", "text": "Ship", "status": "completed"}]})
        .to_string();
        let Ok(crate::HistoryItem::Plan(plan)) = crate::HistoryItem::decode(&text) else {
            panic!("not a plan item");
        };
        assert_eq!(plan.seq, 9);
        let frame = plan.frame("c1".into());
        assert_eq!(frame.seq, Some(9));
        assert_eq!(frame.turn_id.as_deref(), Some("t1"));
        assert_eq!(frame.items, plan.items);
        let item: Value = serde_json::to_value(crate::HistoryItem::Plan(plan)).expect("serializes");
        assert_eq!(item["type"], "plan");
        assert_eq!(item["items"][0]["text"], "Ship");
    }
}

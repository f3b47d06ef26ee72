//! What is live right now: the running turn of each channel, tracked from the
//! frames the gateway sends, so a device that joins mid-turn can be shown the
//! same state (§2) whatever agent produces the turn.

use std::collections::{BTreeMap, HashMap};

use aria_protocol::{
    ApprovalRequest, MessageStart, MessageUpdate, Plan, ServerFrame, ToolStart, Typing,
};

#[derive(Debug, Default)]
pub struct LiveTurns {
    turns: HashMap<String, LiveTurn>,
}

#[derive(Debug, Default)]
struct LiveTurn {
    /// The streaming bubble and its current full text.
    bubble: Option<(MessageStart, String)>,
    /// Tool calls started and not yet ended, by index.
    tools: BTreeMap<u32, ToolStart>,
    /// Approval requests not yet resolved, in the order they were asked.
    approvals: Vec<ApprovalRequest>,
    /// The plan as the turn last sent it (§14).
    plan: Option<Plan>,
}

impl LiveTurns {
    /// Follows one outgoing frame. A turn is live from `typing {on:true}` to
    /// `typing {on:false}`; frames outside that window change nothing, so a
    /// late frame can never leave a ghost turn behind.
    pub fn observe(&mut self, frame: &ServerFrame) {
        match frame {
            ServerFrame::Typing(Typing {
                channel_id,
                on: true,
            }) => {
                self.turns.entry(channel_id.clone()).or_default();
            }
            ServerFrame::Typing(Typing {
                channel_id,
                on: false,
            }) => {
                self.turns.remove(channel_id);
            }
            ServerFrame::ChannelDeleted(d) => {
                self.turns.remove(&d.channel_id);
            }
            ServerFrame::MessageStart(start) => {
                if let Some(turn) = self.turns.get_mut(&start.channel_id) {
                    turn.bubble = Some((start.clone(), String::new()));
                }
            }
            ServerFrame::MessageUpdate(update) => {
                if let Some(text) = self.bubble_text(&update.channel_id, &update.message_id) {
                    text.clone_from(&update.text);
                }
            }
            ServerFrame::MessageStop(stop) => {
                if let Some(turn) = self.turns.get_mut(&stop.channel_id) {
                    let stops_bubble = turn
                        .bubble
                        .as_ref()
                        .is_some_and(|(start, _)| start.message_id == stop.message_id);
                    if stops_bubble {
                        turn.bubble = None;
                    }
                }
            }
            ServerFrame::ToolStart(start) => {
                if let Some(turn) = self.turns.get_mut(&start.channel_id) {
                    turn.tools.insert(start.index, start.clone());
                }
            }
            ServerFrame::ToolEnd(end) => {
                if let Some(turn) = self.turns.get_mut(&end.channel_id) {
                    turn.tools.remove(&end.index);
                }
            }
            ServerFrame::Plan(plan) => {
                if let Some(turn) = self.turns.get_mut(&plan.channel_id) {
                    turn.plan = Some(plan.clone());
                }
            }
            ServerFrame::ApprovalRequest(request) => {
                if let Some(turn) = self.turns.get_mut(&request.channel_id) {
                    turn.approvals.push(request.clone());
                }
            }
            ServerFrame::ApprovalResolved(resolved) => {
                if let Some(turn) = self.turns.get_mut(&resolved.channel_id) {
                    turn.approvals
                        .retain(|r| r.request_id != resolved.item.request_id);
                }
            }
            _ => {}
        }
    }

    fn bubble_text(&mut self, channel_id: &str, message_id: &str) -> Option<&mut String> {
        match &mut self.turns.get_mut(channel_id)?.bubble {
            Some((start, text)) if start.message_id == message_id => Some(text),
            _ => None,
        }
    }

    /// The frames that bring a newly joined device up to date: per running
    /// turn `typing on`, the streaming bubble as start + one full update,
    /// every tool call still running, the plan the turn sent, then every
    /// pending approval request.
    pub fn resend(&self) -> Vec<ServerFrame> {
        let mut frames = Vec::new();
        for (channel_id, turn) in &self.turns {
            frames.push(ServerFrame::Typing(Typing {
                channel_id: channel_id.clone(),
                on: true,
            }));
            if let Some((start, text)) = &turn.bubble {
                frames.push(ServerFrame::MessageStart(start.clone()));
                frames.push(ServerFrame::MessageUpdate(MessageUpdate {
                    channel_id: channel_id.clone(),
                    turn_id: start.turn_id.clone(),
                    message_id: start.message_id.clone(),
                    text: text.clone(),
                }));
            }
            frames.extend(turn.tools.values().cloned().map(ServerFrame::ToolStart));
            frames.extend(turn.plan.clone().map(ServerFrame::Plan));
            frames.extend(
                turn.approvals
                    .iter()
                    .cloned()
                    .map(ServerFrame::ApprovalRequest),
            );
        }
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approvals::tests::{approval_item, request};
    use aria_protocol::{
        ChannelDeleted, Choice, InChannel, MessageStop, PlanItem, PlanStatus, Role, ToolEnd,
    };
    use serde_json::json;

    fn typing(on: bool) -> ServerFrame {
        ServerFrame::Typing(Typing {
            channel_id: "c1".into(),
            on,
        })
    }

    fn start() -> ServerFrame {
        ServerFrame::MessageStart(MessageStart {
            channel_id: "c1".into(),
            turn_id: Some("t1".into()),
            message_id: "m1".into(),
            role: Role::Assistant,
            ts: 1,
        })
    }

    fn update(text: &str) -> ServerFrame {
        ServerFrame::MessageUpdate(MessageUpdate {
            channel_id: "c1".into(),
            turn_id: Some("t1".into()),
            message_id: "m1".into(),
            text: text.into(),
        })
    }

    fn tool_start(index: u32) -> ServerFrame {
        ServerFrame::ToolStart(ToolStart {
            channel_id: "c1".into(),
            turn_id: Some("t1".into()),
            index,
            name: "terminal".into(),
            emoji: None,
            preview: "ls".into(),
            args: json!({"command": "ls"}),
            parent_index: None,
        })
    }

    fn tool_end(index: u32) -> ServerFrame {
        ServerFrame::ToolEnd(ToolEnd {
            channel_id: "c1".into(),
            turn_id: Some("t1".into()),
            index,
            seq: 3,
            name: "terminal".into(),
            ok: true,
            duration: 0.1,
            output_preview: String::new(),
            output: None,
            parent_index: None,
            branch: None,
        })
    }

    fn approval_request(request_id: &str) -> ServerFrame {
        ServerFrame::ApprovalRequest(request("c1", request_id))
    }

    fn approval_resolved(request_id: &str) -> ServerFrame {
        ServerFrame::ApprovalResolved(InChannel {
            channel_id: "c1".into(),
            item: approval_item(request_id, Choice::Once),
        })
    }

    fn types(frames: &[ServerFrame]) -> Vec<String> {
        frames
            .iter()
            .map(|f| {
                let v: serde_json::Value = serde_json::from_str(&f.encode()).expect("json");
                v["type"].as_str().unwrap_or_default().to_string()
            })
            .collect()
    }

    #[test]
    fn running_turn_is_resent_with_current_text_and_open_tools() {
        let mut live = LiveTurns::default();
        for f in [
            typing(true),
            start(),
            update("Hel"),
            update("Hello"),
            tool_start(1),
            tool_start(2),
            tool_end(1),
        ] {
            live.observe(&f);
        }
        let frames = live.resend();
        assert_eq!(
            types(&frames),
            ["typing", "message.start", "message.update", "tool.start"]
        );
        assert_eq!(frames[2], update("Hello"));
        assert_eq!(frames[3], tool_start(2));
    }

    #[test]
    fn pending_approvals_are_resent_after_the_tool_that_waits() {
        let mut live = LiveTurns::default();
        for f in [
            typing(true),
            start(),
            update("Checking"),
            tool_start(1),
            approval_request("a1"),
            approval_request("a2"),
            approval_resolved("a1"),
        ] {
            live.observe(&f);
        }
        let frames = live.resend();
        assert_eq!(
            types(&frames),
            [
                "typing",
                "message.start",
                "message.update",
                "tool.start",
                "approval.request"
            ]
        );
        assert_eq!(frames[4], approval_request("a2"));
        live.observe(&approval_resolved("a2"));
        assert_eq!(live.resend().len(), 4);
        live.observe(&approval_request("a3"));
        live.observe(&typing(false));
        assert!(live.resend().is_empty(), "a request dies with its turn");
        live.observe(&approval_request("a4"));
        assert!(live.resend().is_empty(), "no request outside a turn");
    }

    #[test]
    fn the_turns_newest_plan_is_resent_before_its_requests() {
        let plan = |status: PlanStatus| {
            ServerFrame::Plan(Plan {
                channel_id: "c1".into(),
                turn_id: Some("t1".into()),
                seq: None,
                items: vec![PlanItem {
                    id: "1".into(),
                    text: "Read".into(),
                    status,
                }],
                ts: 1,
                branch: None,
            })
        };
        let mut live = LiveTurns::default();
        live.observe(&plan(PlanStatus::Pending));
        live.observe(&typing(true));
        assert_eq!(types(&live.resend()), ["typing"], "a plan before the turn");
        for f in [
            tool_start(1),
            plan(PlanStatus::InProgress),
            plan(PlanStatus::Completed),
            approval_request("a1"),
        ] {
            live.observe(&f);
        }
        let frames = live.resend();
        assert_eq!(
            types(&frames),
            ["typing", "tool.start", "plan", "approval.request"]
        );
        assert_eq!(frames[2], plan(PlanStatus::Completed));
        live.observe(&typing(false));
        assert!(live.resend().is_empty());
    }

    #[test]
    fn stopped_bubble_and_ended_turn_are_not_resent() {
        let mut live = LiveTurns::default();
        for f in [typing(true), start(), update("Hi")] {
            live.observe(&f);
        }
        live.observe(&ServerFrame::MessageStop(MessageStop {
            channel_id: "c1".into(),
            turn_id: Some("t1".into()),
            message_id: "m1".into(),
            seq: 2,
            final_text: "Hi".into(),
            reasoning: None,
            model: None,
            tokens: None,
            ts: 2,
            branch: None,
            files: Box::default(),
        }));
        assert_eq!(types(&live.resend()), ["typing"]);
        live.observe(&typing(false));
        assert!(live.resend().is_empty());
    }

    #[test]
    fn frames_outside_a_turn_leave_no_ghost() {
        let mut live = LiveTurns::default();
        live.observe(&start());
        live.observe(&tool_start(1));
        assert!(live.resend().is_empty());
        live.observe(&typing(true));
        live.observe(&ServerFrame::ChannelDeleted(ChannelDeleted {
            channel_id: "c1".into(),
        }));
        assert!(live.resend().is_empty());
    }
}

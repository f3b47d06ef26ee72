//! A logged row back as the protocol's history item, so that the offline
//! copy is read through the same path as a gateway's page (and rendered
//! by the same sanitizer). Live rows (pending sends, streaming answers,
//! running tools, waiting approvals) are not logged and are not kept.

use crate::protocol::{
    ApprovalItem, CommentaryItem, HistoryItem, LoggedPlan, MessageItem, Role, ToolItem,
};
use crate::store::{ApprovalState, Row, RowBody, SendState, ToolState};

/// Who answered an approval is kept only as "another device" (the row
/// knows no more), which reads back as answered elsewhere.
const ANOTHER_DEVICE: &str = "another device";

pub fn item_of(row: &Row) -> Option<HistoryItem> {
    let seq = row.seq?;
    let turn_id = row.turn.clone();
    let ts = row.ts;
    // Rows of messages are keyed by their `message_id` (user messages of
    // this client by their `client_msg_id` instead, which is kept as well).
    let message_id = row.key.message_id().unwrap_or(row.key.as_str()).to_string();
    Some(match &row.body {
        RowBody::User(u) => {
            if u.send != SendState::Delivered {
                return None;
            }
            HistoryItem::Message(MessageItem {
                seq,
                message_id: u.message_id.clone().unwrap_or(message_id),
                role: Role::User,
                text: u.text.clone(),
                reasoning: None,
                model: None,
                tokens: None,
                ts,
                turn_id,
                client_msg_id: u.client_msg_id.clone(),
                branch: None,
                files: u.files.clone(),
            })
        }
        RowBody::Assistant(a) => {
            if a.streaming || a.interim {
                return None;
            }
            HistoryItem::Message(MessageItem {
                seq,
                message_id,
                role: if a.other_role {
                    Role::Other
                } else {
                    Role::Assistant
                },
                text: a.text.clone(),
                reasoning: a.reasoning.clone(),
                model: a.model.clone(),
                tokens: a.tokens,
                ts,
                turn_id,
                client_msg_id: None,
                branch: None,
                files: a.files.clone(),
            })
        }
        RowBody::Commentary(text) => HistoryItem::Commentary(CommentaryItem {
            seq,
            message_id,
            text: text.clone(),
            ts,
            turn_id,
            parent_index: None,
            branch: None,
        }),
        RowBody::Tool(t) => {
            let ok = match t.state {
                ToolState::Ok => true,
                ToolState::Failed => false,
                ToolState::Running | ToolState::Unknown => return None,
            };
            HistoryItem::Tool(ToolItem {
                seq,
                turn_id,
                index: t.index,
                name: t.name.clone(),
                emoji: t.emoji.clone(),
                preview: t.preview.clone(),
                args: t.args.clone(),
                ok,
                duration: t.duration.unwrap_or_default(),
                output_preview: t.output_preview.clone(),
                output: t.output.clone(),
                ts,
                parent_index: t.parent,
                branch: None,
            })
        }
        RowBody::Approval(a) => {
            let ApprovalState::Resolved { choice, elsewhere } = &a.state else {
                return None;
            };
            HistoryItem::Approval(ApprovalItem {
                seq,
                turn_id,
                request_id: a.request_id.clone(),
                title: a.title.clone(),
                command: a.command.clone(),
                description: a.description.clone(),
                choice: *choice,
                device_id: elsewhere.then(|| ANOTHER_DEVICE.to_string()),
                ts,
                branch: None,
            })
        }
        RowBody::Plan(items) => HistoryItem::Plan(LoggedPlan {
            seq,
            turn_id,
            items: items.clone(),
            ts,
            branch: None,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Choice;
    use crate::store::{Answer, RowKey, UserMessage};

    fn message(role: Role, cmid: Option<&str>) -> MessageItem {
        MessageItem {
            seq: 4,
            message_id: "m1".into(),
            role,
            text: "**hi** <b>x</b>".into(),
            reasoning: (role == Role::Assistant).then(|| "think".into()),
            model: (role == Role::Assistant).then(|| "gpt".into()),
            tokens: (role == Role::Assistant).then_some(12),
            ts: 99,
            turn_id: Some("t1".into()),
            client_msg_id: cmid.map(str::to_string),
            branch: None,
            files: Box::default(),
        }
    }

    /// What the store makes of an item is what it makes of the item kept
    /// from that row: the offline copy shows the same rows.
    fn same_row_again(item: HistoryItem) {
        let row = match item {
            HistoryItem::Message(m) => Row::from_message(m),
            HistoryItem::Commentary(c) => Row::from_commentary(c),
            HistoryItem::Tool(t) => Row::from_tool(t),
            HistoryItem::Plan(p) => Row::from_plan(p),
            HistoryItem::Approval(a) => {
                let elsewhere = a.device_id.is_some();
                Row::from_approval(a, elsewhere, None)
            }
            HistoryItem::Unknown => unreachable!(),
        };
        let again = match item_of(&row) {
            Some(HistoryItem::Message(m)) => Row::from_message(m),
            Some(HistoryItem::Commentary(c)) => Row::from_commentary(c),
            Some(HistoryItem::Tool(t)) => Row::from_tool(t),
            Some(HistoryItem::Plan(p)) => Row::from_plan(p),
            Some(HistoryItem::Approval(a)) => {
                let elsewhere = a.device_id.is_some();
                Row::from_approval(a, elsewhere, None)
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(again, row);
    }

    #[test]
    fn logged_rows_come_back_as_the_same_rows() {
        same_row_again(HistoryItem::Message(message(Role::Assistant, None)));
        same_row_again(HistoryItem::Message(message(Role::Other, None)));
        same_row_again(HistoryItem::Message(message(Role::User, Some("k_1"))));
        same_row_again(HistoryItem::Message(message(Role::User, None)));
        same_row_again(HistoryItem::Commentary(CommentaryItem {
            seq: 2,
            message_id: "c1".into(),
            text: "looking".into(),
            ts: 5,
            turn_id: None,
            parent_index: None,
            branch: None,
        }));
        for ok in [true, false] {
            same_row_again(HistoryItem::Tool(ToolItem {
                seq: 3,
                turn_id: Some("t1".into()),
                index: 0,
                name: "shell".into(),
                emoji: Some("💻".into()),
                preview: "ls".into(),
                args: serde_json::json!({"cmd": "ls"}),
                ok,
                duration: 1.5,
                output_preview: "a b".into(),
                output: Some("a\nb".into()),
                ts: 6,
                parent_index: Some(2),
                branch: None,
            }));
        }
        same_row_again(HistoryItem::Plan(LoggedPlan {
            seq: 4,
            turn_id: Some("t1".into()),
            items: vec![crate::protocol::PlanItem {
                id: "1".into(),
                text: "Read".into(),
                status: crate::protocol::PlanStatus::InProgress,
            }],
            ts: 6,
            branch: None,
        }));
        for device in [None, Some("d2".to_string())] {
            same_row_again(HistoryItem::Approval(ApprovalItem {
                seq: 7,
                turn_id: Some("t1".into()),
                request_id: "r1".into(),
                title: "Run rm?".into(),
                command: Some("rm -rf x".into()),
                description: None,
                choice: Choice::Deny,
                device_id: device,
                ts: 8,
                branch: None,
            }));
        }
    }

    #[test]
    fn live_rows_are_not_kept() {
        let pending = Row {
            key: RowKey::send("k_1"),
            seq: None,
            turn: None,
            ts: 0,
            body: RowBody::User(UserMessage {
                text: "queued".into(),
                message_id: None,
                client_msg_id: Some("k_1".into()),
                send: SendState::Pending,
                files: Box::default(),
            }),
        };
        assert_eq!(item_of(&pending), None);
        let streaming = Row {
            key: RowKey::message("m2"),
            seq: Some(9),
            turn: None,
            ts: 0,
            body: RowBody::Assistant(Answer {
                text: "half".into(),
                streaming: true,
                ..Answer::default()
            }),
        };
        assert_eq!(item_of(&streaming), None);
    }
}

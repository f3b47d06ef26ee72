use serde_json::json;

use super::*;

fn round_trip_server(frame: ServerFrame) {
    let text = frame.encode();
    assert_eq!(ServerFrame::decode(&text), Ok(frame), "{text}");
}

fn round_trip_client(frame: ClientFrame) {
    let text = frame.encode();
    assert_eq!(ClientFrame::decode(&text), Ok(frame), "{text}");
}

fn channel() -> Channel {
    Channel {
        channel_id: "c1".into(),
        title: "Repo tour".into(),
        created_at: 1_700_000_000_000,
        updated_at: 1_700_000_000_500,
        auto: true,
        last_seq: 9,
        preview: Some("The repo has…".into()),
        branch_rev: Some(3),
    }
}

fn message_item() -> MessageItem {
    MessageItem {
        seq: 7,
        message_id: "m1".into(),
        role: Role::User,
        text: "summarize the repo".into(),
        reasoning: Some("think".into()),
        model: Some("demo".into()),
        tokens: Some(42),
        ts: 5,
        turn_id: Some("t1".into()),
        client_msg_id: Some("k1".into()),
        branch: None,
        files: Box::default(),
    }
}

fn tool_item() -> ToolItem {
    ToolItem {
        seq: 8,
        turn_id: Some("t1".into()),
        index: 1,
        name: "terminal".into(),
        emoji: Some("🛠️".into()),
        preview: "ls -la".into(),
        args: json!({"command": "ls -la"}),
        ok: true,
        duration: 0.4,
        output_preview: "12 files".into(),
        output: Some("a\nb".into()),
        ts: 9,
        parent_index: Some(2),
        branch: None,
    }
}

fn approval_item() -> ApprovalItem {
    ApprovalItem {
        seq: 12,
        turn_id: Some("t1".into()),
        request_id: "a1".into(),
        title: "Run a shell command?".into(),
        command: Some("rm -rf build".into()),
        description: Some("recursive delete".into()),
        choice: Choice::Session,
        device_id: Some("d2".into()),
        ts: 13,
        branch: None,
    }
}

#[test]
fn every_server_frame_round_trips() {
    let c = || "c1".to_string();
    let t = || Some("t1".to_string());
    let frames = vec![
        ServerFrame::Ready(Ready {
            protocol: 1,
            server: "aria-gateway/0.1".into(),
            device_id: "d1".into(),
            channels: vec![channel()],
            limits: None,
        }),
        ServerFrame::Pong(Ping { t: json!(123) }),
        ServerFrame::Error(ErrorFrame {
            code: ErrorCode::TooLarge,
            message: "too big".into(),
            channel_id: Some(c()),
            client_msg_id: Some("k1".into()),
            request_id: Some("a1".into()),
            query: Some("repo".into()),
            upload_id: None,
        }),
        ServerFrame::ChannelList(ChannelList {
            channels: vec![channel()],
        }),
        ServerFrame::ChannelCreated(ChannelCreated {
            channel: channel(),
            auto: true,
            client_ref: Some("r".into()),
            client_msg_id: Some("k1".into()),
        }),
        ServerFrame::ChannelRenamed(ChannelRenamed {
            channel_id: c(),
            title: "Better".into(),
            auto: true,
        }),
        ServerFrame::ChannelDeleted(ChannelDeleted { channel_id: c() }),
        ServerFrame::Typing(Typing {
            channel_id: c(),
            on: true,
        }),
        ServerFrame::MessageStart(MessageStart {
            channel_id: c(),
            turn_id: t(),
            message_id: "m1".into(),
            role: Role::Assistant,
            ts: 3,
        }),
        ServerFrame::MessageUpdate(MessageUpdate {
            channel_id: c(),
            turn_id: t(),
            message_id: "m1".into(),
            text: "Let me look…".into(),
        }),
        ServerFrame::MessageStop(MessageStop {
            channel_id: c(),
            turn_id: t(),
            message_id: "m1".into(),
            seq: 10,
            final_text: "done".into(),
            reasoning: Some("r".into()),
            model: Some("demo".into()),
            tokens: Some(42),
            ts: 4,
            branch: None,
            files: Box::default(),
        }),
        ServerFrame::Message(InChannel {
            channel_id: c(),
            item: message_item(),
        }),
        ServerFrame::Commentary(InChannel {
            channel_id: c(),
            item: CommentaryItem {
                seq: 9,
                message_id: "m2".into(),
                text: "Found 12 files.".into(),
                ts: 1,
                turn_id: t(),
                parent_index: Some(1),
                branch: None,
            },
        }),
        ServerFrame::ToolStart(ToolStart {
            channel_id: c(),
            turn_id: t(),
            index: 1,
            name: "terminal".into(),
            emoji: Some("🛠️".into()),
            preview: "ls -la".into(),
            args: json!({"command": "ls -la"}),
            parent_index: Some(3),
        }),
        ServerFrame::ToolProgress(ToolProgress {
            channel_id: c(),
            turn_id: t(),
            index: 1,
            name: "terminal".into(),
            note: "half way".into(),
            parent_index: Some(3),
        }),
        ServerFrame::ToolEnd(ToolEnd {
            channel_id: c(),
            turn_id: t(),
            index: 1,
            seq: 8,
            name: "terminal".into(),
            ok: false,
            duration: 0.4,
            output_preview: "12 files".into(),
            output: Some("full".into()),
            parent_index: None,
            branch: None,
        }),
        ServerFrame::History(History {
            channel_id: c(),
            items: vec![
                HistoryItem::Message(message_item()),
                HistoryItem::Commentary(CommentaryItem {
                    seq: 9,
                    message_id: "m2".into(),
                    text: "x".into(),
                    ts: 1,
                    turn_id: None,
                    parent_index: None,
                    branch: None,
                }),
                HistoryItem::Tool(tool_item()),
                HistoryItem::Approval(approval_item()),
                HistoryItem::Plan(LoggedPlan {
                    seq: 12,
                    turn_id: t(),
                    items: vec![PlanItem {
                        id: "1".into(),
                        text: "Read".into(),
                        status: PlanStatus::InProgress,
                    }],
                    ts: 12,
                    branch: None,
                }),
            ],
            has_more: true,
            has_newer: Some(false),
            before: None,
            after: None,
            around: Some(8),
            branch_rev: Some(2),
        }),
        ServerFrame::ApprovalRequest(ApprovalRequest {
            channel_id: c(),
            turn_id: t(),
            request_id: "a1".into(),
            title: "Run a shell command?".into(),
            command: Some("rm -rf build".into()),
            description: Some("recursive delete".into()),
            choices: vec![Choice::Once, Choice::Session, Choice::Always, Choice::Deny],
            ts: 11,
        }),
        ServerFrame::ApprovalResolved(InChannel {
            channel_id: c(),
            item: approval_item(),
        }),
        ServerFrame::SearchResults(SearchResults {
            query: "repo".into(),
            channel_id: Some(c()),
            hits: vec![Hit {
                channel_id: c(),
                seq: 7,
                kind: HitKind::Message,
                role: Some(Role::User),
                snippet: "summarize the repo".into(),
                ts: 5,
                on_path: Some(false),
            }],
            cursor: Some("opaque".into()),
        }),
    ];
    for f in frames {
        round_trip_server(f);
    }
}

#[test]
fn every_client_frame_round_trips() {
    let frames = vec![
        ClientFrame::Hello(Hello {
            token: Some("s3cret".into()),
            device_id: "d1".into(),
            client: "aria-web/0.1.0".into(),
            protocol: 1,
        }),
        ClientFrame::Ping(Ping { t: json!(17.5) }),
        ClientFrame::ChannelList(Empty {}),
        ClientFrame::ChannelCreate(ChannelCreate {
            title: Some("x".into()),
            client_ref: Some("r1".into()),
        }),
        ClientFrame::ChannelRename(ChannelRename {
            channel_id: "c1".into(),
            title: "y".into(),
        }),
        ClientFrame::ChannelDelete(ChannelRef {
            channel_id: "c1".into(),
        }),
        ClientFrame::MessageSend(MessageSend {
            channel_id: None,
            text: "hi".into(),
            client_msg_id: "k1".into(),
            auto_thread: Some(true),
            files: Vec::new(),
        }),
        ClientFrame::TurnCancel(ChannelRef {
            channel_id: "c1".into(),
        }),
        ClientFrame::HistoryGet(HistoryGet {
            channel_id: "c1".into(),
            before: Some(10),
            after: None,
            around: None,
            limit: Some(200),
        }),
        ClientFrame::HistoryGet(HistoryGet {
            channel_id: "c1".into(),
            before: None,
            after: None,
            around: Some(4000),
            limit: Some(50),
        }),
        ClientFrame::ApprovalRespond(ApprovalRespond {
            channel_id: "c1".into(),
            request_id: "a1".into(),
            choice: Choice::Deny,
        }),
        ClientFrame::Search(Search {
            query: "repo tour".into(),
            channel_id: None,
            limit: Some(20),
            cursor: Some("next".into()),
        }),
    ];
    for f in frames {
        round_trip_client(f);
    }
}

#[test]
fn wire_names_match_the_contract() {
    let f = ClientFrame::HistoryGet(HistoryGet {
        channel_id: "c".into(),
        before: None,
        after: Some(3),
        around: None,
        limit: None,
    });
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&f.encode()).unwrap(),
        json!({"type": "history.get", "channel_id": "c", "after": 3})
    );
    let m = ServerFrame::Message(InChannel {
        channel_id: "c".into(),
        item: message_item(),
    });
    let v: serde_json::Value = serde_json::from_str(&m.encode()).unwrap();
    assert_eq!(v["type"], "message");
    assert_eq!(v["channel_id"], "c");
    assert_eq!(v["role"], "user");
    assert_eq!(v["client_msg_id"], "k1");
}

#[test]
fn titles_follow_the_length_rule() {
    assert_eq!(valid_title("  Hi  "), Some("Hi"));
    assert_eq!(valid_title("   "), None);
    assert!(valid_title(&"é".repeat(120)).is_some());
    assert!(valid_title(&"é".repeat(121)).is_none());
}

#[test]
fn approval_and_search_wire_names_match_the_contract() {
    let r = ServerFrame::ApprovalResolved(InChannel {
        channel_id: "c".into(),
        item: approval_item(),
    });
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&r.encode()).unwrap(),
        json!({"type": "approval.resolved", "channel_id": "c", "seq": 12, "turn_id": "t1",
               "request_id": "a1", "title": "Run a shell command?", "command": "rm -rf build",
               "description": "recursive delete", "choice": "session", "device_id": "d2", "ts": 13})
    );
    let q = ClientFrame::Search(Search {
        query: "x".into(),
        channel_id: None,
        limit: None,
        cursor: None,
    });
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&q.encode()).unwrap(),
        json!({"type": "search", "query": "x"})
    );
}

#[test]
fn only_user_answers_count_as_answers() {
    for c in [Choice::Once, Choice::Session, Choice::Always, Choice::Deny] {
        assert!(c.is_answer());
    }
    for c in [Choice::Timeout, Choice::Cancelled, Choice::Other] {
        assert!(!c.is_answer() && !c.allows());
    }
    assert!(!Choice::Deny.allows());
}

#[test]
fn queries_follow_the_length_rule() {
    assert_eq!(valid_query("  rust  "), Some("rust"));
    assert_eq!(valid_query("   "), None);
    assert!(valid_query(&"é".repeat(200)).is_some());
    assert!(valid_query(&"é".repeat(201)).is_none());
}

use super::*;
use crate::protocol::{ApprovalItem, Choice, CommentaryItem, MessageItem, ToolItem};
use serde_json::json;

// 2026-12-01 10:02 UTC.
const TS: i64 = 1_796_119_320_000;

fn msg(seq: u64, role: Role, text: &str, reasoning: Option<&str>) -> HistoryItem {
    HistoryItem::Message(MessageItem {
        seq,
        message_id: format!("m{seq}"),
        role,
        text: text.into(),
        reasoning: reasoning.map(Into::into),
        model: None,
        tokens: None,
        ts: TS,
        turn_id: None,
        client_msg_id: None,
        branch: None,
    })
}

fn tool_item(output: &str) -> HistoryItem {
    HistoryItem::Tool(ToolItem {
        seq: 3,
        turn_id: None,
        index: 0,
        name: "terminal".into(),
        emoji: None,
        preview: "ls -la".into(),
        args: json!({"command": "ls -la"}),
        ok: true,
        duration: 0.4,
        output_preview: "short".into(),
        output: Some(output.into()),
        ts: TS,
        branch: None,
    })
}

#[test]
fn times_are_local_calendar_minutes() {
    assert_eq!(datetime(TS, 0), "2026-12-01 10:02");
    assert_eq!(datetime(TS, 60), "2026-12-01 11:02");
    assert_eq!(datetime(TS, -11 * 60), "2026-11-30 23:02");
    assert_eq!(datetime(951_782_400_000, 0), "2000-02-29 00:00");
    assert_eq!(datetime(0, 0), "unknown time");
    assert_eq!(datetime(-5, 0), "unknown time");
    let _ = datetime(i64::MAX, i32::MAX);
}

#[test]
fn messages_show_role_time_and_quoted_reasoning() {
    let md = markdown_items(
        &[
            msg(1, Role::User, "Hi there", None),
            msg(2, Role::Assistant, "Answer", Some("step one\n\nstep two")),
        ],
        0,
    );
    assert_eq!(
        md,
        "**You** · 2026-12-01 10:02\n\nHi there\n\n\
         **Assistant** · 2026-12-01 10:02\n\n> step one\n>\n> step two\n\nAnswer\n\n"
    );
}

#[test]
fn tools_are_one_line_with_details() {
    let md = markdown_items(&[tool_item("total 0\n")], 0);
    assert!(
        md.starts_with("🛠️ terminal — ls -la — ok, 0.4 s\n\n<details><summary>"),
        "{md}"
    );
    assert!(md.contains("```json\n{\n  \"command\": \"ls -la\"\n}\n```\n"));
    assert!(md.contains("```text\ntotal 0\n```\n"), "{md}");
    assert!(md.ends_with("</details>\n\n"));
}

#[test]
fn commentary_is_italic_and_approvals_one_line() {
    let md = markdown_items(
        &[
            HistoryItem::Commentary(CommentaryItem {
                seq: 4,
                message_id: "c".into(),
                text: "Looking *closely*\nnow".into(),
                ts: TS,
                turn_id: None,
                branch: None,
            }),
            HistoryItem::Approval(ApprovalItem {
                seq: 5,
                turn_id: None,
                request_id: "r".into(),
                title: "Run a shell command?".into(),
                command: None,
                description: None,
                choice: Choice::Deny,
                device_id: None,
                ts: TS,
                branch: None,
            }),
        ],
        0,
    );
    assert_eq!(
        md,
        "*Looking \\*closely\\* now*\n\nApproval: Run a shell command? — Denied\n\n"
    );
}

#[test]
fn hostile_text_cannot_add_headings_or_html_blocks() {
    let md = markdown_items(
        &[msg(
            1,
            Role::Assistant,
            "# Fake heading\n  ## also\nline\n===\n---\n</details>\n<script>x</script>\n    # indented code stays",
            Some("# in reasoning"),
        )],
        0,
    );
    for bad in [
        "\n# ",
        "\n  ## ",
        "\n===",
        "\n---",
        "\n</details>",
        "\n<script>",
        "> #",
    ] {
        assert!(!md.contains(bad), "{bad:?} in {md}");
    }
    assert!(md.contains("\n\\# Fake heading\n  \\## also\nline\n\\===\n\\---\n\\</details>"));
    assert!(md.contains("\n    # indented code stays"));
    assert!(md.contains("> \\# in reasoning"));
}

#[test]
fn code_in_messages_stays_verbatim_and_open_fences_close() {
    let md = markdown_items(
        &[msg(
            1,
            Role::Assistant,
            "```sh\n# comment\n```\n# after",
            None,
        )],
        0,
    );
    assert!(md.contains("```sh\n# comment\n```\n\\# after"), "{md}");
    let md = markdown_items(
        &[
            msg(1, Role::Assistant, "~~~~\n# open", None),
            msg(2, Role::User, "# next", None),
        ],
        0,
    );
    assert!(md.contains("~~~~\n# open\n~~~~\n\n**You**"), "{md}");
    assert!(md.contains("\\# next"));
}

#[test]
fn fences_outgrow_backtick_runs_inside() {
    let md = markdown_items(&[tool_item("a ````` b\n```\n</details>\n")], 0);
    assert!(
        md.contains("\n``````text\na ````` b\n```\n</details>\n``````\n"),
        "{md}"
    );
    assert_eq!(md.matches("</details>").count(), 2);
    assert_eq!(fenced("x", ""), "```\nx\n```\n\n");
}

#[test]
fn titles_and_file_names_are_escaped() {
    let head = markdown_head("# <b>T</b>\n# two", "c`1", TS, 0);
    assert!(
        head.starts_with("# \\# \\<b\\>T\\</b\\> \\# two\n\n"),
        "{head}"
    );
    assert!(head.contains("`` c`1 ``"));
    assert!(markdown_head("  ", "c", TS, 0).starts_with("# Untitled\n"));
    assert_eq!(
        file_name("Fix: the ../../etc/passwd bug!", "md"),
        "Fix-the-etc-passwd-bug.md"
    );
    assert_eq!(file_name("..", "json"), "thread.json");
    assert_eq!(file_name("Über café 日本", "md"), "Über-café-日本.md");
    assert_eq!(file_name(&"a".repeat(500), "md").len(), NAME_CHARS + 3);
}

#[test]
fn json_pages_are_protocol_items() {
    let items = [
        msg(1, Role::User, "q\"uote", None),
        HistoryItem::Unknown,
        tool_item("o"),
    ];
    let doc = format!(
        "{}{}{JSON_TAIL}",
        json_head("T \"x\"", "c1", TS),
        json_items(&items)
    );
    let v: Value = serde_json::from_str(&doc).unwrap_or_default();
    assert_eq!(v["channel_id"], "c1");
    assert_eq!(v["title"], "T \"x\"");
    assert_eq!(v["exported_at"], TS);
    assert_eq!(v["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["items"][0]["type"], "message");
    assert_eq!(v["items"][0]["text"], "q\"uote");
    assert_eq!(v["items"][1]["type"], "tool");
    assert_eq!(v["items"][1]["output"], "o");
}

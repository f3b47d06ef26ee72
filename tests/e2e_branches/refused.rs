//! The edit box with files, and an edit the gateway refuses: the box shows
//! the message's files, each removable; a refused edit is not lost, the box
//! opens again with what was typed, the files taken off and the gateway's
//! reason (axe finds nothing there); sent again, the box later opens on
//! the message as it is.

use serde_json::{json, Value};

use super::helpers::*;
use crate::support::axe::assert_no_axe_violations;
use crate::support::fake_gateway::{message_item, FakeGateway};
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

const INPUT: &str = "[data-testid=edit-input]";

fn file(id: &str, name: &str, mime: &str) -> Value {
    json!({"file_id": id, "name": name, "mime": mime, "size": 2048, "sha256": "00".repeat(32)})
}

/// The names on the edit box's file chips, in order.
async fn edit_files(b: &Browser) -> Vec<String> {
    b.texts_of("[data-testid=edit-file] .attachment-name")
        .await
        .into_iter()
        .map(|t| t.trim().to_string())
        .collect()
}

#[test]
fn an_edit_takes_files_off_and_a_refused_one_reopens_with_what_was_typed() {
    run(|| async {
        let mut asked = message_item(1, "user", "first draft", None);
        asked["files"] = json!([
            file("f_notes", "notes.txt", "text/plain"),
            file("f_report", "report.pdf", "application/pdf"),
        ]);
        let fake = FakeGateway::with_thread(
            "c_e",
            "Edits",
            vec![asked, message_item(2, "assistant", "An answer.", None)],
        )
        .await;
        let page = fake_page(&fake, "#/t/c_e").await;
        let b = &page.browser;
        wait_path(b, &["first draft"]).await;

        // The box holds the files; one taken off by its named button.
        let key = user_row(b, "first draft").await;
        b.click(&format!("{} [data-testid=edit-message]", row(&key)))
            .await;
        b.wait_for(INPUT, secs(5)).await;
        assert_eq!(edit_files(b).await, ["notes.txt", "report.pdf"]);
        b.click("[data-testid=edit-remove-file][aria-label=\"Remove notes.txt\"]")
            .await;
        assert_eq!(edit_files(b).await, ["report.pdf"]);
        let focused = b
            .js(
                "return document.activeElement === document.querySelector(arguments[0]);",
                vec![json!(INPUT)],
            )
            .await;
        assert_eq!(focused, json!(true), "the focus goes back to the text");
        b.js(
            "const t = document.querySelector(arguments[0]); t.value = arguments[1]; \
             t.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![json!(INPUT), json!("second thoughts")],
        )
        .await;
        b.press_enter(INPUT).await;
        b.wait_gone(INPUT, secs(5)).await;
        let sent = fake
            .wait_received("the edit", secs(10), |f| f["type"] == "message.edit")
            .await;
        assert_eq!(sent["message_id"], "m1");
        assert_eq!(sent["text"], "second thoughts");
        assert_eq!(sent["files"], json!(["f_report"]));
        fake.push(json!({
            "type": "error", "code": "bad_request", "channel_id": "c_e",
            "client_msg_id": sent["client_msg_id"],
            "message": "A turn is running in this thread.",
        }));

        // Back, with what was typed and taken off, the reason tied to the
        // field, and the focus in it.
        b.wait_for("[data-testid=edit-refusal]", secs(10)).await;
        let field = b
            .js(
                "const t = document.querySelector(arguments[0]); \
                 return {value: t.value, focused: document.activeElement === t, \
                   described: document.getElementById(t.getAttribute('aria-describedby') || '')?.textContent};",
                vec![json!(INPUT)],
            )
            .await;
        assert_eq!(field["value"], "second thoughts", "{field}");
        assert_eq!(field["focused"], true, "{field}");
        assert!(
            field["described"]
                .as_str()
                .is_some_and(|d| d.contains("A turn is running in this thread.")),
            "{field}"
        );
        assert_eq!(edit_files(b).await, ["report.pdf"]);
        assert_no_axe_violations(b, "a refused edit reopened with a file").await;

        // Sent again: a new request with the same edit, and the box goes.
        b.press_enter(INPUT).await;
        b.wait_gone(INPUT, secs(5)).await;
        let again = fake
            .wait_received("the edit sent again", secs(10), |f| {
                f["type"] == "message.edit" && f["client_msg_id"] != sent["client_msg_id"]
            })
            .await;
        assert_eq!(again["text"], "second thoughts");
        assert_eq!(again["files"], json!(["f_report"]));

        // The refusal is spent: Edit opens on the message as it is.
        b.click(&format!("{} [data-testid=edit-message]", row(&key)))
            .await;
        b.wait_for(INPUT, secs(5)).await;
        let value = b
            .js(
                "return document.querySelector(arguments[0]).value;",
                vec![json!(INPUT)],
            )
            .await;
        assert_eq!(value, json!("first draft"));
        assert_eq!(edit_files(b).await, ["notes.txt", "report.pdf"]);
        assert!(!b.exists("[data-testid=edit-refusal]").await);
        page.finish().await;
    });
}

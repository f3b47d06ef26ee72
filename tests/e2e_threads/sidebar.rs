//! The thread list: newest activity first, pinned on top (kept across a
//! reload), unread and busy badges, mark read.

use crate::support::threads::*;
use crate::support::ui::*;
use crate::support::{run, secs};

#[test]
fn order_badges_mark_read_and_pins() {
    run(|| async {
        let app = demo_app(30).await;
        let b = &app.browser;

        let a = new_thread_answered(b, "alpha thread").await;
        b.click("[data-testid=new-thread]").await;
        b.poll("the new-thread pane", secs(5), || async {
            (hash_channel(b).await.is_none() && chat_title(b).await == "New thread").then_some(())
        })
        .await;
        let bb = new_thread_answered(b, "beta thread").await;
        // Newest activity first.
        wait_order(b, &[&bb, &a]).await;

        // A message in the older thread moves it to the top.
        b.click(&link(&a)).await;
        b.poll("thread alpha to open", secs(5), || async {
            (hash_channel(b).await.as_deref() == Some(a.as_str())).then_some(())
        })
        .await;
        b.wait_for(".msg-assistant .msg-footer", secs(10)).await;
        send(b, "/demo tools").await;
        wait_order(b, &[&a, &bb]).await;

        // Busy while its turn runs, also while another thread is open.
        b.wait_for(&format!("{} [data-testid=busy]", item(&a)), secs(10))
            .await;
        b.click(&link(&bb)).await;
        b.poll("thread beta to open", secs(5), || async {
            (hash_channel(b).await.as_deref() == Some(bb.as_str())).then_some(())
        })
        .await;
        if !b.exists(&format!("{} [data-testid=busy]", item(&a))).await {
            b.fail(
                "alpha's turn should still be running (busy badge) after switching to beta; \
                    raise the demo delay if the machine is this fast",
            )
            .await;
        }
        if b.exists(&format!("{} [data-testid=busy]", item(&bb))).await {
            b.fail("beta shows a busy badge without a turn").await;
        }
        // When it ends: not busy, unread messages counted.
        b.wait_gone(&format!("{} [data-testid=busy]", item(&a)), secs(30))
            .await;
        let unread = b
            .poll("an unread badge on alpha", secs(10), || async {
                b.try_text_of(&format!("{} [data-testid=unread]", item(&a)))
                    .await
            })
            .await;
        let n: u32 = unread.trim().parse().unwrap_or(0);
        if n == 0 {
            b.fail(&format!(
                "alpha's unread badge should count messages, reads {unread:?}"
            ))
            .await;
        }
        if b.exists(&format!("{} [data-testid=unread]", item(&bb)))
            .await
        {
            b.fail("the open thread should have no unread badge").await;
        }

        // Mark read from the menu.
        menu_action(b, &a, "read").await;
        b.wait_gone(MENU, secs(5)).await;
        b.wait_gone(&format!("{} [data-testid=unread]", item(&a)), secs(5))
            .await;

        // Pin beta (older activity now): on top, with a pin, after a reload too.
        wait_order(b, &[&a, &bb]).await;
        right_click(b, &bb).await;
        b.wait_for(MENU, secs(5)).await;
        if b.text_of(&format!("{MENU} [data-action=pin]")).await != "Pin" {
            b.fail("an unpinned thread's menu should offer Pin").await;
        }
        b.click(&format!("{MENU} [data-action=pin]")).await;
        wait_order(b, &[&bb, &a]).await;
        b.wait_for(&format!("{} .pin", item(&bb)), secs(5)).await;
        let pins = stored_settings(b).await["pins"].clone();
        if pins != serde_json::json!([bb]) {
            b.fail(&format!(
                "the pin should be saved in aria.settings, pins = {pins}"
            ))
            .await;
        }
        reload_connected(b).await;
        wait_order(b, &[&bb, &a]).await;
        b.wait_for(&format!("{} .pin", item(&bb)), secs(5)).await;
        // A pinned thread stays on top even when another gets newer activity.
        b.click(&link(&a)).await;
        b.poll("thread alpha to open", secs(5), || async {
            (hash_channel(b).await.as_deref() == Some(a.as_str())).then_some(())
        })
        .await;
        b.wait_for(".msg-assistant .msg-footer", secs(10)).await;
        send(b, "one more for alpha").await;
        b.poll("alpha's new message to be delivered", secs(10), || async {
            (b.texts_of(".msg-user:not(.pending)")
                .await
                .iter()
                .any(|t| t.contains("one more for alpha")))
            .then_some(())
        })
        .await;
        if order(b).await != vec![bb.clone(), a.clone()] {
            b.fail("newer activity moved an unpinned thread above a pinned one")
                .await;
        }
        // Unpin: back to activity order.
        right_click(b, &bb).await;
        b.wait_for(MENU, secs(5)).await;
        if b.text_of(&format!("{MENU} [data-action=pin]")).await != "Unpin" {
            b.fail("a pinned thread's menu should offer Unpin").await;
        }
        b.click(&format!("{MENU} [data-action=pin]")).await;
        wait_order(b, &[&a, &bb]).await;
        if b.exists(".thread-item .pin").await {
            b.fail("the pin mark stayed after Unpin").await;
        }
        app.finish().await;
    })
}

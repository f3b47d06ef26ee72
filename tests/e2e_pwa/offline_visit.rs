//! The whole offline visit with the page served by the gateway itself: a
//! thread read and kept; the gateway stopped and the page reloaded (the
//! worker starts the app, which shows the thread from its offline copy,
//! marked offline); a message typed then waits, and once the gateway is
//! back on its address it is sent and answered once.

use super::builds::{app_on_copy, controlled};
use crate::support::ui::{
    hash, new_thread_answered, reload_connected, send, wait_idle, wait_kept, CONNECTED,
};
use crate::support::{run, secs, Browser, Gateway, GatewayOpts};

const KEPT: &str = "read me on the train";
const TYPED: &str = "typed on the train";

/// The texts of the open thread's user messages, in order.
async fn user_texts(b: &Browser) -> Vec<String> {
    b.texts_of(".msg-user").await
}

#[test]
fn the_worker_and_the_offline_copy_start_the_app_and_a_message_typed_is_sent_once() {
    run(|| async {
        let (dist, mut app) = app_on_copy().await;
        let b = &app.browser;
        b.poll("the worker to control the page", secs(30), || async {
            (!controlled(b).await.is_empty()).then_some(())
        })
        .await;
        let id = new_thread_answered(b, KEPT).await;
        wait_kept(b, 1).await;

        let addr = app.gateway.addr();
        let data_dir = app.gateway.data_dir().to_path_buf();
        app.gateway.kill();
        let b = &app.browser;
        b.refresh().await;
        assert_eq!(hash(b).await, format!("#/t/{id}"));
        b.wait_for("html[data-booted=true]", secs(20)).await;
        b.wait_for("[data-testid=conn-offline]", secs(15)).await;
        b.wait_for("[data-testid=thread-offline]", secs(5)).await;
        b.poll("the kept thread read from the copy", secs(10), || async {
            (user_texts(b).await.iter().any(|t| t.contains(KEPT))).then_some(())
        })
        .await;
        // The markdown module came from the worker's cache too: the kept
        // answer is rendered, not shown as its text.
        b.poll("the kept answer rendered as markdown", secs(10), || async {
            let v = b
                .js(
                    "return { module: !!window.__ariaMarkdown,
                       plain: document.querySelectorAll('.md-plain').length,
                       rendered: document.querySelectorAll('.msg-assistant .markdown :is(p, li, h1, h2, h3, pre)').length };",
                    vec![],
                )
                .await;
            (v["module"] == true && v["plain"] == 0 && v["rendered"].as_u64() > Some(0))
                .then_some(())
        })
        .await;
        send(b, TYPED).await;
        b.wait_for(".msg-user.pending", secs(5)).await;

        // Back on the same address (the page's origin) and data.
        let back = Gateway::start(GatewayOpts {
            static_dir: Some(dist.path().to_path_buf()),
            data_dir: Some(data_dir),
            addr: Some(addr),
            ..GatewayOpts::default()
        });
        b.attach_log("restarted gateway output", back.output_handle());
        b.wait_for(CONNECTED, secs(30)).await;
        b.wait_gone("[data-testid=conn-offline]", secs(5)).await;
        b.poll("the typed message sent", secs(30), || async {
            (!b.exists(".msg-user.pending").await).then_some(())
        })
        .await;
        wait_idle(b).await;
        // What the gateway logged, read afresh: each message once.
        reload_connected(b).await;
        let users = b
            .poll("the thread from the gateway", secs(15), || async {
                let users = user_texts(b).await;
                (users.iter().any(|t| t.contains(TYPED))).then_some(users)
            })
            .await;
        // (The kept message is further up, out of the mounted rows.)
        assert_eq!(
            users.iter().filter(|t| t.contains(TYPED)).count(),
            1,
            "the message typed offline, once: {users:?}"
        );
        assert!(users.iter().filter(|t| t.contains(KEPT)).count() <= 1);
        drop(back);
        app.close().await;
    });
}

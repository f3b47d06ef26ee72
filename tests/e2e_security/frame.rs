//! Inside another origin's frame the app does not start: it says why and
//! the gateway sees no connection, although the same link connects at once
//! in a tab of its own.

use std::time::Duration;

use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::paths::{self, TempDir};
use crate::support::ui::*;
use crate::support::{exclusive, run, secs, Browser, StaticServer};

#[test]
fn inside_a_frame_the_app_says_why_and_does_not_connect() {
    run(|| async {
        let _turn = exclusive().await;
        let fake = FakeGateway::start(FakeOpts::default()).await;
        let app = StaticServer::serve(paths::dist_dir());
        let link = format!("{}?gateway={}", app.url(), fake.ws_url());
        // Another origin (another port) that frames the app.
        let framer_dir = TempDir::new("aria-e2e-framer");
        std::fs::write(
            framer_dir.path().join("index.html"),
            format!(
                "<!doctype html><title>framer</title><link rel=\"icon\" href=\"data:,\">\
                 <iframe src=\"{link}\" width=\"800\" height=\"600\"></iframe>"
            ),
        )
        .expect("write the framing page");
        let framer = StaticServer::serve(framer_dir.path());

        // In a tab of its own, the link's gateway is confirmed and remembered.
        let b = Browser::start().await;
        b.goto(&link).await;
        answer_link_prompt(&b, true, None, true).await;
        fake.wait_ready(1, secs(20)).await;

        // Framed: the reason, and no connection.
        b.goto(&framer.url()).await;
        b.wait_for("iframe", secs(10)).await;
        if let Err(e) = b.client().enter_frame(0).await {
            b.fail(&format!("cannot enter the frame: {e}")).await;
        }
        let why = b.wait_for("[data-testid=frame-refusal]", secs(20)).await;
        let text = why.text().await.unwrap_or_default();
        if !text.contains("aria-web does not run inside another page's frame, so that no page can trick you into clicks") {
            b.fail(&format!("the framed app says {text:?}")).await;
        }
        if b.exists("[data-testid=conn-status]").await || b.exists("[data-testid=composer]").await {
            b.fail("the framed app still shows the chat").await;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(fake.connections().len(), 1, "the framed app connected");
        let _ = b.client().enter_parent_frame().await;

        // The same link in its own tab connects at once (no question).
        b.goto(&link).await;
        connected(&b).await;
        fake.wait_ready(2, secs(20)).await;
        b.finish().await;
    })
}

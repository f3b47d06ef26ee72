//! A token about to travel over plain `ws://` to another machine needs the
//! user's yes, and the badge says "not encrypted". Chromium is told that
//! `gateway.test` is 127.0.0.1, so the "other machine" is this one.

use std::time::Duration;

use serde_json::json;

use crate::support::connection::wait_status;
use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::tokens::*;
use crate::support::ui::*;
use crate::support::{exclusive, paths, run, secs, Browser, StaticServer};

const PLAINTEXT: &str = "[data-testid=gateway-prompt][data-kind=plaintext]";
const NOT_ENCRYPTED: &str = "[data-testid=conn-plaintext]";

#[test]
fn a_token_over_plain_ws_to_another_host_waits_for_a_yes() {
    run(|| async {
        let _turn = exclusive().await;
        let fake = FakeGateway::start(FakeOpts {
            token: Some("tok-F".into()),
            ..FakeOpts::default()
        })
        .await;
        let server = StaticServer::serve(paths::dist_dir());
        let b =
            Browser::start_with_args(&["--host-resolver-rules=MAP gateway.test 127.0.0.1"]).await;
        let page = format!("http://gateway.test:{}/", port_of(&server.url()));
        let gateway = format!("ws://gateway.test:{}/ws", port_of(&fake.ws_url()));

        b.goto(&format!("{page}?gateway={gateway}")).await;
        let shown = answer_link_prompt(&b, true, Some("tok-F"), false).await;
        assert_eq!(shown, gateway);
        // The token is saved, but not sent: first the plain-text question.
        b.wait_for(PLAINTEXT, secs(10)).await;
        let question = b
            .text_of(&format!(
                "{PLAINTEXT} [data-testid=gateway-prompt-question]"
            ))
            .await;
        if !question.contains(&gateway) || !question.contains("not encrypted") {
            b.fail(&format!("the plain-text question says {question:?}"))
                .await;
        }
        b.wait_for(NOT_ENCRYPTED, secs(5)).await;
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(fake.connections().len(), 0, "connected before the yes");

        // No: nothing is sent, and the badge says why.
        b.click(&format!("{PLAINTEXT} [data-testid=gateway-decline]"))
            .await;
        b.wait_gone(PLAINTEXT, secs(5)).await;
        wait_status(&b, "offline", secs(20)).await;
        let badge = b.text_of("[data-testid=conn-status]").await;
        if !badge.contains("not sent") {
            b.fail(&format!("after no, the badge says {badge:?}")).await;
        }
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(fake.connections().len(), 0, "connected after a no");

        // "Retry now" asks again; yes sends it, once agreed for this address.
        b.click("[data-testid=conn-status] button").await;
        b.click(&format!("{PLAINTEXT} [data-testid=gateway-accept]"))
            .await;
        fake.wait_ready(1, secs(20)).await;
        connected(&b).await;
        b.wait_for(NOT_ENCRYPTED, secs(5)).await;
        let tokens: Vec<_> = hellos(&fake).iter().map(|h| h["token"].clone()).collect();
        assert_eq!(tokens, vec![json!("tok-F")]);
        let s = stored_settings(&b).await;
        if s["plaintext_ok"] != json!([gateway]) {
            b.fail(&format!("plaintext_ok is {}", s["plaintext_ok"]))
                .await;
        }
        b.finish().await;
    })
}

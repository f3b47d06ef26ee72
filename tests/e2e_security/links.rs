//! Crafted links (OpenClaw's CVE-2026-25253): with a token saved for
//! gateway A, a link to the app with `?gateway=` naming gateway B must not
//! connect until the user says yes, and B must never receive A's token.

use std::time::Duration;

use fantoccini::key::Key;
use serde_json::json;

use crate::support::fake_gateway::{channel, FakeGateway, FakeOpts};
use crate::support::tokens::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// What a link's `?gateway=` says, and the address the app must show.
struct Crafted {
    query: String,
    shown: String,
    hash: &'static str,
    connect: bool,
}

/// The dialog names `shown`, and nothing has been connected meanwhile.
async fn asked_before_connecting(b: &Browser, fake: &FakeGateway, before: usize, c: &Crafted) {
    let dialog = format!("{GATEWAY_PROMPT}[data-kind=link]");
    b.wait_for(&dialog, secs(20)).await;
    let question = b.text_of("[data-testid=gateway-prompt-question]").await;
    let want = format!(
        "Connect to {}? It is not the gateway this page came from.",
        c.shown
    );
    if question.trim() != want {
        b.fail(&format!(
            "link {:?}: the dialog asks {question:?}, expected {want:?}",
            c.query
        ))
        .await;
    }
    // A real modal: labelled, the focus inside it, the page behind inert.
    let modal = b
        .js(
            "const d = document.querySelector('[data-testid=gateway-prompt]');
             return [d.getAttribute('role'), d.getAttribute('aria-modal'),
                     !!document.getElementById(d.getAttribute('aria-labelledby')),
                     d.contains(document.activeElement),
                     document.querySelector('.app').inert];",
            vec![],
        )
        .await;
    if modal != json!(["dialog", "true", true, true, true]) {
        b.fail(&format!(
            "link {:?}: [role, aria-modal, labelled, focus inside, page inert] = {modal}",
            c.query
        ))
        .await;
    }
    if hash(b).await != c.hash {
        b.fail(&format!(
            "link {:?}: the deep link {:?} was lost while asking",
            c.query, c.hash
        ))
        .await;
    }
    // Give a connection the time to happen, if the app were to make one.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let now = fake.connections().len();
    if now != before {
        b.fail(&format!(
            "link {:?}: the app connected to B before the user answered",
            c.query
        ))
        .await;
    }
    if b.exists(CONNECTED).await {
        b.fail(&format!(
            "link {:?}: the app is connected while it asks",
            c.query
        ))
        .await;
    }
}

#[test]
fn a_crafted_link_never_sends_the_token_elsewhere_and_asks_first() {
    run(|| async {
        let app = app_with_token().await;
        let b = &app.browser;
        let a = app.gateway.addr();
        let fake = FakeGateway::start(FakeOpts::default()).await;
        fake.add_channel(channel("c_b", "On B", 0));
        let port = port_of(&fake.ws_url());
        let b_url = format!("ws://127.0.0.1:{port}/ws");
        let b_local = format!("ws://localhost:{port}/ws");
        let cases = [
            Crafted {
                query: b_url.clone(),
                shown: b_url.clone(),
                hash: "",
                connect: true,
            },
            Crafted {
                query: format!("http://127.0.0.1:{port}/ws"),
                shown: b_url.clone(),
                hash: "",
                connect: false,
            },
            Crafted {
                query: format!("WS://127.0.0.1:{port}/ws"),
                shown: b_url.clone(),
                hash: "",
                connect: true,
            },
            Crafted {
                query: b_local.clone(),
                shown: b_local.clone(),
                hash: "",
                connect: true,
            },
            Crafted {
                query: format!("ws%3A%2F%2F127.0.0.1%3A{port}%2Fws"),
                shown: b_url.clone(),
                hash: "",
                connect: false,
            },
            Crafted {
                query: b_url.clone(),
                shown: b_url.clone(),
                hash: "#/t/c_b",
                connect: true,
            },
            Crafted {
                query: b_local.clone(),
                shown: b_local.clone(),
                hash: "#/t/c_b/3",
                connect: false,
            },
            // A itself under another name is another address: asked, too.
            Crafted {
                query: format!("ws://localhost:{}/ws", a.port()),
                shown: format!("ws://localhost:{}/ws", a.port()),
                hash: "",
                connect: false,
            },
        ];
        let mut accepted = 0;
        for (i, c) in cases.iter().enumerate() {
            let before = fake.connections().len();
            b.goto(&format!(
                "{}?gateway={}{}",
                app.gateway.app_url(),
                c.query,
                c.hash
            ))
            .await;
            asked_before_connecting(b, &fake, before, c).await;
            if c.connect {
                answer_link_prompt(b, true, None, false).await;
                accepted += 1;
                fake.wait_ready(accepted, secs(20)).await;
                connected(b).await;
                if !c.hash.is_empty() && hash(b).await != c.hash {
                    b.fail(&format!(
                        "link {:?}: the deep link {:?} was lost",
                        c.query, c.hash
                    ))
                    .await;
                }
                if !c.hash.is_empty() {
                    fake.wait_received("history.get of the linked thread", secs(10), |f| {
                        f["type"] == "history.get" && f["channel_id"] == "c_b"
                    })
                    .await;
                }
            } else if i % 2 == 0 {
                // Escape is "no".
                let esc: char = Key::Escape.into();
                b.type_into("[data-testid=gateway-decline]", &esc.to_string())
                    .await;
                b.wait_gone(GATEWAY_PROMPT, secs(5)).await;
                connected(b).await;
            } else {
                answer_link_prompt(b, false, None, false).await;
                // No: the page's own gateway, A, with A's token.
                connected(b).await;
            }
            // The focus is back in the page (nothing had it: the composer).
            b.poll("the focus back on the composer", secs(5), || async {
                let back = b
                    .js(
                        "return document.activeElement.matches(arguments[0]);",
                        vec![json!(COMPOSER)],
                    )
                    .await;
                (back == true).then_some(())
            })
            .await;
            if !b.exists(CONNECTED).await || fake.connections().len() != accepted {
                b.fail(&format!(
                    "link {:?}: expected {accepted} connection(s) to B, it had {}",
                    c.query,
                    fake.connections().len()
                ))
                .await;
            }
        }
        // B saw a hello on each "yes", and never a token.
        let seen = hellos(&fake);
        if seen.len() != accepted || seen.iter().any(|h| !h["token"].is_null()) {
            b.fail(&format!("B received these hellos: {seen:?}")).await;
        }
        // Loopback ws://: nothing to warn about.
        if b.exists("[data-testid=conn-plaintext]").await {
            b.fail("a loopback gateway is marked \"not encrypted\"")
                .await;
        }

        // A still works, with its token, and B's address got none.
        b.goto(&app.gateway.app_url()).await;
        connected(b).await;
        new_thread_answered(b, "still on A?").await;
        let tokens = stored_tokens(b).await;
        let a_key = format!("ws://127.0.0.1:{}/ws", a.port());
        if tokens != json!({ a_key: TOKEN_A }) {
            b.fail(&format!("saved tokens: {tokens}")).await;
        }
        app.finish().await;
    })
}

/// "Remember this gateway" makes the next visit of the link connect at
/// once; a token typed into the dialog goes to that gateway only; without
/// "remember" the question comes back.
#[test]
fn remembered_gateways_connect_at_once_with_their_own_token() {
    run(|| async {
        let app = app_with_token().await;
        let b = &app.browser;
        let fake = FakeGateway::start(FakeOpts {
            token: Some("tok-B".into()),
            ..FakeOpts::default()
        })
        .await;
        let link = format!("{}?gateway={}", app.gateway.app_url(), fake.ws_url());

        // Not remembered: asked again after a reload.
        b.goto(&link).await;
        answer_link_prompt(b, true, Some("tok-B"), false).await;
        fake.wait_ready(1, secs(20)).await;
        b.refresh().await;
        b.wait_for(GATEWAY_PROMPT, secs(20)).await;
        // This time remembered: a reload connects without asking.
        answer_link_prompt(b, true, None, true).await;
        fake.wait_ready(2, secs(20)).await;
        reload_connected(b).await;
        fake.wait_ready(3, secs(20)).await;
        if b.exists(GATEWAY_PROMPT).await {
            b.fail("a remembered gateway was asked about again").await;
        }
        let tokens: Vec<_> = hellos(&fake).iter().map(|h| h["token"].clone()).collect();
        if tokens != vec![json!("tok-B"); 3] {
            b.fail(&format!("B got the tokens {tokens:?}")).await;
        }
        let s = stored_settings(b).await;
        if s["trusted_gateways"] != json!([fake.ws_url()]) {
            b.fail(&format!("remembered gateways: {}", s["trusted_gateways"]))
                .await;
        }
        // Settings list it; Forget makes the link ask again.
        open_settings(b).await;
        let entry = format!(
            "[data-testid=remembered-entry][data-gateway=\"{}\"]",
            fake.ws_url()
        );
        b.wait_for(&entry, secs(5)).await;
        b.click("[data-testid=forget-remembered]").await;
        b.wait_gone(&entry, secs(5)).await;
        if stored_settings(b).await["trusted_gateways"] != json!([]) {
            b.fail("Forget left the gateway remembered").await;
        }
        close_settings(b).await;
        b.refresh().await;
        b.wait_for(GATEWAY_PROMPT, secs(20)).await;
        app.finish().await;
    })
}

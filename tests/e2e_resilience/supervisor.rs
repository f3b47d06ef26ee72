//! The connection supervisor: backoff with jitter, the visible status with
//! "retry now", the heartbeat, the handshake timeout, and the two answers
//! that stop retrying (unauthorized, wrong protocol).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::connection::{behind_proxy, status, status_text, wait_status};
use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::tcp_proxy::TcpProxy;
use crate::support::ui::CONNECTED;
use crate::support::{secs, Browser, Gateway, GatewayOpts, Page};

/// A gateway that accepts the socket and closes it at once: the app keeps
/// retrying, each delay in the upper half of an exponential step from
/// 0.5 s (first retry under a second), and "Retry now" connects at once.
#[tokio::test]
async fn retries_back_off_exponentially_with_jitter_and_retry_now_skips_the_wait() {
    let fake = FakeGateway::start(FakeOpts {
        refuse: true,
        ..FakeOpts::default()
    })
    .await;
    let page = Page::open(&fake.ws_url(), "").await;
    let b = &page.browser;

    // Five attempts: waits of ~0.25–0.5, 0.5–1, 1–2, 2–4 s between them.
    b.poll("five connection attempts", secs(20), || async {
        (fake.connections().len() >= 5).then_some(())
    })
    .await;
    let times: Vec<Instant> = fake.connections().iter().map(|c| c.at).collect();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    let ms: Vec<u128> = gaps.iter().map(|g| g.as_millis()).collect();
    // Lower bounds are the jitter floor (half the step), and they double:
    // that is the backoff. Upper bounds are the step plus room for a refused
    // attempt and a busy machine (2 cores running builds stretch timers).
    let bounds = [(240, 1500), (490, 2200), (990, 3500), (1990, 5800)];
    for (i, (gap, (lo, hi))) in ms.iter().zip(bounds).enumerate() {
        if *gap < lo || *gap > hi {
            b.fail(&format!(
                "retry {} came after {gap} ms, expected {lo}..{hi} ms (all gaps: {ms:?})",
                i + 1
            ))
            .await;
        }
    }

    // Waiting for the next attempt: the badge counts down from at most the
    // current step (after attempt k: 0.5 s · 2^(k-1), capped at 15 s).
    wait_status(b, "reconnecting", secs(5)).await;
    let (label, attempts) = loop {
        let before = fake.connections().len();
        let label = status_text(b).await;
        if fake.connections().len() == before {
            break (label, before);
        }
    };
    let n: u32 = label
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or(99);
    let step_s = (0.5 * 2f64.powi(attempts as i32 - 1)).min(15.0).ceil() as u32;
    if !label.contains("Reconnecting in") || n > step_s {
        b.fail(&format!(
            "after {attempts} attempts expected \"Reconnecting in N s\" with N ≤ {step_s}, \
             the badge says {label:?}"
        ))
        .await;
    }
    // "Retry now" does not wait for the timer.
    let before = fake.connections().len();
    let clicked = Instant::now();
    b.click("[data-testid=conn-status] button").await;
    b.poll(
        "a connection right after \"Retry now\"",
        secs(3),
        || async { (fake.connections().len() > before).then_some(()) },
    )
    .await;
    assert!(
        clicked.elapsed() < Duration::from_millis(2500),
        "\"Retry now\" took {:?}",
        clicked.elapsed()
    );

    // The gateway recovers: the next attempt connects and the badge says so.
    fake.set(|o| o.refuse = false);
    b.click("[data-testid=conn-status] button").await;
    b.wait_for(CONNECTED, secs(10)).await;
    assert!(
        !b.exists("[data-testid=conn-status] button").await,
        "\"Retry now\" is still offered while connected"
    );
    b.assert_no_console_errors().await;
    page.browser.close().await;
}

/// The real gateway with a token; the app without it is told it is
/// unauthorized and does not retry (the proxy counts its connections)
/// until the token is set in Settings.
#[tokio::test]
async fn unauthorized_stops_retrying_until_the_token_is_set() {
    let (_gateway, proxy, page) = behind_proxy(GatewayOpts {
        token: Some("s3cret-token".into()),
        ..GatewayOpts::default()
    })
    .await;
    let b = &page.browser;

    wait_status(b, "unauthorized", secs(20)).await;
    let label = status_text(b).await;
    if !label.to_lowercase().contains("token") {
        b.fail(&format!(
            "the unauthorized badge should point at the token, it says {label:?}"
        ))
        .await;
    }
    // Well past several backoff steps: still one connection, still unauthorized.
    tokio::time::sleep(secs(6)).await;
    assert_eq!(
        proxy.connections(),
        1,
        "the app retried after `unauthorized` (the gateway saw {} connections)",
        proxy.connections()
    );
    assert_eq!(status(b).await, "unauthorized");

    // A wrong token: one more attempt, unauthorized again, and no loop.
    set_token(b, "wrong").await;
    b.poll("a second attempt with the new token", secs(10), || async {
        (proxy.connections() == 2).then_some(())
    })
    .await;
    wait_status(b, "unauthorized", secs(10)).await;
    tokio::time::sleep(secs(3)).await;
    assert_eq!(proxy.connections(), 2, "the app retried a refused token");

    // The right one connects.
    set_token(b, "s3cret-token").await;
    b.wait_for(CONNECTED, secs(10)).await;
    assert_eq!(proxy.connections(), 3);
    b.assert_no_console_errors().await;
    page.browser.close().await;
}

async fn set_token(b: &Browser, token: &str) {
    if !b.exists("input[name=token]").await {
        b.click("[data-testid=open-settings]").await;
    }
    let input = "input[name=token]";
    b.wait_for(input, secs(5)).await;
    b.js(
        "const i = document.querySelector(arguments[0]); i.value = arguments[1]; \
         i.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![json!(input), json!(token)],
    )
    .await;
}

/// A gateway of another protocol version: "wrong protocol", no retry.
#[tokio::test]
async fn a_wrong_protocol_version_stops_retrying() {
    let fake = FakeGateway::start(FakeOpts {
        unsupported: true,
        ..FakeOpts::default()
    })
    .await;
    let page = Page::open(&fake.ws_url(), "").await;
    let b = &page.browser;
    wait_status(b, "unsupported", secs(20)).await;
    tokio::time::sleep(secs(4)).await;
    assert_eq!(fake.connections().len(), 1, "the app retried after 4400");
    assert_eq!(status(b).await, "unsupported");
    b.assert_no_console_errors().await;
    page.browser.close().await;
}

/// An address that is no gateway at all: "offline", with the reason.
#[tokio::test]
async fn an_unusable_address_shows_offline() {
    let page = Page::open("javascript:alert(1)", "").await;
    let b = &page.browser;
    wait_status(b, "offline", secs(20)).await;
    assert!(status_text(b).await.contains("not a gateway address"));
    page.browser.close().await;
}

/// A path that goes silent without closing (a dead NAT entry, a frozen
/// gateway): only the heartbeat can tell. The app pings every 20 s and
/// gives up after two missed pongs, then reconnects on a fresh socket,
/// without waiting for the dead one's closing handshake.
#[tokio::test]
async fn a_silent_connection_is_declared_dead_after_two_missed_pongs() {
    let (_gateway, proxy, page) = behind_proxy(GatewayOpts::default()).await;
    let b = &page.browser;
    b.wait_for(CONNECTED, secs(20)).await;
    assert_eq!(proxy.connections(), 1);

    proxy.freeze_existing();
    let frozen = Instant::now();
    b.poll(
        "a new connection after the silent one was declared dead",
        Duration::from_secs(80),
        || async { (proxy.connections() >= 2).then_some(()) },
    )
    .await;
    let after = frozen.elapsed();
    // Two pings (at most 20 s apart) must go unanswered first.
    if after < Duration::from_secs(35) {
        b.fail(&format!(
            "the app gave up on a quiet socket after {after:?}, before two pongs could be missed"
        ))
        .await;
    }
    b.wait_for(CONNECTED, secs(10)).await;
    page.browser.close().await;
}

/// A gateway that takes the TCP connection but never answers the
/// handshake must not leave the app "connecting" forever.
#[tokio::test]
async fn a_handshake_that_never_completes_is_retried() {
    let gateway = Gateway::start(GatewayOpts::default());
    let proxy = TcpProxy::start(gateway.addr()).await;
    proxy.set_blackhole(true);
    let page = Page::open(&proxy.ws_url(), "").await;
    let b = &page.browser;
    b.poll("a first connection attempt", secs(20), || async {
        (proxy.connections() >= 1).then_some(())
    })
    .await;
    let first = Instant::now();
    b.poll(
        "a second attempt after the hung handshake",
        secs(30),
        || async { (proxy.connections() >= 2).then_some(()) },
    )
    .await;
    let waited = first.elapsed();
    assert!(
        waited >= Duration::from_secs(3),
        "the handshake was abandoned after only {waited:?}"
    );
    proxy.set_blackhole(false);
    b.wait_for(CONNECTED, secs(40)).await;
    page.browser.close().await;
}

//! Durable pending sends: a message typed while disconnected is shown as
//! pending, kept in localStorage across a reload, and sent exactly once
//! when the gateway is back; a rejected send shows why, with a retry.

use serde_json::{json, Value};

use crate::support::connection::{assert_no_crash, behind_proxy, status, wait_status};
use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::timeline::{show_rows, timeline, wait_turn_over};
use crate::support::ui::{hash, local_storage, reload, send, send_new_thread, CONNECTED};
use crate::support::{secs, Browser, Gateway, GatewayOpts, Page};

/// The app's localStorage key for pending sends (named before the rename).
const PENDING_SENDS: &str = "aria.outbox";

/// How many `.msg-user` bubbles contain `text`, and how many of them are pending.
async fn user_bubbles(b: &Browser, text: &str) -> (u64, u64) {
    let v = b
        .js(
            "const us = Array.from(document.querySelectorAll('.msg-user'))\
               .filter(e => e.querySelector('.msg-text').textContent === arguments[0]); \
             return [us.length, us.filter(e => e.classList.contains('pending')).length];",
            vec![json!(text)],
        )
        .await;
    (v[0].as_u64().unwrap_or(0), v[1].as_u64().unwrap_or(0))
}

fn pending_texts(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e["text"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A fake gateway (`opts`) with one empty thread, `c1`, and the app
/// connected to it in that thread.
async fn fake_thread(opts: FakeOpts) -> (FakeGateway, Page) {
    let fake = FakeGateway::start(opts).await;
    fake.add_channel(json!({"channel_id": "c1", "title": "One", "last_seq": 0}));
    let page = Page::open(&fake.ws_url(), "#/t/c1").await;
    page.browser.wait_for(CONNECTED, secs(20)).await;
    (fake, page)
}

#[tokio::test]
async fn an_offline_message_is_pending_survives_a_reload_and_is_sent_exactly_once() {
    let (mut gateway, proxy, page) = behind_proxy(GatewayOpts::default()).await;
    let b = &page.browser;
    b.wait_for(CONNECTED, secs(20)).await;

    // A thread to write in.
    send_new_thread(b, "first message").await;
    wait_turn_over(b, secs(30)).await;

    // The gateway goes away.
    gateway.kill();
    b.poll(
        "the app to notice the gateway is gone",
        secs(10),
        || async { (status(b).await != "connected").then_some(()) },
    )
    .await;

    send(b, "typed while offline").await;
    b.poll(
        "a pending bubble for the offline message",
        secs(5),
        || async { (user_bubbles(b, "typed while offline").await == (1, 1)).then_some(()) },
    )
    .await;
    let kept = local_storage(b, PENDING_SENDS).await;
    assert_eq!(
        pending_texts(&kept),
        vec!["typed while offline".to_string()],
        "the pending sends in localStorage: {kept}"
    );

    // Reload while still offline: the message is still there, still pending.
    reload(b).await;
    b.poll(
        "the pending bubble after a reload while offline",
        secs(10),
        || async { (user_bubbles(b, "typed while offline").await == (1, 1)).then_some(()) },
    )
    .await;
    assert_ne!(status(b).await, "connected");

    // The gateway comes back on the same data dir (behind the same address).
    let restarted = Gateway::start(GatewayOpts {
        data_dir: Some(gateway.data_dir().to_path_buf()),
        ..GatewayOpts::default()
    });
    b.attach_log("restarted gateway output", restarted.output_handle());
    proxy.set_upstream(restarted.addr());
    b.wait_for(CONNECTED, secs(30)).await;
    b.poll(
        "the echo to replace the pending bubble",
        secs(15),
        || async { (user_bubbles(b, "typed while offline").await == (1, 0)).then_some(()) },
    )
    .await;
    wait_turn_over(b, secs(30)).await;
    assert_eq!(
        pending_texts(&local_storage(b, PENDING_SENDS).await),
        Vec::<String>::new()
    );

    // Another reconnect must not send it again.
    proxy.cut_all();
    wait_status(b, "connected", secs(15)).await;
    tokio::time::sleep(secs(2)).await;

    // Exactly once in the gateway's log, and on a fresh device.
    let fresh = page.second_browser(&proxy.ws_url(), &hash(b).await).await;
    fresh.wait_for(CONNECTED, secs(20)).await;
    fresh
        .poll(
            "the offline message on a fresh device",
            secs(10),
            || async { (user_bubbles(&fresh, "typed while offline").await.0 >= 1).then_some(()) },
        )
        .await;
    tokio::time::sleep(secs(1)).await;
    let rows = timeline(&fresh).await;
    let copies = rows
        .iter()
        .filter(|r| r.kind == "user" && r.text.contains("typed while offline"))
        .count();
    assert_eq!(
        copies,
        1,
        "the gateway logged the offline message {copies} times:\n{}",
        show_rows(&rows)
    );
    // One answer to it, not two.
    let answers = rows
        .iter()
        .filter(|r| r.kind == "assistant" && r.text.contains("typed while offline"))
        .count();
    assert_eq!(answers, 1, "{}", show_rows(&rows));
    fresh.close().await;
    assert_no_crash(b).await;
    page.browser.close().await;
}

/// The send went out but the connection dropped before its echo: on
/// reconnect the app sends it again with the same `client_msg_id` (the
/// gateway is idempotent on it), and shows it once.
#[tokio::test]
async fn a_send_whose_echo_was_lost_is_resent_with_the_same_id() {
    let (fake, page) = fake_thread(FakeOpts {
        echo: false,
        ..FakeOpts::default()
    })
    .await;
    let b = &page.browser;
    send(b, "echo gets lost").await;
    let first = fake
        .wait_received("the send", secs(5), |f| f["type"] == "message.send")
        .await;
    fake.set(|o| o.echo = true);
    fake.cut_all();
    fake.wait_ready(2, secs(15)).await;
    b.poll("the resend's echo", secs(10), || async {
        (user_bubbles(b, "echo gets lost").await == (1, 0)).then_some(())
    })
    .await;
    let sends = fake.received_of("message.send");
    assert_eq!(sends.len(), 2, "sends: {sends:?}");
    assert_eq!(sends[1]["client_msg_id"], first["client_msg_id"]);
    assert_eq!(sends[1]["channel_id"], "c1");
    // A third connection sends nothing more.
    fake.cut_all();
    fake.wait_ready(3, secs(15)).await;
    tokio::time::sleep(secs(1)).await;
    assert_eq!(fake.received_of("message.send").len(), 2);
    assert_eq!(user_bubbles(b, "echo gets lost").await, (1, 0));
    page.browser.close().await;
}

/// A send the gateway rejects shows the reason and a retry action, also
/// after a reload; retrying sends it again and it is delivered.
#[tokio::test]
async fn a_rejected_send_shows_the_error_and_can_be_retried() {
    let (fake, page) = fake_thread(FakeOpts {
        reject_sends: 1,
        ..FakeOpts::default()
    })
    .await;
    let b = &page.browser;
    send(b, "please refuse me").await;
    b.wait_for(".msg-user.failed [data-testid=retry-send]", secs(5))
        .await;
    let why = b.text_of(".msg-user.failed .send-error").await;
    assert!(
        why.contains("The test gateway refused this message."),
        "the failed bubble says {why:?}"
    );
    // Failed sends are kept too, and not resent on their own.
    reload(b).await;
    b.wait_for(CONNECTED, secs(20)).await;
    b.wait_for(".msg-user.failed [data-testid=retry-send]", secs(10))
        .await;
    assert_eq!(fake.received_of("message.send").len(), 1);

    b.click(".msg-user.failed [data-testid=retry-send]").await;
    b.poll("the retried message to be delivered", secs(10), || async {
        (user_bubbles(b, "please refuse me").await == (1, 0) && !b.exists(".msg-user.failed").await)
            .then_some(())
    })
    .await;
    let sends = fake.received_of("message.send");
    assert_eq!(sends.len(), 2);
    assert_eq!(sends[0]["client_msg_id"], sends[1]["client_msg_id"]);
    assert_eq!(
        pending_texts(&local_storage(b, PENDING_SENDS).await),
        Vec::<String>::new()
    );
    b.assert_no_console_errors().await;
    page.browser.close().await;
}

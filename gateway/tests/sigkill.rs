//! Durability against SIGKILL: the real `aria-gateway` binary is killed
//! with no chance to clean up (mid-turn, right after an echo, right after a
//! send) and started again on the same data dir. No message the gateway
//! accepted (echoed) may be lost, none may be logged twice, and a resend of
//! an accepted `client_msg_id` after the restart is answered with the
//! original echo instead of a second turn.

use std::time::Duration;

use crate::support::process::Process;
use crate::support::Client;
use serde_json::{json, Value};

/// A send to the default channel (`c_general`, created on first use).
fn send_frame(text: &str, client_msg_id: &str) -> Value {
    json!({"type": "message.send", "text": text, "client_msg_id": client_msg_id})
}

/// The user messages logged in `c_general`, as (client_msg_id, seq, text).
async fn logged_user_messages(client: &mut Client) -> Vec<(String, u64, String)> {
    let mut out = Vec::new();
    let mut before: Option<u64> = None;
    loop {
        let mut req = json!({"channel_id": "c_general", "limit": 200});
        if let Some(b) = before {
            req["before"] = json!(b);
        }
        let page = client.history(req).await;
        assert_eq!(page["type"], "history", "{page}");
        let items = page["items"].as_array().expect("items").clone();
        for item in items.iter().rev() {
            if item["type"] == "message" && item["role"] == "user" {
                out.push((
                    item["client_msg_id"].as_str().unwrap_or("").to_string(),
                    item["seq"].as_u64().expect("seq"),
                    item["text"].as_str().unwrap_or("").to_string(),
                ));
            }
        }
        if page["has_more"] != true || items.is_empty() {
            break;
        }
        before = items[0]["seq"].as_u64();
    }
    out.reverse();
    out
}

/// The gateway is killed while the agent streams its answer to an accepted
/// message; after a restart the message is in the history once, and a
/// resend of its id gets the original echo without a second turn.
#[tokio::test]
async fn an_accepted_message_survives_sigkill_mid_turn() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = Process::start(dir.path(), 50, &[]);
    let mut client = Client::connect(&first.ws_url, None).await;
    let echo = client
        .send_default("survive the kill, please", "k-sigkill-1")
        .await;
    // Mid-turn: the answer is streaming.
    client.recv_type("message.update").await;
    first.sigkill();

    let second = Process::start(dir.path(), 50, &[]);
    let mut client = Client::connect(&second.ws_url, None).await;
    let channels = client.ready["channels"].as_array().expect("channels");
    assert!(
        channels.iter().any(|c| c["channel_id"] == "c_general"),
        "the channel is gone after the restart: {}",
        client.ready
    );
    let logged = logged_user_messages(&mut client).await;
    assert_eq!(
        logged,
        vec![(
            "k-sigkill-1".to_string(),
            echo["seq"].as_u64().unwrap(),
            "survive the kill, please".to_string()
        )],
        "the accepted message after SIGKILL"
    );

    // The client's outbox would resend it: same echo, no second turn.
    client
        .send(send_frame("survive the kill, please", "k-sigkill-1"))
        .await;
    let again = client
        .until(|f| f["type"] == "message" && f["client_msg_id"] == "k-sigkill-1")
        .await
        .pop()
        .expect("re-echo");
    assert_eq!(again["seq"], echo["seq"]);
    assert_eq!(again["message_id"], echo["message_id"]);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(logged_user_messages(&mut client).await.len(), 1);
}

/// Killed the instant the echo arrives, five times over: the echo is sent
/// only after the message is committed, so every echoed message is there.
#[tokio::test]
async fn every_echoed_message_survives_sigkill_right_after_its_echo() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut expected = Vec::new();
    for round in 0..5 {
        let process = Process::start(dir.path(), 20, &[]);
        let mut client = Client::connect(&process.ws_url, None).await;
        let id = format!("k-echo-{round}");
        let echo = client.send_default(&format!("round {round}"), &id).await;
        process.sigkill();
        expected.push((id, echo["seq"].as_u64().unwrap(), format!("round {round}")));
    }
    let process = Process::start(dir.path(), 20, &[]);
    let mut client = Client::connect(&process.ws_url, None).await;
    assert_eq!(logged_user_messages(&mut client).await, expected);
}

/// Killed right after the send, before any echo could be read: the message
/// may or may not have been accepted, so the client resends it with the
/// same id after the restart. Either way it ends up logged exactly once.
#[tokio::test]
async fn a_send_cut_off_by_sigkill_is_logged_once_after_the_resend() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = Process::start(dir.path(), 20, &[]);
    let mut client = Client::connect(&first.ws_url, None).await;
    // A first message makes the channel exist for sure.
    client.send_default("before the kill", "k-before").await;
    client.send(send_frame("in flight", "k-in-flight")).await;
    first.sigkill();

    let second = Process::start(dir.path(), 20, &[]);
    let mut client = Client::connect(&second.ws_url, None).await;
    let echo = client.send_default("in flight", "k-in-flight").await;
    assert_eq!(echo["text"], "in flight");
    let logged = logged_user_messages(&mut client).await;
    let ids: Vec<&str> = logged.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, ["k-before", "k-in-flight"], "{logged:?}");
}

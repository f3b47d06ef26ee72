//! Approvals (§9) over real WebSockets with the demo agent: requests and
//! answers across devices, repeats and errors, re-send on join, timeouts,
//! cancel, shutdown and the log.

use std::time::{Duration, Instant};

use crate::support::{hello, open, types, Client, Gateway};
use serde_json::{json, Value};

/// A device with its own `device_id`.
async fn device(gw: &Gateway, device_id: &str) -> Client {
    let mut client = Client {
        ws: open(&gw.ws_url()).await,
        ready: Value::Null,
    };
    let mut hello = hello(None);
    hello["device_id"] = json!(device_id);
    client.send(hello).await;
    client.ready = client.recv_type("ready").await;
    client
}

fn respond(channel_id: &str, request_id: &Value, choice: &str) -> Value {
    json!({"type": "approval.respond", "channel_id": channel_id, "request_id": request_id, "choice": choice})
}

fn of_type<'a>(frames: &'a [Value], ty: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == ty).collect()
}

/// Sends `/demo approval` (or `text`) and returns the frames up to its
/// `approval.request`, which is the last one.
async fn ask(client: &mut Client, channel: &str, text: &str, key: &str) -> Vec<Value> {
    client.send_message(channel, text, key).await;
    client.until(|f| f["type"] == "approval.request").await
}

/// A fast demo gateway, device "phone" in a new channel `title`, and the
/// frames of its `/demo approval` up to the pending request.
async fn pending(title: &str) -> (Gateway, Client, String, Vec<Value>) {
    let gw = Gateway::start(1).await;
    let mut client = device(&gw, "phone").await;
    let channel = client.create_channel(title).await;
    let frames = ask(&mut client, &channel, "/demo approval", "k1").await;
    (gw, client, channel, frames)
}

/// The approval items of a channel's newest history page.
async fn logged_approvals(client: &mut Client, channel: &str) -> Vec<Value> {
    let page = client.history(json!({"channel_id": channel})).await;
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["type"] == "approval")
        .cloned()
        .collect()
}

#[tokio::test]
async fn allowed_request_runs_the_tool_and_every_device_sees_who_answered() {
    let gw = Gateway::start(1).await;
    let mut phone = device(&gw, "phone").await;
    let mut laptop = device(&gw, "laptop").await;
    let channel = phone.create_channel("Approve").await;
    laptop.recv_type("channel.created").await;

    let frames = ask(&mut phone, &channel, "/demo approval", "k1").await;
    let request = frames.last().expect("request").clone();
    let start = of_type(&frames, "tool.start")[0];
    assert_eq!(start["preview"], "rm -rf ./build");
    assert!(
        !frames
            .iter()
            .any(|f| f["type"] == "typing" && f["on"] == false),
        "typing stays on while the request waits"
    );
    assert_eq!(request["channel_id"], channel);
    assert_eq!(request["turn_id"], start["turn_id"]);
    assert!(request["request_id"]
        .as_str()
        .is_some_and(|id| id.starts_with("a_")));
    assert_eq!(request["title"], "Run a shell command?");
    assert_eq!(request["command"], "rm -rf ./build");
    assert_eq!(request["description"], "recursive delete");
    assert_eq!(
        request["choices"],
        json!(["once", "session", "always", "deny"])
    );
    assert!(request["ts"].as_i64() > Some(0));
    assert_eq!(laptop.recv_type("approval.request").await, request);
    // Nothing moves until someone answers.
    phone.assert_quiet(Duration::from_millis(200)).await;

    laptop
        .send(respond(&channel, &request["request_id"], "once"))
        .await;
    let resolved = laptop.recv_type("approval.resolved").await;
    assert_eq!(
        phone.recv().await,
        resolved,
        "the same frame for every device"
    );
    assert_eq!(resolved["request_id"], request["request_id"]);
    assert_eq!(resolved["turn_id"], request["turn_id"]);
    assert_eq!(resolved["choice"], "once");
    assert_eq!(resolved["device_id"], "laptop");
    assert_eq!(resolved["command"], "rm -rf ./build");
    assert_eq!(resolved["title"], "Run a shell command?");
    assert_eq!(resolved["description"], "recursive delete");
    // Echo 1, commentary 2, then the resolution.
    assert_eq!(resolved["seq"], 3);

    let rest = phone.until_turn_ends().await;
    let end = of_type(&rest, "tool.end")[0];
    assert_eq!(
        (end["index"].clone(), end["ok"].clone()),
        (start["index"].clone(), json!(true))
    );
    assert_eq!(end["seq"], 4);
    let stop = of_type(&rest, "message.stop")[0];
    assert!(stop["final_text"]
        .as_str()
        .is_some_and(|t| t.contains("I ran `rm -rf ./build`")));
    laptop.until_turn_ends().await;

    // A late answer (another choice) gets the same outcome, to that device only.
    phone
        .send(respond(&channel, &request["request_id"], "deny"))
        .await;
    assert_eq!(phone.recv().await, resolved);
    laptop.assert_quiet(Duration::from_millis(200)).await;

    let logged = logged_approvals(&mut phone, &channel).await;
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0]["seq"], 3);
    assert_eq!(logged[0]["choice"], "once");
    assert_eq!(logged[0]["device_id"], "laptop");
    assert_eq!(logged[0]["request_id"], request["request_id"]);
    assert_eq!(logged[0]["command"], "rm -rf ./build");
}

#[tokio::test]
async fn denied_request_does_not_run_the_tool() {
    let (_gw, mut client, channel, frames) = pending("Deny").await;
    let request = frames.last().expect("request").clone();
    client
        .send(respond(&channel, &request["request_id"], "deny"))
        .await;
    let rest = client.until_turn_ends().await;
    let resolved = of_type(&rest, "approval.resolved")[0];
    assert_eq!(
        (resolved["choice"].as_str(), resolved["device_id"].as_str()),
        (Some("deny"), Some("phone"))
    );
    let end = of_type(&rest, "tool.end")[0];
    assert_eq!(end["ok"], false);
    assert_eq!(end["output_preview"], "denied by the user");
    let stop = of_type(&rest, "message.stop")[0];
    assert!(stop["final_text"]
        .as_str()
        .is_some_and(|t| t.contains("You denied it")));
    assert_eq!(
        types(&rest)[..2],
        ["approval.resolved", "tool.end"],
        "the tool ends right after the answer"
    );
}

#[tokio::test]
async fn unknown_foreign_and_not_offered_answers_are_errors() {
    let (_gw, mut client, channel, frames) = pending("Errors").await;
    let other = client.create_channel("Other").await;
    let request_id = frames.last().expect("request")["request_id"].clone();

    client
        .send(respond(&channel, &json!("a_nosuchrequest"), "once"))
        .await;
    let error = client.recv().await;
    assert_eq!(error["type"], "error");
    assert_eq!(error["code"], "not_found");
    assert_eq!(error["request_id"], "a_nosuchrequest");

    client.send(respond(&other, &request_id, "once")).await;
    let error = client.recv().await;
    assert_eq!(
        (error["code"].clone(), error["request_id"].clone()),
        (json!("not_found"), request_id.clone()),
        "a request of another channel is not found"
    );

    for choice in ["timeout", "cancelled", "maybe"] {
        client.send(respond(&channel, &request_id, choice)).await;
        let error = client.recv().await;
        assert_eq!(
            (error["code"].clone(), error["request_id"].clone()),
            (json!("bad_request"), request_id.clone()),
            "{choice}"
        );
    }
    assert!(
        logged_approvals(&mut client, &channel).await.is_empty(),
        "still pending"
    );

    client.send(respond(&channel, &request_id, "always")).await;
    let resolved = client.recv_type("approval.resolved").await;
    assert_eq!(resolved["choice"], "always");
    client.until_turn_ends().await;
}

#[tokio::test]
async fn joining_device_gets_the_pending_request_after_the_turn_state() {
    let (gw, mut phone, channel, frames) = pending("Join").await;
    let request = frames.last().expect("request").clone();
    let start = of_type(&frames, "tool.start")[0].clone();

    let mut laptop = device(&gw, "laptop").await;
    let resend = laptop.until(|f| f["type"] == "approval.request").await;
    assert_eq!(types(&resend), ["typing", "tool.start", "approval.request"]);
    assert_eq!(resend[0]["on"], true);
    assert_eq!(resend[1], start);
    assert_eq!(resend[2], request);

    laptop
        .send(respond(&channel, &request["request_id"], "once"))
        .await;
    laptop.recv_type("approval.resolved").await;
    laptop.until_turn_ends().await;
    phone.until_turn_ends().await;
    // Once resolved, a request is no longer re-sent.
    let mut late = device(&gw, "tablet").await;
    late.assert_quiet(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn unanswered_request_times_out_after_the_configured_time() {
    let gw = Gateway::start_with(1, |c| c.approval_timeout = Duration::from_secs(1)).await;
    let mut client = device(&gw, "phone").await;
    let channel = client.create_channel("Timeout").await;
    ask(&mut client, &channel, "/demo approval", "k1").await;
    let asked = Instant::now();
    let rest = client.until_turn_ends().await;
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    let resolved = of_type(&rest, "approval.resolved")[0];
    assert_eq!(resolved["choice"], "timeout");
    assert!(
        resolved.get("device_id").is_none(),
        "the gateway resolved it"
    );
    let end = of_type(&rest, "tool.end")[0];
    assert_eq!(end["ok"], false);
    assert_eq!(end["output_preview"], "not run: nobody answered in time");
    let stop = of_type(&rest, "message.stop")[0];
    assert!(stop["final_text"]
        .as_str()
        .is_some_and(|t| t.contains("Nobody answered")));
    assert_eq!(
        logged_approvals(&mut client, &channel).await[0]["choice"],
        "timeout"
    );
}

#[tokio::test]
async fn approval_timeout_scenario_gives_up_after_a_few_seconds() {
    // The flag's default (600 s) does not apply to this scenario.
    let gw = Gateway::start(1).await;
    let mut client = device(&gw, "phone").await;
    let channel = client.create_channel("Short timeout").await;
    let frames = ask(&mut client, &channel, "/demo approval-timeout", "k1").await;
    assert_eq!(frames.last().expect("request")["command"], "rm -rf ./build");
    let asked = Instant::now();
    let resolved = client.recv_type("approval.resolved").await;
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(2500) && waited < Duration::from_secs(6),
        "{waited:?}"
    );
    assert_eq!(resolved["choice"], "timeout");
    let rest = client.until_turn_ends().await;
    assert_eq!(of_type(&rest, "tool.end")[0]["ok"], false);
}

#[tokio::test]
async fn cancel_while_pending_resolves_the_request_as_cancelled() {
    let (_gw, mut client, channel, frames) = pending("Cancel").await;
    let request = frames.last().expect("request").clone();
    let index = of_type(&frames, "tool.start")[0]["index"].clone();

    let cancelled = Instant::now();
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    let rest = client.until_turn_ends().await;
    assert!(
        cancelled.elapsed() < Duration::from_secs(2),
        "the turn stops at once"
    );
    assert_eq!(
        types(&rest),
        ["approval.resolved", "tool.end", "typing"],
        "nothing else runs after the cancel"
    );
    let resolved = &rest[0];
    assert_eq!(resolved["request_id"], request["request_id"]);
    assert_eq!(resolved["choice"], "cancelled");
    assert!(resolved.get("device_id").is_none());
    assert_eq!(
        (rest[1]["index"].clone(), rest[1]["ok"].clone()),
        (index, json!(false))
    );
    client.assert_quiet(Duration::from_millis(200)).await;

    // Answering now only repeats the outcome.
    client
        .send(respond(&channel, &request["request_id"], "once"))
        .await;
    assert_eq!(client.recv().await, *resolved);
    // The approval item is logged but leaves the preview alone.
    client.send(json!({"type": "channel.list"})).await;
    let list = client.recv_type("channel.list").await;
    let listed = list["channels"]
        .as_array()
        .expect("channels")
        .iter()
        .find(|c| c["channel_id"] == channel)
        .expect("channel")
        .clone();
    assert_eq!(listed["preview"], "/demo approval");
    assert_eq!(listed["last_seq"], 4);
    let logged = logged_approvals(&mut client, &channel).await;
    assert_eq!(logged[0]["choice"], "cancelled");
}

#[tokio::test]
async fn session_answer_is_remembered_for_the_thread_only() {
    let (_gw, mut client, channel, frames) = pending("Session").await;
    let request_id = frames.last().expect("request")["request_id"].clone();
    client.send(respond(&channel, &request_id, "session")).await;
    client.until_turn_ends().await;

    client.send_message(&channel, "/demo approval", "k2").await;
    let again = client.until_turn_ends().await;
    assert!(
        of_type(&again, "approval.request").is_empty(),
        "not asked again"
    );
    assert_eq!(of_type(&again, "tool.end")[0]["ok"], true);

    let other = client.create_channel("Elsewhere").await;
    let frames = ask(&mut client, &other, "/demo approval", "k3").await;
    let request_id = frames.last().expect("request")["request_id"].clone();
    client.send(respond(&other, &request_id, "deny")).await;
    let rest = client.until_turn_ends().await;
    assert_eq!(of_type(&rest, "tool.end")[0]["ok"], false);
}

#[tokio::test]
async fn shutdown_resolves_pending_requests_as_cancelled() {
    let Gateway { server, dir } = Gateway::start(1).await;
    let url = server.ws_url();
    let mut client = Client::connect(&url, None).await;
    let channel = client.create_channel("Shutdown").await;
    let frames = ask(&mut client, &channel, "/demo approval", "k1").await;
    let request_id = frames.last().expect("request")["request_id"].clone();

    server.shutdown().await.expect("shutdown");
    let rest = client
        .until(|f| f["type"] == "typing" && f["on"] == false)
        .await;
    let resolved = of_type(&rest, "approval.resolved")[0];
    assert_eq!(
        (resolved["request_id"].clone(), resolved["choice"].clone()),
        (request_id.clone(), json!("cancelled"))
    );
    client.recv_close().await;

    let server = aria_gateway::serve(crate::support::config(dir.path(), 1))
        .await
        .expect("restart");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let logged = logged_approvals(&mut client, &channel).await;
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0]["choice"], "cancelled");
    // After the restart the answer still finds the logged outcome.
    client.send(respond(&channel, &request_id, "once")).await;
    let again = client.recv().await;
    assert_eq!(again["type"], "approval.resolved");
    assert_eq!(again["seq"], logged[0]["seq"]);
}

#[tokio::test]
async fn deleting_the_channel_drops_its_pending_request() {
    let (_gw, mut client, channel, frames) = pending("Doomed").await;
    let request_id = frames.last().expect("request")["request_id"].clone();
    client
        .send(json!({"type": "channel.delete", "channel_id": channel}))
        .await;
    client.recv_type("channel.deleted").await;
    client.until_turn_ends().await;
    client.send(respond(&channel, &request_id, "once")).await;
    let error = client.recv().await;
    assert_eq!(
        (error["code"].clone(), error["request_id"].clone()),
        (json!("not_found"), request_id)
    );
}

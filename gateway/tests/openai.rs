//! The `openai` agent against the scripted model server: streaming,
//! reasoning, usage, context, titles, tool calls, failures and cancel.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::support::fake_model::{FakeModel, CHAT_ANSWER, CHAT_REASONING, USAGE_TOTAL};
use crate::support::{types, Client, Gateway};
use aria_gateway::{AgentKind, Config};
use serde_json::{json, Value};

/// A gateway whose `openai` agent uses `model` on `base_url`.
async fn gateway(base_url: &str, model: &str, adjust: impl FnOnce(&mut Config)) -> Gateway {
    let (base_url, model) = (base_url.to_string(), model.to_string());
    Gateway::start_with(1, move |config| {
        config.agent = AgentKind::OpenAi;
        config.openai.base_url = base_url;
        config.openai.model = Some(model);
        adjust(config);
    })
    .await
}

/// Sends `text` to a new channel and returns the channel and the turn's frames.
async fn one_turn(client: &mut Client, text: &str) -> (String, Vec<Value>) {
    let channel = client.create_channel("Test").await;
    let frames = turn_in(client, &channel, text).await;
    (channel, frames)
}

async fn turn_in(client: &mut Client, channel: &str, text: &str) -> Vec<Value> {
    static SENT: AtomicU64 = AtomicU64::new(0);
    let id = format!("k{}", SENT.fetch_add(1, Ordering::Relaxed));
    client.send_message(channel, text, &id).await;
    client.until_turn_ends().await
}

fn of_type<'a>(frames: &'a [Value], ty: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == ty).collect()
}

#[tokio::test]
async fn a_turn_streams_text_reasoning_model_and_tokens() {
    let model = FakeModel::start();
    let gw = gateway(&model.base_url(), "fake-chat", |c| {
        c.openai.api_key = Some("sk-test".into());
    })
    .await;
    let mut client = gw.client().await;
    let (_, frames) = one_turn(&mut client, "Hi there").await;

    let kinds = types(&frames);
    assert_eq!(kinds.first(), Some(&"typing"), "{kinds:?}");
    assert_eq!(frames[0]["on"], true);
    assert_eq!(kinds.last(), Some(&"typing"));
    let start = kinds
        .iter()
        .position(|t| *t == "message.start")
        .expect("start");
    let stop = kinds
        .iter()
        .position(|t| *t == "message.stop")
        .expect("stop");
    let updates = of_type(&frames, "message.update");
    assert!(
        updates.len() >= 2,
        "streamed in several snapshots: {kinds:?}"
    );
    assert!(start < stop);
    let mut previous = String::new();
    for update in &updates {
        let text = update["text"].as_str().expect("text");
        assert!(
            text.starts_with(&previous) && CHAT_ANSWER.starts_with(text),
            "{text:?}"
        );
        previous = text.to_string();
    }
    let stop = &frames[stop];
    assert_eq!(stop["final_text"], CHAT_ANSWER);
    assert_eq!(stop["reasoning"], CHAT_REASONING);
    assert_eq!(stop["model"], "fake-chat");
    assert_eq!(stop["tokens"], USAGE_TOTAL);
    let turn_id = &frames[start]["turn_id"];
    assert!(frames
        .iter()
        .filter(|f| f["type"] != "typing")
        .all(|f| &f["turn_id"] == turn_id));

    let requests = model.received();
    let request = requests.last().expect("a request");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(request.body["model"], "fake-chat");
    assert_eq!(request.body["stream"], true);
    assert_eq!(request.body["stream_options"]["include_usage"], true);
    assert_eq!(
        request.body["messages"],
        json!([{"role": "user", "content": "Hi there"}])
    );
}

#[tokio::test]
async fn the_channels_logged_messages_are_the_context() {
    let model = FakeModel::start();
    let gw = gateway(&model.base_url(), "fake-chat", |_| {}).await;
    let mut client = gw.client().await;
    let (channel, _) = one_turn(&mut client, "first question").await;
    turn_in(&mut client, &channel, "second question").await;
    let other = client.create_channel("Other").await;
    turn_in(&mut client, &other, "elsewhere").await;

    let bodies = model.completions();
    assert_eq!(bodies.len(), 3);
    assert_eq!(
        bodies[1]["messages"],
        json!([
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": CHAT_ANSWER},
            {"role": "user", "content": "second question"},
        ])
    );
    assert_eq!(
        bodies[2]["messages"],
        json!([{"role": "user", "content": "elsewhere"}]),
        "channels do not share context"
    );
}

#[tokio::test]
async fn an_auto_thread_gets_the_models_title() {
    let model = FakeModel::start();
    let gw = gateway(&model.base_url(), "fake-chat", |_| {}).await;
    let mut client = gw.client().await;
    client
        .send(json!({"type": "message.send", "text": "How do I brew green tea well?", "client_msg_id": "t1", "auto_thread": true}))
        .await;
    let created = client.recv_type("channel.created").await;
    assert_eq!(created["channel"]["auto"], true);
    let renamed = client.recv_type("channel.renamed").await;
    assert_eq!(renamed["title"], "Scripted title");
    assert_eq!(renamed["auto"], true);
    let title_request = model
        .completions()
        .into_iter()
        .find(|b| b["stream"] == false)
        .expect("a title request");
    assert_eq!(
        title_request["messages"][1]["content"],
        "How do I brew green tea well?"
    );
}

#[tokio::test]
async fn tool_calls_from_the_model_become_cards_that_did_not_run() {
    let model = FakeModel::start();
    let gw = gateway(&model.base_url(), "fake-tool", |_| {}).await;
    let mut client = gw.client().await;
    let (_, frames) = one_turn(&mut client, "read the note").await;

    let start = of_type(&frames, "tool.start");
    assert_eq!(start.len(), 1, "{:?}", types(&frames));
    assert_eq!(start[0]["name"], "read_file");
    assert_eq!(start[0]["args"], json!({"path": "note.txt"}));
    assert_eq!(start[0]["preview"], "note.txt");
    let end = of_type(&frames, "tool.end");
    assert_eq!(end[0]["ok"], false);
    assert!(end[0]["output_preview"]
        .as_str()
        .is_some_and(|p| p.contains("not run")));
    assert!(of_type(&frames, "error").is_empty());
}

/// The turn's frames for a request that fails, checking what every failure
/// shows: a ⚠️ commentary with `expected`, an `error` frame, typing off.
async fn failed_turn(
    model_name: &str,
    base_url: &str,
    stall: Duration,
    expected: &str,
) -> Vec<Value> {
    let gw = gateway(base_url, model_name, |c| c.model_stall = stall).await;
    let mut client = gw.client().await;
    let started = Instant::now();
    let (channel, frames) = one_turn(&mut client, "hello?").await;
    let commentary = of_type(&frames, "commentary");
    assert_eq!(commentary.len(), 1, "{frames:#?}");
    let note = commentary[0]["text"].as_str().expect("text");
    assert!(note.starts_with("⚠️ ") && note.contains(expected), "{note}");
    let errors = of_type(&frames, "error");
    assert_eq!(errors.len(), 1, "{frames:#?}");
    assert_eq!(errors[0]["channel_id"], channel.as_str());
    assert!(errors[0]["message"]
        .as_str()
        .is_some_and(|m| m.contains(expected)));
    assert!(
        started.elapsed() < stall + Duration::from_secs(5),
        "no hang"
    );
    frames
}

#[tokio::test]
async fn a_refused_api_key_is_shown() {
    let model = FakeModel::start();
    failed_turn(
        "fake-401",
        &model.base_url(),
        Duration::from_secs(10),
        "refused the API key (HTTP 401: scripted error 401)",
    )
    .await;
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_shown() {
    let model = FakeModel::start();
    let wait = Duration::from_secs(10);
    failed_turn(
        "fake-429",
        &model.base_url(),
        wait,
        "rate limiting or busy (HTTP 429",
    )
    .await;
    failed_turn(
        "fake-500",
        &model.base_url(),
        wait,
        "failed (HTTP 500: scripted error 500)",
    )
    .await;
}

#[tokio::test]
async fn a_refused_connection_is_shown() {
    // A port nothing listens on.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port");
    let base_url = format!("http://{addr}/v1");
    failed_turn(
        "fake-chat",
        &base_url,
        Duration::from_secs(10),
        "Cannot connect to the model server at",
    )
    .await;
}

#[tokio::test]
async fn a_stream_cut_midway_keeps_the_partial_text() {
    let model = FakeModel::start();
    let frames = failed_turn(
        "fake-disconnect",
        &model.base_url(),
        Duration::from_secs(10),
        "The connection to the model server broke before the answer was complete",
    )
    .await;
    let stop = of_type(&frames, "message.stop");
    assert_eq!(stop.len(), 1);
    assert_eq!(stop[0]["final_text"], "Partial answer");
}

#[tokio::test]
async fn a_stalled_stream_ends_the_turn() {
    let model = FakeModel::start();
    let frames = failed_turn(
        "fake-stall",
        &model.base_url(),
        Duration::from_millis(500),
        "The model server sent nothing for 0.5 s",
    )
    .await;
    assert_eq!(
        of_type(&frames, "message.stop")[0]["final_text"],
        "Thinking hard"
    );
}

#[tokio::test]
async fn cancel_aborts_the_request() {
    let model = FakeModel::start();
    let gw = gateway(&model.base_url(), "fake-stall", |_| {}).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Cancel").await;
    client.send_message(&channel, "wait for it", "c1").await;
    // " hard" came 20 ms after "Thinking", within the update interval: it
    // is sent when due although the server then goes silent.
    client
        .until(|f| f["type"] == "message.update" && f["text"] == "Thinking hard")
        .await;
    let cancelled = Instant::now();
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    let frames = client.until_turn_ends().await;
    assert!(cancelled.elapsed() < Duration::from_secs(2));
    let stop = of_type(&frames, "message.stop");
    assert_eq!(stop[0]["final_text"], "Thinking hard");
    assert!(
        stop[0].get("model").is_none(),
        "a cancelled stop has no model"
    );
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
    assert!(of_type(&frames, "commentary").is_empty());
    // The turn really stopped: the request to the model was dropped.
    let deadline = Instant::now() + Duration::from_secs(2);
    while model.hang_ups() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(model.hang_ups(), 1, "the model server saw the hang-up");
}

//! The `hermes-api` agent against the real Hermes Agent 0.19.0 (from
//! `scripts/hermes-setup`), whose model is the scripted fake model server:
//! no network. Without the venv the test fails, saying how to install it,
//! unless `ARIA_SKIP_HERMES=1`.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::fake_model::{FakeModel, COMMAND_ANSWER, TOOL_ANSWER};
use crate::support::hermes::Hermes;
use crate::support::{types, Client};
use aria_gateway::{serve, AgentKind, Config, RunningServer};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// A cold Hermes takes several seconds over its first turn (imports, tool
/// discovery); the support helpers wait 10 s per frame at most.
const TURN_TIMEOUT: Duration = Duration::from_secs(90);

/// A gateway on `data_dir` whose `hermes` agent talks to `url` with `key`.
async fn gateway(data_dir: &Path, url: &str, key: &str) -> RunningServer {
    gateway_with(data_dir, url, key, |_| {}).await
}

async fn gateway_with(
    data_dir: &Path,
    url: &str,
    key: &str,
    adjust: impl FnOnce(&mut Config),
) -> RunningServer {
    let mut config: Config = crate::support::config(data_dir, 1);
    config.agent = AgentKind::HermesApi;
    config.hermes.base_url = url.to_string();
    config.hermes.api_key = key.to_string();
    config.model_stall = Duration::from_secs(60);
    adjust(&mut config);
    serve(config).await.expect("gateway starts")
}

/// Sends `text` and returns the turn's frames, waiting as long as Hermes needs.
async fn turn(client: &mut Client, channel: &str, text: &str, id: &str) -> Vec<Value> {
    client.send_message(channel, text, id).await;
    rest_of_turn(client).await
}

async fn rest_of_turn(client: &mut Client) -> Vec<Value> {
    frames_until(client, |f| f["type"] == "typing" && f["on"] == false).await
}

/// Cancels the running turn; returns its last frames, which come at once.
async fn cancel(client: &mut Client, channel: &str) -> Vec<Value> {
    let cancelled = Instant::now();
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    let frames = rest_of_turn(client).await;
    assert!(cancelled.elapsed() < Duration::from_secs(3), "{frames:#?}");
    frames
}

/// The frames up to and including the first that `done` accepts, waiting
/// as long as Hermes needs.
async fn frames_until(client: &mut Client, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + TURN_TIMEOUT;
    let mut frames = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match client.next_message(left).await {
            Some(Message::Text(text)) => {
                let frame: Value = serde_json::from_str(&text).expect("json frame");
                let last = done(&frame);
                frames.push(frame);
                if last {
                    return frames;
                }
            }
            Some(_) => continue,
            None => panic!("no awaited frame within {TURN_TIMEOUT:?}; frames: {frames:#?}"),
        }
    }
}

fn of_type<'a>(frames: &'a [Value], ty: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == ty).collect()
}

/// Sends `text`, checks the approval request of its `rm -rf`, answers it
/// with `choice` and returns the rest of the turn.
async fn approval_turn(
    client: &mut Client,
    channel: &str,
    text: &str,
    id: &str,
    choice: &str,
) -> Vec<Value> {
    client.send_message(channel, text, id).await;
    let frames = frames_until(client, |f| f["type"] == "approval.request").await;
    let request = frames.last().expect("the request");
    let command = text.trim_start_matches("[fake-terminal] ");
    assert_eq!(request["title"], "Run this command?");
    assert_eq!(request["command"], command);
    assert!(
        request["description"]
            .as_str()
            .is_some_and(|d| d.contains("delete")),
        "{request}"
    );
    // Hermes's `session` lasts for its run only, so it is not offered.
    assert_eq!(request["choices"], json!(["once", "always", "deny"]));
    let start = of_type(&frames, "tool.start");
    assert_eq!(start.len(), 1, "{frames:#?}");
    assert_eq!(start[0]["preview"], command);
    assert_eq!(start[0]["args"], json!({"command": command}));
    client
        .send(json!({
            "type": "approval.respond",
            "channel_id": channel,
            "request_id": request["request_id"],
            "choice": choice,
        }))
        .await;
    rest_of_turn(client).await
}

/// The one commentary of a failed turn, which must start with ⚠️.
fn failure_note(frames: &[Value]) -> String {
    let notes = of_type(frames, "commentary");
    assert_eq!(notes.len(), 1, "{frames:#?}");
    assert_eq!(of_type(frames, "error").len(), 1, "{frames:#?}");
    let note = notes[0]["text"].as_str().unwrap_or_default().to_string();
    assert!(note.starts_with("⚠️ "), "{note}");
    note
}

/// The `(role, content)` of the messages of a request to the model.
fn said(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter_map(|m| {
            let content = m["content"].as_str()?.to_string();
            Some((m["role"].as_str()?.to_string(), content))
        })
        .collect()
}

fn pair(role: &str, content: &str) -> (String, String) {
    (role.to_string(), content.to_string())
}

/// Hermes, or `None` when `ARIA_SKIP_HERMES=1`; panics with the install
/// hint when it is missing.
fn hermes_or_skip() -> Option<Hermes> {
    if crate::support::hermes::skip_requested() {
        eprintln!("ARIA_SKIP_HERMES=1: skipping the test against Hermes Agent");
        return None;
    }
    Some(Hermes::new().unwrap_or_else(|e| panic!("{e}")))
}

/// One Hermes for the whole story (it takes seconds to start): a turn with
/// a tool call, the conversation kept across turns and gateway restarts,
/// cancel stopping the run while the model streams and while a command
/// runs, approvals of a dangerous command, a failing model and a wrong key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_through_real_hermes() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    let note = hermes.workdir().join("note.txt");
    std::fs::write(&note, "hello from the note\n").expect("write the note");
    let note = note.to_str().expect("utf-8 temp path").to_string();
    let model = FakeModel::start_with_note(&note);
    if let Err(e) = hermes.start(&model.base_url(), "fake-tool") {
        panic!("{e}");
    }
    let data = tempfile::tempdir().expect("temp dir");
    let gw = gateway(data.path(), &hermes.url(), hermes.key()).await;
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Hermes").await;

    // 1. A full turn: typing, the tool card with its args and ✓, the answer
    //    streamed in its own bubble, model and tokens.
    let frames = turn(&mut client, &channel, "Read the note, please.", "h1").await;
    let kinds = types(&frames);
    assert!(
        of_type(&frames, "error").is_empty(),
        "{frames:#?}\n{}",
        hermes.log()
    );
    assert_eq!(
        (&frames[0]["type"], &frames[0]["on"]),
        (&json!("typing"), &json!(true))
    );
    let start = of_type(&frames, "tool.start");
    assert_eq!(start.len(), 1, "{kinds:?}\n{}", hermes.log());
    assert_eq!(start[0]["name"], "read_file");
    assert_eq!(start[0]["preview"], "note.txt");
    // The run's events carry no arguments: they come from the transcript.
    assert_eq!(start[0]["args"], json!({"path": note}), "{}", hermes.log());
    let end = of_type(&frames, "tool.end");
    assert_eq!(end.len(), 1, "{kinds:?}");
    assert_eq!(end[0]["index"], start[0]["index"]);
    assert_eq!(end[0]["ok"], true);
    assert!(end[0]["duration"].as_f64().is_some_and(|d| d >= 0.0));
    let position = |ty: &str| kinds.iter().position(|t| *t == ty).expect(ty);
    assert!(
        position("tool.end") < position("message.start"),
        "{kinds:?}"
    );
    let updates = of_type(&frames, "message.update");
    assert!(!updates.is_empty(), "{kinds:?}");
    assert!(updates
        .iter()
        .all(|u| TOOL_ANSWER.starts_with(u["text"].as_str().unwrap_or("?"))));
    let stop = of_type(&frames, "message.stop");
    assert_eq!(stop.len(), 1, "{kinds:?}");
    assert_eq!(stop[0]["final_text"], TOOL_ANSWER);
    assert_eq!(stop[0]["model"], "hermes-agent");
    assert!(
        stop[0]["tokens"].as_u64().is_some_and(|t| t > 0),
        "{}",
        stop[0]
    );
    assert_eq!(kinds.last(), Some(&"typing"));

    // 2. The second message is answered with the first exchange in
    //    context, also after a gateway restart.
    gw.shutdown().await.expect("shutdown");
    let gw = gateway(data.path(), &hermes.url(), hermes.key()).await;
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let before = model.completions().len();
    let frames = turn(&mut client, &channel, "And once more.", "h2").await;
    assert_eq!(
        of_type(&frames, "message.stop")[0]["final_text"],
        TOOL_ANSWER
    );
    let said = said(&model.completions()[before]);
    let first = said
        .iter()
        .position(|m| *m == pair("user", "Read the note, please."))
        .unwrap_or_else(|| panic!("the first message is missing: {said:#?}"));
    assert_eq!(said.get(first + 1), Some(&pair("assistant", TOOL_ANSWER)));
    assert_eq!(said.last(), Some(&pair("user", "And once more.")));

    // 3. Cancel ends the turn at once, keeping the streamed text, and stops
    //    the run; the channel then goes on.
    client
        .send_message(&channel, "[fake-stall] Take your time.", "h3")
        .await;
    // " hard" came 20 ms after "Thinking", within the update interval: it
    // is sent when due although the server then goes silent.
    client
        .until(|f| f["type"] == "message.update" && f["text"] == "Thinking hard")
        .await;
    let frames = cancel(&mut client, &channel).await;
    assert_eq!(
        of_type(&frames, "message.stop")[0]["final_text"],
        "Thinking hard"
    );
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
    let frames = turn(&mut client, &channel, "Read it again.", "h4").await;
    assert_eq!(
        of_type(&frames, "message.stop")[0]["final_text"],
        TOOL_ANSWER
    );

    // 4. Cancel while a command runs: the run stops, so the model never
    //    gets the command's result (it would after 4 s otherwise).
    client
        .send_message(&channel, "[fake-terminal] sleep 4", "h5")
        .await;
    frames_until(&mut client, |f| f["type"] == "tool.start").await;
    let asked = model.completions().len();
    let frames = cancel(&mut client, &channel).await;
    let end = of_type(&frames, "tool.end");
    assert_eq!(end.len(), 1, "{frames:#?}");
    assert_eq!(end[0]["ok"], false);
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(
        model.completions().len(),
        asked,
        "the model was asked again after the run was stopped\n{}",
        hermes.log()
    );

    // 5. A dangerous command waits for the user: denied, it does not run;
    //    allowed once, it does; cancelled while asked, the turn ends.
    let victim = hermes.workdir().join("victim");
    std::fs::create_dir_all(&victim).expect("make the victim");
    std::fs::write(victim.join("keep.txt"), "precious\n").expect("fill the victim");
    let rm = format!("rm -rf {}", victim.display());
    let ask = |id: &'static str| (format!("[fake-terminal] {rm}"), id);

    let (text, id) = ask("a1");
    let frames = approval_turn(&mut client, &channel, &text, id, "deny").await;
    assert!(victim.exists(), "a denied rm ran\n{}", hermes.log());
    let resolved = of_type(&frames, "approval.resolved");
    assert_eq!(resolved.len(), 1, "{frames:#?}");
    assert_eq!(resolved[0]["choice"], "deny");
    let end = of_type(&frames, "tool.end");
    assert_eq!(end.len(), 1, "{frames:#?}");
    assert_eq!(
        (&end[0]["name"], &end[0]["ok"], &end[0]["output_preview"]),
        (&json!("terminal"), &json!(false), &json!("not run: denied"))
    );
    assert_eq!(
        of_type(&frames, "message.stop")[0]["final_text"],
        COMMAND_ANSWER
    );

    let (text, id) = ask("a2");
    let frames = approval_turn(&mut client, &channel, &text, id, "once").await;
    assert!(
        !victim.exists(),
        "an allowed rm did not run\n{}",
        hermes.log()
    );
    assert_eq!(of_type(&frames, "approval.resolved")[0]["choice"], "once");
    let end = of_type(&frames, "tool.end");
    assert_eq!(
        (&end[0]["ok"], &end[0]["output_preview"]),
        (&json!(true), &json!(""))
    );

    std::fs::create_dir_all(&victim).expect("make the victim again");
    let (text, id) = ask("a3");
    client.send_message(&channel, &text, id).await;
    frames_until(&mut client, |f| f["type"] == "approval.request").await;
    let frames = cancel(&mut client, &channel).await;
    assert_eq!(
        of_type(&frames, "approval.resolved")[0]["choice"],
        "cancelled"
    );
    assert!(victim.exists(), "a cancelled rm ran\n{}", hermes.log());

    // Nobody answering in time is a denial.
    gw.shutdown().await.expect("shutdown");
    let gw = gateway_with(data.path(), &hermes.url(), hermes.key(), |c| {
        c.approval_timeout = Duration::from_secs(2);
    })
    .await;
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let (text, id) = ask("a4");
    let frames = turn(&mut client, &channel, &text, id).await;
    assert_eq!(
        of_type(&frames, "approval.resolved")[0]["choice"],
        "timeout"
    );
    let end = of_type(&frames, "tool.end");
    assert_eq!(
        (&end[0]["ok"], &end[0]["output_preview"]),
        (&json!(false), &json!("not run: nobody answered in time"))
    );
    assert!(victim.exists(), "an unanswered rm ran\n{}", hermes.log());

    // 6. Hermes's model failing shows in the thread. Last: after a 401
    //    Hermes stops asking that model.
    let frames = turn(&mut client, &channel, "[fake-401] Hello?", "h6").await;
    let note = failure_note(&frames);
    assert!(
        note.contains("Hermes's run failed: HTTP 401: scripted error 401"),
        "{note}"
    );

    // 7. A wrong key for Hermes itself.
    let other = tempfile::tempdir().expect("temp dir");
    let wrong = gateway(other.path(), &hermes.url(), "not-the-key-0123456789").await;
    let mut client = Client::connect(&wrong.ws_url(), None).await;
    let channel = client.create_channel("Wrong key").await;
    let frames = turn(&mut client, &channel, "hello?", "h7").await;
    let note = failure_note(&frames);
    assert!(
        note.contains("Hermes refused the API key (HTTP 401: Invalid API key)"),
        "{note}"
    );
}

#[tokio::test]
async fn an_unreachable_hermes_is_shown() {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port");
    let data = tempfile::tempdir().expect("temp dir");
    let gw = gateway(data.path(), &format!("http://{addr}"), "0123456789abcdef").await;
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Down").await;
    let frames = turn(&mut client, &channel, "hello?", "d1").await;
    let note = failure_note(&frames);
    assert!(note.starts_with("⚠️ Cannot connect to Hermes at"), "{note}");
}

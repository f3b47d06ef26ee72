//! The `hermes` agent against the real Hermes Agent 0.19.0 with this
//! repository's plugin (both from `scripts/hermes-setup`), linked over the
//! Hermes link; Hermes's model is the scripted fake model server, which
//! streams tool-call deltas: no network. Without the venv the test fails,
//! saying how to install it, unless `ARIA_SKIP_HERMES=1`.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::fake_model::{
    FakeModel, BEAT, CHAT_ANSWER, CHAT_REASONING, COMMAND_ANSWER, PLAN_ANSWER, TOOL_ANSWER,
    USAGE_TOTAL,
};
use crate::support::hermes::Hermes;
use crate::support::Client;
use aria_gateway::{serve, AgentKind, RunningServer};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// A cold Hermes takes several seconds over its first turn.
const TURN_TIMEOUT: Duration = Duration::from_secs(90);

pub(crate) async fn gateway(data_dir: &Path, link: SocketAddr) -> RunningServer {
    let mut config = crate::support::config(data_dir, 1);
    config.agent = AgentKind::Hermes;
    config.hermes.link = link;
    config.model_stall = Duration::from_secs(60);
    serve(config).await.expect("gateway starts")
}

pub(crate) async fn frames_until(client: &mut Client, done: impl Fn(&Value) -> bool) -> Vec<Value> {
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

pub(crate) async fn rest_of_turn(client: &mut Client) -> Vec<Value> {
    frames_until(client, |f| f["type"] == "typing" && f["on"] == false).await
}

pub(crate) async fn turn(client: &mut Client, channel: &str, text: &str, id: &str) -> Vec<Value> {
    client.send_message(channel, text, id).await;
    rest_of_turn(client).await
}

pub(crate) fn of_type<'a>(frames: &'a [Value], ty: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == ty).collect()
}

/// The turn's answer: the last stopped bubble's or whole message's text.
pub(crate) fn answer(frames: &[Value]) -> String {
    let text = frames.iter().rev().find_map(|f| match f["type"].as_str() {
        Some("message.stop") => f["final_text"].as_str(),
        Some("message") if f["role"] == "assistant" => f["text"].as_str(),
        _ => None,
    });
    text.unwrap_or_else(|| panic!("no answer: {frames:#?}"))
        .to_string()
}

/// The ⚠️ commentary of a failed turn.
fn failure_note(frames: &[Value]) -> String {
    assert_eq!(of_type(frames, "error").len(), 1, "{frames:#?}");
    let note = of_type(frames, "commentary")
        .last()
        .and_then(|n| n["text"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(note.starts_with("⚠️ "), "{frames:#?}");
    note
}

pub(crate) fn hermes_or_skip() -> Option<Hermes> {
    if crate::support::hermes::skip_requested() {
        eprintln!("ARIA_SKIP_HERMES=1: skipping the test against Hermes Agent");
        return None;
    }
    Some(Hermes::new().unwrap_or_else(|e| panic!("{e}")))
}

/// Waits until the stopped gateway's link listener let go of `addr` (it
/// closes on the runtime, just after `shutdown` returns).
async fn wait_until_free(addr: SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::net::TcpListener::bind(addr).is_err() {
        assert!(Instant::now() < deadline, "{addr} stays taken");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
}

/// One Hermes for the whole story (it takes seconds to start): a terminal
/// command's full args and output; the agent remembering its own tool
/// call next turn; a streamed answer's reasoning and the turn's tokens;
/// the todo list as plans, kept across turns; an approval denied on
/// another device; Stop mid-run; Hermes killed
/// mid-turn and back; a gateway restart survived by Hermes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turns_through_real_hermes_over_the_link() {
    let Some(mut hermes) = hermes_or_skip() else {
        return;
    };
    let note = hermes.workdir().join("note.txt");
    std::fs::write(&note, "hello from the note\n").expect("write the note");
    let note = note.to_str().expect("utf-8 temp path").to_string();
    let model = FakeModel::start_with_note(&note);
    let data = tempfile::tempdir().expect("temp dir");
    let link = free_addr();
    let gw = gateway(data.path(), link).await;
    let secret_file = data.path().join("hermes-link.secret");
    let start = |hermes: &mut Hermes| {
        tokio::task::block_in_place(|| {
            hermes
                .start_linked(&model.base_url(), "fake-tool", link, &secret_file)
                .unwrap_or_else(|e| panic!("{e}"))
        })
    };
    start(&mut hermes);
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let channel = client.create_channel("Hermes").await;

    // 1. A first message (Hermes appends a first-contact note to it, so
    //    it carries no script tag): the note is read, with the call's full
    //    args and result.
    let frames = turn(&mut client, &channel, "Read the note, please.", "h0").await;
    assert!(
        of_type(&frames, "error").is_empty(),
        "{frames:#?}\n{}",
        hermes.log()
    );
    let read = of_type(&frames, "tool.start");
    assert_eq!(read.len(), 1, "{frames:#?}");
    assert_eq!(read[0]["name"], "read_file");
    assert_eq!(read[0]["args"], json!({"path": note}));
    let read_end = of_type(&frames, "tool.end");
    assert!(
        read_end[0]["output"]
            .as_str()
            .is_some_and(|o| o.contains("hello from the note")),
        "{}",
        read_end[0]
    );
    assert_eq!(answer(&frames), TOOL_ANSWER);

    // 2. A terminal command: its full args on tool.start, its output on
    //    tool.end, then the answer.
    let frames = turn(
        &mut client,
        &channel,
        "[fake-terminal] echo hello-from-terminal",
        "h1",
    )
    .await;
    assert!(
        of_type(&frames, "error").is_empty(),
        "{frames:#?}\n{}",
        hermes.log()
    );
    let start_frame = of_type(&frames, "tool.start");
    assert_eq!(start_frame.len(), 1, "{frames:#?}");
    assert_eq!(start_frame[0]["name"], "terminal");
    assert_eq!(
        start_frame[0]["args"]["command"],
        "echo hello-from-terminal"
    );
    assert_eq!(start_frame[0]["preview"], "echo hello-from-terminal");
    let end = of_type(&frames, "tool.end");
    assert_eq!(end[0]["index"], start_frame[0]["index"]);
    assert_eq!(end[0]["ok"], true, "{}", end[0]);
    assert!(
        end[0]["output"]
            .as_str()
            .is_some_and(|o| o.contains("hello-from-terminal")),
        "{}",
        end[0]
    );
    assert!(end[0]["duration"].as_f64().is_some_and(|d| d >= 0.0));
    assert_eq!(answer(&frames), COMMAND_ANSWER);
    // The turn's tokens: both of its model calls (the call, the answer).
    let stop = of_type(&frames, "message.stop")
        .pop()
        .expect("a streamed answer");
    assert_eq!(stop["tokens"], json!(2 * USAGE_TOTAL), "{stop}");

    // 3. The next turn's request to the model holds the last turn's tool
    //    call and its result: Hermes keeps the thread's session itself.
    let before = model.completions().len();
    let frames = turn(&mut client, &channel, "Read the note again.", "h2").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let request = &model.completions()[before];
    let messages = request["messages"].as_array().expect("messages");
    let call = messages
        .iter()
        .find_map(|m| {
            m["tool_calls"]
                .as_array()?
                .iter()
                .find(|c| c["function"]["name"] == "terminal")
        })
        .unwrap_or_else(|| panic!("no terminal call in {messages:#?}"));
    let args: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or(""))
        .expect("the call's arguments");
    assert_eq!(args["command"], "echo hello-from-terminal");
    assert!(
        messages.iter().any(|m| m["role"] == "tool"
            && m["content"]
                .as_str()
                .is_some_and(|c| c.contains("hello-from-terminal"))),
        "no terminal result in {messages:#?}"
    );

    // 3b. A streamed answer's reasoning (Hermes sends no reasoning prefix
    //     when it streams) comes from its model call, above the answer.
    let frames = turn(&mut client, &channel, "[fake-chat] Hi!", "r1").await;
    assert_eq!(answer(&frames), CHAT_ANSWER, "{}", hermes.log());
    let stop = of_type(&frames, "message.stop")
        .pop()
        .expect("a streamed answer");
    assert_eq!(stop["reasoning"], CHAT_REASONING, "{stop}");
    assert_eq!(stop["tokens"], json!(USAGE_TOTAL), "{stop}");

    // 3c. What the model says along with a tool call (Hermes's interim
    //     message) shows before the call's card, apart from the answer:
    //     Hermes streams it, so it is a message of its own, as in the
    //     seed's frame sequence (unstreamed, it would be commentary).
    let frames = turn(&mut client, &channel, "[fake-beat]", "r2").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    let beat = frames
        .iter()
        .position(|f| f["type"] == "message.stop" && f["final_text"] == BEAT);
    let card = frames.iter().position(|f| f["type"] == "tool.start");
    assert!(
        beat.is_some() && beat < card,
        "the beat before the card: {frames:#?}"
    );

    // 4. The todo tool's list arrives as a plan frame, whole, and is
    //    logged at the turn's end; read back next turn, it is still there
    //    (Hermes's session is the real one).
    let todos = json!([
        {"id": "1", "content": "Read the note", "status": "completed"},
        {"id": "2", "content": "Summarize <it>", "status": "in_progress"},
    ]);
    let frames = turn(&mut client, &channel, &format!("[fake-todo] {todos}"), "p1").await;
    assert_eq!(answer(&frames), PLAN_ANSWER, "{}", hermes.log());
    let expected = json!([
        {"id": "1", "text": "Read the note", "status": "completed"},
        {"id": "2", "text": "Summarize <it>", "status": "in_progress"},
    ]);
    let plans = of_type(&frames, "plan");
    assert_eq!(plans.len(), 2, "{frames:#?}");
    assert_eq!(plans[0]["items"], expected);
    assert!(plans[0].get("seq").is_none(), "{}", plans[0]);
    assert_eq!(plans[1]["items"], expected);
    assert!(plans[1]["seq"].as_u64().is_some(), "{}", plans[1]);
    let frames = turn(&mut client, &channel, "[fake-todo]", "p2").await;
    assert_eq!(
        of_type(&frames, "plan")[0]["items"],
        expected,
        "{frames:#?}"
    );

    // 5. A dangerous command asks with Hermes's choices; denied, it does
    //    not run; allowed once, it does.
    let victim = hermes.workdir().join("victim");
    std::fs::create_dir_all(&victim).expect("make the victim");
    let rm = format!("rm -rf {}", victim.display());
    // Asked on every device; denied on another one than the sender's.
    let mut other = Client::connect(&gw.ws_url(), None).await;
    client
        .send_message(&channel, &format!("[fake-terminal] {rm}"), "a1")
        .await;
    let frames = frames_until(&mut client, |f| f["type"] == "approval.request").await;
    let request = frames.last().expect("the request");
    assert_eq!(request["command"], rm.as_str());
    assert_eq!(
        request["choices"],
        json!(["once", "session", "always", "deny"])
    );
    let seen = frames_until(&mut other, |f| f["type"] == "approval.request").await;
    let seen = seen.last().expect("the request on the other device");
    assert_eq!(seen["request_id"], request["request_id"]);
    other
        .send(json!({"type": "approval.respond", "channel_id": channel,
                     "request_id": seen["request_id"], "choice": "deny"}))
        .await;
    drop(other);
    let frames = rest_of_turn(&mut client).await;
    assert!(victim.exists(), "a denied rm ran\n{}", hermes.log());
    assert_eq!(of_type(&frames, "approval.resolved")[0]["choice"], "deny");
    assert_eq!(of_type(&frames, "tool.end")[0]["ok"], false, "{frames:#?}");
    // Allowed once, it runs: the answer reached Hermes (a lost answer would
    // be denied by Hermes's own timeout instead).
    client
        .send_message(&channel, &format!("[fake-terminal] {rm}"), "a2")
        .await;
    let frames = frames_until(&mut client, |f| f["type"] == "approval.request").await;
    let request = frames.last().expect("the request");
    client
        .send(json!({"type": "approval.respond", "channel_id": channel,
                     "request_id": request["request_id"], "choice": "once"}))
        .await;
    let frames = rest_of_turn(&mut client).await;
    assert!(
        !victim.exists(),
        "an allowed rm did not run\n{}",
        hermes.log()
    );
    let ends = of_type(&frames, "tool.end");
    assert_eq!(ends.len(), 1, "only the turn's own call: {frames:#?}");
    assert_eq!(ends[0]["ok"], true, "{frames:#?}");

    // 6. Stop while a command runs ends the turn at once; the thread goes on.
    client
        .send_message(&channel, "[fake-terminal] sleep 4", "h3")
        .await;
    frames_until(&mut client, |f| f["type"] == "tool.start").await;
    let stopped = Instant::now();
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    rest_of_turn(&mut client).await;
    assert!(stopped.elapsed() < Duration::from_secs(3));
    let frames = turn(&mut client, &channel, "Read it again.", "h4").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());

    // 7. Hermes killed mid-turn: a clear failure at once; once Hermes is
    //    back the thread answers again, its session intact.
    client
        .send_message(&channel, "[fake-terminal] sleep 5", "h5")
        .await;
    frames_until(&mut client, |f| f["type"] == "tool.start").await;
    hermes.kill();
    let frames = rest_of_turn(&mut client).await;
    let note = failure_note(&frames);
    assert!(
        note.contains("The link to Hermes was lost mid-turn"),
        "{note}"
    );
    start(&mut hermes);
    let before = model.completions().len();
    let frames = turn(&mut client, &channel, "Read the note once more.", "h6").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
    // Hermes resumes the run it was killed in by itself once it is back:
    // nothing of that run may reach this turn.
    assert_eq!(
        of_type(&frames, "tool.start").len(),
        1,
        "{frames:#?}\n{}",
        hermes.log()
    );
    let answers = frames
        .iter()
        .filter(|f| {
            f["type"] == "message.stop" || (f["type"] == "message" && f["role"] == "assistant")
        })
        .count();
    assert_eq!(answers, 1, "{frames:#?}\n{}", hermes.log());
    let remembered = model.completions()[before].to_string();
    assert!(remembered.contains("hello-from-terminal"), "{remembered}");

    // 8. A gateway restart is survived by Hermes: the plugin links again.
    let links = hermes.links();
    gw.shutdown().await.expect("shutdown");
    wait_until_free(link).await;
    let gw = gateway(data.path(), link).await;
    tokio::task::block_in_place(|| hermes.wait_linked(links)).unwrap_or_else(|e| panic!("{e}"));
    let mut client = Client::connect(&gw.ws_url(), None).await;
    let frames = turn(&mut client, &channel, "Still there?", "h7").await;
    assert_eq!(answer(&frames), TOOL_ANSWER, "{}", hermes.log());
}

//! The gateway's end of the Hermes link (docs/hermes-link.md) against a
//! scripted plugin written here: the handshake and its refusals, the
//! mapping of the plugin's events to frames, and bad input on the link.
//! The real plugin in real Hermes is tested in `hermes.rs`.

use std::net::SocketAddr;
use std::time::Duration;

use crate::support::{Client, Gateway};
use aria_gateway::AgentKind;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// A free loopback port for the link.
pub(crate) fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
}

pub(crate) async fn gateway(link: SocketAddr) -> Gateway {
    Gateway::start_with(1, |c| {
        c.agent = AgentKind::Hermes;
        c.hermes.link = link;
        c.model_stall = Duration::from_secs(30);
    })
    .await
}

pub(crate) fn secret(gw: &Gateway) -> String {
    std::fs::read_to_string(gw.dir.path().join("hermes-link.secret"))
        .expect("the gateway made the secret")
        .trim()
        .to_string()
}

/// The scripted plugin's end of a link.
pub(crate) struct Plugin {
    lines: BufReader<OwnedReadHalf>,
    write: OwnedWriteHalf,
}

impl Plugin {
    /// Connects and says hello with `secret`; returns the gateway's answer.
    pub(crate) async fn hello(link: SocketAddr, secret: &str) -> (Self, Value) {
        let stream = TcpStream::connect(link).await.expect("connect");
        let (read, write) = stream.into_split();
        let mut plugin = Self {
            lines: BufReader::new(read),
            write,
        };
        plugin
            .send(json!({"type": "hello", "version": 1, "secret": secret}))
            .await;
        let answer = plugin.recv().await;
        (plugin, answer)
    }

    pub(crate) async fn linked(link: SocketAddr, secret: &str) -> Self {
        let (plugin, answer) = Self::hello(link, secret).await;
        assert_eq!(answer["type"], "welcome", "{answer}");
        plugin
    }

    pub(crate) async fn send(&mut self, message: Value) {
        self.raw(&format!("{message}\n")).await;
    }

    pub(crate) async fn raw(&mut self, line: &str) {
        self.write
            .write_all(line.as_bytes())
            .await
            .expect("write to the gateway");
    }

    pub(crate) async fn recv(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(20), self.lines.read_line(&mut line))
            .await
            .expect("a line from the gateway in time")
            .expect("read");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// The next `turn` the gateway sends: (chat, turn id, text).
    pub(crate) async fn turn(&mut self) -> (String, String, String) {
        let turn = self.recv().await;
        assert_eq!(turn["type"], "turn", "{turn}");
        let field = |k: &str| turn[k].as_str().expect(k).to_string();
        (field("chat_id"), field("turn_id"), field("text"))
    }
}

pub(crate) fn of_type<'a>(frames: &'a [Value], ty: &str) -> Vec<&'a Value> {
    frames.iter().filter(|f| f["type"] == ty).collect()
}

/// The ⚠️ commentary of a failed turn.
fn failure_note(frames: &[Value]) -> String {
    let notes = of_type(frames, "commentary");
    let note = notes.last().expect("a failure note")["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(note.starts_with("⚠️ "), "{frames:#?}");
    assert_eq!(of_type(frames, "error").len(), 1, "{frames:#?}");
    note
}

#[tokio::test]
async fn a_wrong_secret_is_refused() {
    let link = free_addr();
    let gw = gateway(link).await;
    let (_, answer) = Plugin::hello(link, "not-the-secret-0123456789").await;
    assert_eq!(answer["type"], "refused");
    assert_eq!(answer["reason"], "wrong secret");
    let (_, answer) = Plugin::hello(link, &secret(&gw)).await;
    assert_eq!(answer["type"], "welcome");
}

#[tokio::test]
async fn the_link_must_be_on_loopback() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut config = crate::support::config(data.path(), 1);
    config.agent = AgentKind::Hermes;
    config.hermes.link = "0.0.0.0:0".parse().expect("addr");
    let error = aria_gateway::serve(config)
        .await
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("loopback"), "{error}");
}

/// A turn as the plugin reports Hermes's calls: a streamed bubble before a
/// tool call, the call with its full args and output (markup stays text),
/// an interim beat, then the streamed answer with reasoning and model.
#[tokio::test]
async fn events_become_the_turns_frames() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Linked").await;
    client.send_message(&channel, "list the files", "k1").await;
    let (chat, turn, text) = plugin.turn().await;
    assert_eq!(
        (chat.as_str(), text.as_str()),
        (channel.as_str(), "list the files")
    );
    let output = "<script>alert(1)</script>\na.txt\n";
    for event in [
        json!({"type": "typing", "on": true}),
        json!({"type": "send", "message_id": "h1", "text": "Let me", "streaming": true}),
        json!({"type": "edit", "message_id": "h1", "text": "Let me look.", "final": true}),
        json!({"type": "tool.start", "call_id": "s/c1", "name": "terminal",
               "args": {"command": "ls -la", "timeout": 30}, "preview": "ls -la"}),
        json!({"type": "tool.end", "call_id": "s/c1", "name": "terminal", "ok": true,
               "duration_ms": 420.0, "output_preview": "a.txt", "output": output}),
        json!({"type": "send", "message_id": "h2", "text": "Found one file."}),
        json!({"type": "send", "message_id": "h3", "text": "The", "streaming": true}),
        json!({"type": "edit", "message_id": "h3", "text": "The repo has a.txt.",
               "reasoning": "The listing shows one file.", "final": true}),
        json!({"type": "done", "outcome": "success", "model": "fake-tool"}),
    ] {
        let mut event = event;
        event["chat_id"] = json!(chat);
        event["turn_id"] = json!(turn);
        plugin.send(event).await;
    }
    let frames = client.until_turn_ends().await;
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
    let kinds = crate::support::types(&frames);
    let stops = of_type(&frames, "message.stop");
    assert_eq!(stops.len(), 2, "{kinds:?}");
    assert_eq!(stops[0]["final_text"], "Let me look.");
    assert_eq!(stops[1]["final_text"], "The repo has a.txt.");
    assert_eq!(stops[1]["reasoning"], "The listing shows one file.");
    assert_eq!(stops[1]["model"], "fake-tool");
    let start = of_type(&frames, "tool.start");
    assert_eq!(
        start[0]["args"],
        json!({"command": "ls -la", "timeout": 30})
    );
    let end = of_type(&frames, "tool.end");
    assert_eq!(end[0]["index"], start[0]["index"]);
    assert_eq!(end[0]["output"], output);
    assert_eq!(end[0]["ok"], true);
    assert!((end[0]["duration"].as_f64().expect("duration") - 0.42).abs() < 1e-9);
    let notes = of_type(&frames, "commentary");
    assert_eq!(notes.len(), 1, "{kinds:?}");
    assert_eq!(notes[0]["text"], "Found one file.");
    let position = |f: &Value| frames.iter().position(|g| g == f).expect("frame");
    assert!(position(stops[0]) < position(start[0]));
    assert!(position(end[0]) < position(notes[0]));
    assert!(position(notes[0]) < position(stops[1]));
}

/// A malformed event of one thread fails that thread's turn; the other
/// thread's turn, on the same link, goes on and finishes.
#[tokio::test]
async fn a_bad_event_fails_only_its_threads_turn() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut one = gw.client().await;
    let first = one.create_channel("One").await;
    let second = one.create_channel("Two").await;
    // Connected after both channels exist, so it reads only its own turn.
    let mut two = gw.client().await;
    one.send_message(&first, "hi", "k1").await;
    let (chat1, turn1, _) = plugin.turn().await;
    two.send_message(&second, "hello", "k2").await;
    let (chat2, turn2, _) = plugin.turn().await;
    plugin
        .send(json!({"type": "tool.end", "chat_id": chat1, "turn_id": turn1, "ok": "maybe"}))
        .await;
    let frames = one
        .until(|f| f["type"] == "typing" && f["on"] == false && f["channel_id"] == first)
        .await;
    let note = failure_note(&frames);
    assert!(
        note.contains("Hermes sent an event it cannot read"),
        "{note}"
    );
    plugin
        .send(json!({"type": "send", "chat_id": chat2, "turn_id": turn2,
                     "message_id": "h1", "text": "Still here."}))
        .await;
    plugin
        .send(json!({"type": "done", "chat_id": chat2, "turn_id": turn2, "outcome": "success"}))
        .await;
    let frames: Vec<Value> = two
        .until(|f| f["type"] == "typing" && f["on"] == false && f["channel_id"] == second)
        .await
        .into_iter()
        .filter(|f| f["channel_id"] == second)
        .collect();
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
    assert_eq!(of_type(&frames, "message")[0]["text"], "Still here.");
}

/// Garbage on the link (not JSON) drops the link: the running turn fails
/// clearly at once, and after the plugin links again the next turn works.
#[tokio::test]
async fn garbage_or_a_lost_link_fails_the_turn_and_the_next_one_works() {
    let link = free_addr();
    let gw = gateway(link).await;
    let secret = secret(&gw);
    let mut plugin = Plugin::linked(link, &secret).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Garbage").await;
    client.send_message(&channel, "hi", "k1").await;
    plugin.turn().await;
    plugin.raw("\u{1b}[31m this is no JSON\n").await;
    let frames = client.until_turn_ends().await;
    let note = failure_note(&frames);
    assert!(
        note.contains("The link to Hermes was lost mid-turn"),
        "{note}"
    );
    assert!(note.contains("not JSON"), "{note}");

    let mut plugin = Plugin::linked(link, &secret).await;
    client.send_message(&channel, "again", "k2").await;
    let (chat, turn, _) = plugin.turn().await;
    // The plugin dies mid-turn (Hermes killed): the turn ends at once.
    plugin
        .send(
            json!({"type": "tool.start", "chat_id": chat, "turn_id": turn,
                     "call_id": "s/1", "name": "terminal", "args": {"command": "sleep 9"}}),
        )
        .await;
    drop(plugin);
    let frames = client.until_turn_ends().await;
    let note = failure_note(&frames);
    assert!(note.contains("Hermes closed the link"), "{note}");
    let end = of_type(&frames, "tool.end");
    assert_eq!(end[0]["ok"], false, "{frames:#?}");

    let mut plugin = Plugin::linked(link, &secret).await;
    client.send_message(&channel, "third", "k3").await;
    let (chat, turn, _) = plugin.turn().await;
    plugin
        .send(json!({"type": "send", "chat_id": chat, "turn_id": turn,
                     "message_id": "h1", "text": "Back."}))
        .await;
    plugin
        .send(json!({"type": "done", "chat_id": chat, "turn_id": turn, "outcome": "success"}))
        .await;
    let frames = client.until_turn_ends().await;
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
}

/// Stop: the gateway tells the plugin to cancel, the turn ends at once,
/// and what the stopped run still sends is dropped.
#[tokio::test]
async fn cancel_reaches_the_plugin() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client: Client = gw.client().await;
    let channel = client.create_channel("Stop").await;
    client.send_message(&channel, "long job", "k1").await;
    let (chat, turn, _) = plugin.turn().await;
    client
        .send(json!({"type": "turn.cancel", "channel_id": channel}))
        .await;
    client.until_turn_ends().await;
    let cancel = plugin.recv().await;
    assert_eq!(cancel, json!({"type": "cancel", "chat_id": chat}));
    plugin
        .send(json!({"type": "send", "chat_id": chat, "turn_id": turn,
                     "message_id": "h9", "text": "late words"}))
        .await;
    client.assert_quiet(Duration::from_millis(300)).await;
}

/// §14: the todo list arrives as `plan` frames, whole, and a sub-agent's
/// calls carry the `parent_index` of the delegation they run under; the
/// plan's final state is logged once, right before the answer, and
/// history gives back both the plan and the nesting.
#[tokio::test]
async fn plans_and_nested_calls() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Plans").await;
    client
        .send_message(&channel, "plan and delegate", "k1")
        .await;
    let (chat, turn, _) = plugin.turn().await;
    let item = |id: &str, status: &str| json!({"id": id, "text": format!("<i>step {id}</i>"), "status": status});
    for event in [
        json!({"type": "plan", "items": [item("1", "in_progress"), item("2", "pending")]}),
        json!({"type": "tool.start", "call_id": "s/d", "name": "delegate_task",
               "args": {"goal": "read"}, "preview": "read"}),
        json!({"type": "tool.start", "call_id": "child/r", "parent_call_id": "s/d",
               "name": "read_file", "args": {"path": "a.txt"}}),
        json!({"type": "tool.end", "call_id": "child/r", "name": "read_file", "ok": true,
               "output": "hi"}),
        json!({"type": "tool.end", "call_id": "s/d", "name": "delegate_task", "ok": true}),
        json!({"type": "plan", "items": [item("1", "completed"), item("2", "blocked")]}),
        json!({"type": "send", "message_id": "h1", "text": "Done."}),
        json!({"type": "done", "outcome": "success"}),
    ] {
        let mut event = event;
        event["chat_id"] = json!(chat);
        event["turn_id"] = json!(turn);
        plugin.send(event).await;
    }
    let frames = client.until_turn_ends().await;
    assert!(of_type(&frames, "error").is_empty(), "{frames:#?}");
    let plans = of_type(&frames, "plan");
    assert_eq!(plans.len(), 3, "{frames:#?}");
    assert_eq!(plans[0]["items"][0]["status"], "in_progress");
    assert_eq!(plans[0]["items"][0]["text"], "<i>step 1</i>");
    assert_eq!(plans[1]["items"][0]["status"], "completed");
    // A status the protocol does not know is sent as `unknown`.
    assert_eq!(plans[1]["items"][1]["status"], "unknown");
    assert!(plans[0].get("seq").is_none() && plans[1].get("seq").is_none());
    // The logged state: the last one, with a seq right before the answer's.
    let logged = plans[2];
    assert_eq!(logged["items"], plans[1]["items"]);
    assert_eq!(logged["turn_id"], plans[1]["turn_id"]);
    let answer = of_type(&frames, "message")
        .into_iter()
        .find(|m| m["role"] == "assistant")
        .expect("the answer");
    let plan_seq = logged["seq"].as_u64().expect("a logged plan has a seq");
    assert_eq!(answer["seq"].as_u64(), Some(plan_seq + 1), "{frames:#?}");
    let starts = of_type(&frames, "tool.start");
    let (delegation, child) = (starts[0], starts[1]);
    assert!(delegation.get("parent_index").is_none(), "{delegation}");
    assert_eq!(child["parent_index"], delegation["index"]);
    let ends = of_type(&frames, "tool.end");
    assert_eq!(ends[0]["index"], child["index"]);
    assert_eq!(ends[0]["parent_index"], delegation["index"]);
    assert!(ends[1].get("parent_index").is_none(), "{}", ends[1]);
    let page = client
        .history(json!({"type": "history.get", "channel_id": channel}))
        .await;
    let items = page["items"].as_array().expect("items");
    let kinds: Vec<&str> = items.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(
        kinds,
        ["message", "tool", "tool", "plan", "message"],
        "{page}"
    );
    let plan = &items[3];
    assert_eq!(plan["seq"], logged["seq"]);
    assert_eq!(plan["items"], logged["items"]);
    assert_eq!(plan["turn_id"], logged["turn_id"]);
    assert_eq!(items[1]["parent_index"], delegation["index"]);
    assert!(items[2].get("parent_index").is_none(), "{}", items[2]);
}

/// An approval request of the plugin is §9's `approval.request`; the
/// user's answer goes back to the plugin with the request's id.
#[tokio::test]
async fn an_approval_goes_to_the_user_and_back() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client = gw.client().await;
    let channel = client.create_channel("Ask").await;
    client.send_message(&channel, "clean up", "k1").await;
    let (chat, turn, _) = plugin.turn().await;
    plugin
        .send(json!({"type": "approval", "chat_id": chat, "turn_id": turn,
                     "approval_id": "a-1", "command": "rm -rf build",
                     "description": "recursive delete",
                     "choices": ["once", "session", "always", "deny", "maybe"]}))
        .await;
    let request = client.recv_type("approval.request").await;
    assert_eq!(request["command"], "rm -rf build");
    assert_eq!(request["description"], "recursive delete");
    assert_eq!(
        request["choices"],
        json!(["once", "session", "always", "deny"])
    );
    client
        .send(json!({"type": "approval.respond", "channel_id": channel,
                     "request_id": request["request_id"], "choice": "session"}))
        .await;
    let answer = plugin.recv().await;
    assert_eq!(
        answer,
        json!({"type": "approve", "chat_id": chat, "approval_id": "a-1", "choice": "session"})
    );
    plugin
        .send(json!({"type": "done", "chat_id": chat, "turn_id": turn, "outcome": "success"}))
        .await;
    let frames = client.until_turn_ends().await;
    // Hermes said nothing after the approval: a clear failure, not a hang.
    assert!(
        failure_note(&frames).contains("without an answer"),
        "{frames:#?}"
    );
}

/// Hermes's own title of a new auto thread's session, sent after its first
/// answer, renames the thread (`channel.renamed {auto:true}`).
#[tokio::test]
async fn hermess_session_title_renames_an_auto_thread() {
    let link = free_addr();
    let gw = gateway(link).await;
    let mut plugin = Plugin::linked(link, &secret(&gw)).await;
    let mut client = gw.client().await;
    client
        .send(
            json!({"type": "message.send", "text": "read the note please",
                     "client_msg_id": "k1", "auto_thread": true}),
        )
        .await;
    let created = client.recv_type("channel.created").await;
    let channel = created["channel"]["channel_id"].clone();
    let (chat, turn, _) = plugin.turn().await;
    for event in [
        json!({"type": "send", "message_id": "h1", "text": "It says hello."}),
        json!({"type": "done", "outcome": "success"}),
    ] {
        let mut event = event;
        event["chat_id"] = json!(chat);
        event["turn_id"] = json!(turn);
        plugin.send(event).await;
    }
    client.until_turn_ends().await;
    plugin
        .send(json!({"type": "title", "chat_id": chat, "turn_id": null,
                     "title": "Reading the note"}))
        .await;
    let renamed = client.recv_type("channel.renamed").await;
    assert_eq!(renamed["channel_id"], channel);
    assert_eq!(renamed["title"], "Reading the note");
    assert_eq!(renamed["auto"], true);
}

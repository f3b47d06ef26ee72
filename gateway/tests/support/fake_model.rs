//! A scripted OpenAI-compatible model server on `127.0.0.1:0`, for tests
//! of the `openai` agent and of Hermes Agent, which it serves as its model.
//!
//! `POST /v1/chat/completions` answers with the script named by the
//! request's `model`, streamed as `text/event-stream` chunks 20 ms apart
//! like a real server. A `[fake-NAME]` tag in the last paragraph of the
//! latest user message picks script `fake-NAME` instead, so a test can steer
//! a model it does not call itself (Hermes's; Hermes joins a message whose
//! turn was cancelled to the next one with a blank line):
//!
//! | Script | Answer |
//! |---|---|
//! | `fake-chat` (and any unknown name) | reasoning, then [`CHAT_ANSWER`] in pieces, `finish_reason`, usage (18 tokens), `[DONE]` |
//! | `fake-tool` | a `read_file` call of the note (args in pieces), usage; once the request's last message is the tool's result, [`TOOL_ANSWER`] |
//! | `fake-401`, `fake-429`, `fake-500` | that HTTP status with an OpenAI-style error body |
//! | `fake-disconnect` | two content pieces, then the connection drops mid-body |
//! | `fake-stall` | "Thinking hard" in two pieces, then silence for an hour or until the client hangs up ([`FakeModel::hang_ups`]) |
//! | `fake-terminal` | a `terminal` call of the command written after the tag (`[fake-terminal] ls -l`), usage; once the request's last message is the tool's result, [`COMMAND_ANSWER`] |
//! | `fake-todo` | a `todo` call writing the JSON list after the tag (reading the list without one); after its result, [`PLAN_ANSWER`] |
//! | `fake-blind` | a model without vision: HTTP 400 for a request with an `image_url` part, else as `fake-chat` |
//! | `fake-beat` | [`BEAT`] and a `read_file` call of the note in one message; after its result, [`TOOL_ANSWER`] |
//! | `fake-media` | [`MEDIA_ANSWER`], then a `MEDIA:` line for each path written after the tag (Hermes delivers those files) |
//! | `fake-delegate` | a `delegate_task` call whose goal is to read the note (the sub-agent, untagged, runs the request's model: `fake-tool` reads it); after its result, [`DELEGATE_ANSWER`] |
//!
//! A request with `"stream": false` gets [`TITLE_ANSWER`] as one JSON
//! completion, whatever the script. `GET /v1/models` lists the scripts;
//! anything else is 404.
//!
//! Hand-written HTTP/1.1 on tokio alone (no axum), on a thread and runtime
//! of its own: the browser tests of the root crate can include this file
//! with `#[path]` without new dependencies, and call it from sync code or
//! any runtime flavor without starving it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

// Beside this file whichever crate includes it (the browser tests do, by
// `#[path]`).
#[path = "fake_model_http.rs"]
mod http;
#[path = "fake_sse.rs"]
mod sse;
use http::{read_request, respond_json};
use sse::Sse;

/// The `fake-chat` answer.
pub const CHAT_ANSWER: &str = "Hello from the fake model! Here is **a list**:\n\n- one\n- two\n";
/// The `fake-chat` reasoning.
pub const CHAT_REASONING: &str = "The user greets me; I answer briefly.";
/// The `fake-tool` answer after the tool ran.
pub const TOOL_ANSWER: &str = "I read the note with read_file: it says hello.";
/// The `fake-terminal` answer after the tool ran (or was refused).
pub const COMMAND_ANSWER: &str = "The command is done.";
/// The `fake-todo` answer after the todo list was written or read.
pub const PLAN_ANSWER: &str = "The plan is up to date.";
/// The `fake-delegate` answer after the sub-agent reported.
pub const DELEGATE_ANSWER: &str = "The sub-agent read the note.";
/// What `fake-beat` says along with its tool call.
pub const BEAT: &str = "Let me read the note first.";
/// The `fake-media` answer before its `MEDIA:` lines.
pub const MEDIA_ANSWER: &str = "Here are the files.";
/// The answer to every non-streamed request (the gateway's title requests).
pub const TITLE_ANSWER: &str = "\"Scripted title.\"";
/// Tokens reported by every script's usage chunk.
pub const USAGE_TOTAL: u64 = 18;
/// Pause between two chunks of a stream.
const CHUNK_INTERVAL: Duration = Duration::from_millis(20);

/// One request received, as the tests inspect it.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The JSON body (`Null` if none or not JSON).
    pub body: Value,
}

/// The running server; stops (dropping every open stream) when dropped.
pub struct FakeModel {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    hang_ups: Arc<AtomicUsize>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[derive(Debug, Clone)]
struct Settings {
    /// What the `fake-tool` script asks `read_file` to read.
    note_path: String,
    /// `fake-stall` streams the client closed.
    hang_ups: Arc<AtomicUsize>,
}

impl FakeModel {
    /// A server whose `fake-tool` script reads `note.txt`.
    pub fn start() -> Self {
        Self::start_with_note("note.txt")
    }

    /// A server whose `fake-tool` script reads `note_path` (Hermes resolves
    /// a relative path against its working directory).
    pub fn start_with_note(note_path: &str) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind fake model");
        let addr = listener.local_addr().expect("fake model address");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let received = Arc::<Mutex<Vec<Received>>>::default();
        let hang_ups = Arc::<AtomicUsize>::default();
        let settings = Arc::new(Settings {
            note_path: note_path.to_string(),
            hang_ups: Arc::clone(&hang_ups),
        });
        let log = Arc::clone(&received);
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("fake model runtime");
            // Ending `block_on` drops the connections' tasks with the runtime.
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).expect("tokio listener");
                tokio::select! {
                    () = accept(listener, log, settings) => {}
                    _ = stopped => {}
                }
            });
        });
        Self {
            addr,
            received,
            hang_ups,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `http://ADDR/v1`, the base URL OpenAI clients want.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.received
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many `fake-stall` streams the client closed during the silence
    /// (a cancelled turn must drop its request, not just stop showing it).
    pub fn hang_ups(&self) -> usize {
        self.hang_ups.load(Ordering::SeqCst)
    }

    /// The bodies of the chat completion requests so far.
    pub fn completions(&self) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|r| r.path.ends_with("/chat/completions"))
            .map(|r| r.body)
            .collect()
    }
}

async fn accept(listener: TcpListener, log: Arc<Mutex<Vec<Received>>>, settings: Arc<Settings>) {
    let mut connections = JoinSet::new();
    loop {
        if let Ok((stream, _)) = listener.accept().await {
            connections.spawn(serve(stream, Arc::clone(&log), Arc::clone(&settings)));
        }
        while connections.try_join_next().is_some() {}
    }
}

async fn serve(mut stream: TcpStream, log: Arc<Mutex<Vec<Received>>>, settings: Arc<Settings>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Received {
            path: request.path.clone(),
            authorization: request.header("authorization").map(str::to_string),
            body: body.clone(),
        });
    let path = request.path.split('?').next().unwrap_or_default();
    let _ = match (request.method.as_str(), path) {
        ("POST", "/v1/chat/completions") => {
            let script = tagged_script(&body)
                .or_else(|| body["model"].as_str().map(str::to_string))
                .unwrap_or_else(|| "fake-chat".to_string());
            complete(&mut stream, &script, &body, &settings).await
        }
        ("GET", "/v1/models") => {
            let ids = [
                "fake-chat",
                "fake-tool",
                "fake-terminal",
                "fake-todo",
                "fake-delegate",
                "fake-401",
                "fake-429",
                "fake-500",
                "fake-disconnect",
                "fake-stall",
                "fake-blind",
            ];
            let data: Vec<Value> = ids
                .iter()
                .map(|id| json!({"id": id, "object": "model"}))
                .collect();
            respond_json(&mut stream, 200, &json!({"object": "list", "data": data})).await
        }
        _ => {
            respond_json(
                &mut stream,
                404,
                &json!({"error": {"message": "no such route"}}),
            )
            .await
        }
    };
}

async fn complete(
    stream: &mut TcpStream,
    script: &str,
    body: &Value,
    settings: &Settings,
) -> std::io::Result<()> {
    if let Some(status) = script
        .strip_prefix("fake-")
        .and_then(|s| s.parse::<u16>().ok())
    {
        let error = json!({"error": {"message": format!("scripted error {status}"), "type": "fake_error", "code": status}});
        return respond_json(stream, status, &error).await;
    }
    if script == "fake-blind" && has_image_part(body) {
        let error = json!({"error": {"message": "image input is not supported by this model",
            "type": "invalid_request_error"}});
        return respond_json(stream, 400, &error).await;
    }
    if body["stream"] != json!(true) {
        let completion = json!({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": script,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": TITLE_ANSWER}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": USAGE_TOTAL},
        });
        return respond_json(stream, 200, &completion).await;
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).await?;
    let mut sse = Sse {
        stream,
        model: script.to_string(),
    };
    match script {
        "fake-tool" if last_role(body) == Some("tool") => sse.answer(None, TOOL_ANSWER).await?,
        "fake-tool" => {
            let args = json!({"path": settings.note_path});
            sse.tool_call(&call_id(body), "read_file", &args).await?
        }
        "fake-beat" if last_role(body) == Some("tool") => sse.answer(None, TOOL_ANSWER).await?,
        "fake-beat" => {
            let args = json!({"path": settings.note_path});
            sse.say_then_call(BEAT, &call_id(body), "read_file", &args)
                .await?
        }
        "fake-terminal" if last_role(body) == Some("tool") => {
            sse.answer(None, COMMAND_ANSWER).await?
        }
        "fake-terminal" => {
            let args = json!({"command": tagged_rest(body).unwrap_or_default()});
            sse.tool_call(&call_id(body), "terminal", &args).await?
        }
        "fake-todo" if last_role(body) == Some("tool") => sse.answer(None, PLAN_ANSWER).await?,
        "fake-todo" => {
            let todos = serde_json::from_str::<Value>(&tagged_rest(body).unwrap_or_default());
            let args = todos.map_or(json!({}), |todos| json!({"todos": todos}));
            sse.tool_call(&call_id(body), "todo", &args).await?
        }
        "fake-delegate" if last_role(body) == Some("tool") => {
            sse.answer(None, DELEGATE_ANSWER).await?
        }
        "fake-delegate" => {
            let args = json!({"goal": "Read the note and say what it says."});
            sse.tool_call(&call_id(body), "delegate_task", &args)
                .await?
        }
        "fake-media" => {
            let rest = tagged_rest(body).unwrap_or_default();
            let tags: Vec<String> = rest
                .split_whitespace()
                .map(|p| format!("MEDIA:{p}"))
                .collect();
            let text = format!("{MEDIA_ANSWER}\n\n{}", tags.join("\n"));
            sse.answer(None, &text).await?
        }
        "fake-disconnect" => {
            sse.delta(json!({"role": "assistant", "content": "Partial "}))
                .await?;
            sse.delta(json!({"content": "answer"})).await?;
            // No terminating chunk: the client sees the body break off.
            return Ok(());
        }
        "fake-stall" => {
            sse.delta(json!({"role": "assistant", "content": "Thinking"}))
                .await?;
            sse.delta(json!({"content": " hard"})).await?;
            // The client sends nothing more: a read ends only when it hangs up.
            let mut byte = [0u8; 1];
            let silence = Duration::from_secs(3600);
            if let Ok(Ok(0) | Err(_)) =
                tokio::time::timeout(silence, sse.stream.read(&mut byte)).await
            {
                settings.hang_ups.fetch_add(1, Ordering::SeqCst);
                return Ok(());
            }
        }
        _ => sse.answer(Some(CHAT_REASONING), CHAT_ANSWER).await?,
    }
    sse.data("[DONE]").await?;
    sse.stream.write_all(b"0\r\n\r\n").await?;
    sse.stream.shutdown().await
}

/// Whether any message has an `image_url` content part.
fn has_image_part(body: &Value) -> bool {
    body["messages"].as_array().is_some_and(|messages| {
        messages.iter().any(|m| {
            m["content"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p["type"] == "image_url"))
        })
    })
}

/// The last paragraph of the latest user message, split around its
/// `[fake-NAME]` tag: `fake-NAME` and the text after the tag.
fn tag(body: &Value) -> Option<(&str, &str)> {
    let messages = body["messages"].as_array()?;
    let user = messages.iter().rev().find(|m| m["role"] == "user")?;
    let text = user["content"].as_str()?.rsplit("\n\n").next()?;
    let start = text.find("[fake-")?;
    let end = start + text[start..].find(']')?;
    Some((&text[start + 1..end], text[end + 1..].trim()))
}

/// `fake-NAME` when the last paragraph of the latest user message holds
/// `[fake-NAME]`.
fn tagged_script(body: &Value) -> Option<String> {
    tag(body).map(|(name, _)| name.to_string())
}

/// What follows the `[fake-NAME]` tag (the `fake-terminal` command).
fn tagged_rest(body: &Value) -> Option<String> {
    tag(body).map(|(_, rest)| rest.to_string())
}

/// A tool call id unique to the request: Hermes drops a call whose id it
/// has already answered.
fn call_id(body: &Value) -> String {
    format!(
        "call_fake_{}",
        body["messages"].as_array().map_or(0, Vec::len)
    )
}

fn last_role(body: &Value) -> Option<&str> {
    body["messages"].as_array()?.last()?["role"].as_str()
}

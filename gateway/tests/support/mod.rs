//! What the gateway's tests share: a real gateway on a free port and a
//! real WebSocket client (here), the gateway binary as a child process
//! ([`process`]), a scripted model server ([`fake_model`]) and a real
//! Hermes Agent ([`hermes`]).

pub mod fake_model;
pub mod files;
pub mod hermes;
pub mod process;

use std::path::{Path, PathBuf};
use std::time::Duration;

use aria_gateway::{serve, Config, RunningServer};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{connect_async, MaybeTlsStream, WebSocketStream};

/// The gateway crate's dir (its fixtures; the repository above it): the
/// one cargo names to the running test, else the one it was built in. The
/// checkouts of a machine share one target dir (scripts/env), where cargo
/// may run a test binary another checkout built (a CI clone since
/// deleted) as fresh.
pub fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// Longest wait for one expected frame.
const FRAME_TIMEOUT: Duration = Duration::from_secs(10);

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A gateway with its own temporary data dir.
pub struct Gateway {
    pub server: RunningServer,
    pub dir: TempDir,
}

/// Config for tests: a free port, the given data dir, a fast demo agent.
pub fn config(data_dir: &Path, step_ms: u64) -> Config {
    Config {
        addr: "127.0.0.1:0".parse().expect("addr"),
        data_dir: data_dir.to_path_buf(),
        static_dir: data_dir.join("no-client-here"),
        demo_delay: Duration::from_millis(step_ms),
        ..Config::new()
    }
}

impl Gateway {
    /// A gateway whose demo agent steps every `step_ms` milliseconds.
    pub async fn start(step_ms: u64) -> Self {
        Self::start_with(step_ms, |_| {}).await
    }

    pub async fn start_with(step_ms: u64, adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = config(dir.path(), step_ms);
        adjust(&mut config);
        let server = serve(config).await.expect("gateway starts");
        Self { server, dir }
    }

    pub fn ws_url(&self) -> String {
        self.server.ws_url()
    }

    /// A device that said hello and got `ready`.
    pub async fn client(&self) -> Client {
        Client::connect(&self.ws_url(), None).await
    }
}

pub struct Client {
    pub ws: Socket,
    pub ready: Value,
}

pub fn hello(token: Option<&str>) -> Value {
    let mut hello = json!({
        "type": "hello",
        "device_id": "test-device",
        "client": "gateway-tests/0",
        "protocol": 1,
    });
    if let Some(token) = token {
        hello["token"] = json!(token);
    }
    hello
}

/// A connected socket that has not said hello yet.
pub async fn open(url: &str) -> Socket {
    let (ws, _) = connect_async(url.into_client_request().expect("request"))
        .await
        .expect("connect");
    ws
}

impl Client {
    pub async fn connect(url: &str, token: Option<&str>) -> Self {
        let mut client = Self {
            ws: open(url).await,
            ready: Value::Null,
        };
        client.send(hello(token)).await;
        let ready = client.recv().await;
        assert_eq!(ready["type"], "ready", "{ready}");
        client.ready = ready;
        client
    }

    pub async fn send(&mut self, frame: Value) {
        self.ws
            .send(Message::text(frame.to_string()))
            .await
            .expect("send");
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::text(text)).await.expect("send");
    }

    /// The next message of any kind, or `None` on timeout.
    pub async fn next_message(&mut self, wait: Duration) -> Option<Message> {
        match tokio::time::timeout(wait, self.ws.next()).await {
            Ok(Some(Ok(message))) => Some(message),
            Ok(Some(Err(e))) => panic!("socket error: {e}"),
            Ok(None) | Err(_) => None,
        }
    }

    /// The next text frame as JSON; panics after [`FRAME_TIMEOUT`].
    pub async fn recv(&mut self) -> Value {
        loop {
            match self.next_message(FRAME_TIMEOUT).await {
                Some(Message::Text(text)) => {
                    return serde_json::from_str(&text).expect("json frame")
                }
                Some(Message::Close(frame)) => panic!("socket closed: {frame:?}"),
                Some(_) => continue,
                None => panic!("no frame within {FRAME_TIMEOUT:?}"),
            }
        }
    }

    /// Frames up to and including the first one matching `done`.
    pub async fn until(&mut self, done: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut frames = Vec::new();
        loop {
            let frame = self.recv().await;
            let last = done(&frame);
            frames.push(frame);
            if last {
                return frames;
            }
        }
    }

    /// Skips frames until one of type `ty` arrives.
    pub async fn recv_type(&mut self, ty: &str) -> Value {
        self.until(|f| f["type"] == ty).await.pop().expect("frame")
    }

    /// Frames up to and including the `typing {on:false}` ending a turn.
    pub async fn until_turn_ends(&mut self) -> Vec<Value> {
        self.until(|f| f["type"] == "typing" && f["on"] == false)
            .await
    }

    /// Asserts no text frame arrives within `wait`.
    pub async fn assert_quiet(&mut self, wait: Duration) {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_message(left).await {
                Some(Message::Text(text)) => panic!("unexpected frame: {text}"),
                Some(_) => continue,
                None => return,
            }
        }
    }

    /// The close frame that ends the socket, skipping text frames.
    pub async fn recv_close(&mut self) -> Option<CloseFrame> {
        loop {
            match self.next_message(FRAME_TIMEOUT).await {
                Some(Message::Close(frame)) => return frame,
                Some(_) => continue,
                None => panic!("socket not closed"),
            }
        }
    }

    /// Sends `message.send` and returns the echo.
    pub async fn send_message(
        &mut self,
        channel_id: &str,
        text: &str,
        client_msg_id: &str,
    ) -> Value {
        self.send(json!({
            "type": "message.send", "channel_id": channel_id, "text": text, "client_msg_id": client_msg_id,
        }))
        .await;
        self.until(|f| f["type"] == "message" && f["client_msg_id"] == client_msg_id)
            .await
            .pop()
            .expect("echo")
    }

    /// Sends `message.send` without a channel (to the default channel,
    /// created on first use) and returns the echo.
    pub async fn send_default(&mut self, text: &str, client_msg_id: &str) -> Value {
        self.send(json!({"type": "message.send", "text": text, "client_msg_id": client_msg_id}))
            .await;
        self.until(|f| f["type"] == "message" && f["client_msg_id"] == client_msg_id)
            .await
            .pop()
            .expect("echo")
    }

    /// Creates a channel and returns its id.
    pub async fn create_channel(&mut self, title: &str) -> String {
        self.send(json!({"type": "channel.create", "title": title}))
            .await;
        let created = self.recv_type("channel.created").await;
        created["channel"]["channel_id"]
            .as_str()
            .expect("channel_id")
            .to_string()
    }

    /// One `history.get` answer (or error).
    pub async fn history(&mut self, request: Value) -> Value {
        let mut request = request;
        request["type"] = json!("history.get");
        self.send(request).await;
        self.until(|f| f["type"] == "history" || f["type"] == "error")
            .await
            .pop()
            .expect("reply")
    }
}

/// The seqs of a `history` reply's items.
pub fn seqs(history: &Value) -> Vec<u64> {
    history["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["seq"].as_u64().expect("seq"))
        .collect()
}

/// Frame types in order.
pub fn types(frames: &[Value]) -> Vec<&str> {
    frames
        .iter()
        .map(|f| f["type"].as_str().unwrap_or("?"))
        .collect()
}

/// An HTTP response: status, headers (names lower-cased) and body.
pub struct Reply {
    pub status: u16,
    pub headers: std::collections::HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// A plain HTTP/1.1 GET with extra header lines (each ending in `\r\n`).
pub async fn http_request(addr: std::net::SocketAddr, path: &str, headers: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

/// A plain HTTP/1.1 GET: status code and body.
pub async fn http_get(addr: std::net::SocketAddr, path: &str, headers: &str) -> (u16, String) {
    let reply = http_request(addr, path, headers).await;
    (
        reply.status,
        String::from_utf8_lossy(&reply.body).into_owned(),
    )
}

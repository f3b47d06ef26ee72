//! A scripted stand-in for the gateway, for what the demo agent cannot
//! produce: long reasoning, a malformed inline reasoning prefix, tool calls
//! whose preview differs from their command. Speaks just enough of protocol
//! v1: `hello` → `ready`, `channel.list`, `history.get` (from a fixed log),
//! `ping`, and `message.send` → echo + the scripted turn (after a slowed-down
//! `channel.created` when the send auto-threads).
//!
//! The page is served by a [`StaticServer`] and pointed here with
//! `?gateway=ws://…`.

#![allow(dead_code)] // shared by the transparency and thread suites

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// How long each step of an auto-thread takes here (send → `channel.created`
/// → echo), so a test sees the pending bubble in each place.
pub const AUTO_STEP_MS: u64 = 400;

/// One step of a scripted turn.
pub enum Step {
    /// A frame; `channel_id`, `ts` and (for logged frames) `seq` are filled in.
    Frame(Value),
    Pause(u64),
}

type TurnScript = dyn Fn(&str) -> Vec<Step> + Send + Sync;

pub struct Script {
    /// `Channel` objects for `ready` and `channel.list`.
    pub channels: Vec<Value>,
    /// Logged items per channel, with their `seq`s (1, 2, …).
    pub history: HashMap<String, Vec<Value>>,
    /// The turn played after the echo of a `message.send`.
    pub turn: Box<TurnScript>,
}

pub struct FakeGateway {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGateway {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeGateway {
    pub async fn start(script: Script) -> FakeGateway {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Shared {
            seqs: Mutex::new(
                script
                    .history
                    .iter()
                    .map(|(k, v)| (k.clone(), v.len() as u64))
                    .collect(),
            ),
            channels: Mutex::new(script.channels.clone()),
            script,
        });
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let state = state.clone();
                tokio::spawn(async move {
                    if let Ok(ws) = tokio_tungstenite::accept_async(tcp).await {
                        serve(ws, state).await;
                    }
                });
            }
        });
        FakeGateway { addr, task }
    }

    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }
}

struct Shared {
    script: Script,
    seqs: Mutex<HashMap<String, u64>>,
    /// The script's channels plus those minted by auto-threading.
    channels: Mutex<Vec<Value>>,
}

impl Shared {
    fn next_seq(&self, channel: &str) -> u64 {
        let mut seqs = self.seqs.lock().unwrap();
        let s = seqs.entry(channel.to_string()).or_insert(0);
        *s += 1;
        *s
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

async fn serve(ws: tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, state: Arc<Shared>) {
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        while let Some(frame) = rx.recv().await {
            if sink.send(Message::text(frame.to_string())).await.is_err() {
                break;
            }
        }
    });
    while let Some(Ok(msg)) = stream.next().await {
        let Message::Text(text) = msg else { continue };
        let Ok(frame) = serde_json::from_str::<Value>(text.as_str()) else {
            continue;
        };
        let channels = state.channels.lock().unwrap().clone();
        match frame["type"].as_str().unwrap_or_default() {
            "hello" => {
                let _ = tx.send(json!({
                    "type": "ready", "protocol": 1, "server": "fake-gateway",
                    "device_id": frame["device_id"], "channels": channels,
                }));
            }
            "channel.list" => {
                let _ = tx.send(json!({"type": "channel.list", "channels": channels}));
            }
            "ping" => {
                let _ = tx.send(json!({"type": "pong", "t": frame["t"]}));
            }
            "history.get" => {
                let channel = frame["channel_id"].as_str().unwrap_or_default();
                let all = state
                    .script
                    .history
                    .get(channel)
                    .cloned()
                    .unwrap_or_default();
                let before = frame["before"].as_u64();
                let after = frame["after"].as_u64();
                let items: Vec<Value> = all
                    .into_iter()
                    .filter(|i| {
                        let seq = i["seq"].as_u64().unwrap_or(0);
                        before.is_none_or(|b| seq < b) && after.is_none_or(|a| seq > a)
                    })
                    .collect();
                let _ = tx.send(json!({
                    "type": "history", "channel_id": channel, "items": items, "has_more": false,
                }));
            }
            "message.send" => {
                let text = frame["text"]
                    .as_str()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let cmid = frame["client_msg_id"].clone();
                // Auto-threading, slowed down so each step can be seen:
                // the new channel after AUTO_STEP_MS, the echo after another.
                let minted = match frame["channel_id"].as_str() {
                    Some(_) => None,
                    None => {
                        let mut list = state.channels.lock().unwrap();
                        let c = channel(&format!("c_auto{}", list.len() + 1), &text, 0);
                        let mut c = c;
                        c["auto"] = json!(true);
                        list.push(c.clone());
                        Some(c)
                    }
                };
                let channel = match &minted {
                    Some(c) => c["channel_id"].as_str().unwrap_or_default().to_string(),
                    None => frame["channel_id"].as_str().unwrap_or_default().to_string(),
                };
                let steps = (state.script.turn)(&text);
                let tx = tx.clone();
                let state = state.clone();
                tokio::spawn(async move {
                    if let Some(c) = minted {
                        tokio::time::sleep(Duration::from_millis(AUTO_STEP_MS)).await;
                        let _ = tx.send(json!({
                            "type": "channel.created", "channel": c, "auto": true,
                            "client_msg_id": cmid,
                        }));
                        tokio::time::sleep(Duration::from_millis(AUTO_STEP_MS)).await;
                    }
                    let seq = state.next_seq(&channel);
                    let _ = tx.send(json!({
                        "type": "message", "channel_id": channel, "message_id": format!("u{seq}"),
                        "seq": seq, "role": "user", "text": text, "ts": now_ms(),
                        "client_msg_id": cmid,
                    }));
                    for step in steps {
                        match step {
                            Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                            Step::Frame(mut f) => {
                                f["channel_id"] = json!(channel);
                                f["ts"] = json!(now_ms());
                                let logged = matches!(
                                    f["type"].as_str(),
                                    Some("message" | "message.stop" | "commentary" | "tool.end")
                                );
                                if logged {
                                    f["seq"] = json!(state.next_seq(&channel));
                                }
                                if tx.send(f).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
            _ => {}
        }
    }
    writer.abort();
}

/// A `Channel` object.
pub fn channel(id: &str, title: &str, last_seq: u64) -> Value {
    let now = now_ms();
    json!({
        "channel_id": id, "title": title, "created_at": now - 60_000,
        "updated_at": now, "auto": false, "last_seq": last_seq,
    })
}

/// A logged message item.
pub fn message_item(seq: u64, role: &str, text: &str, reasoning: Option<&str>) -> Value {
    let mut item = json!({
        "type": "message", "seq": seq, "message_id": format!("m{seq}"), "role": role,
        "text": text, "ts": now_ms() - 50_000 + seq as i64,
    });
    if role == "assistant" {
        item["model"] = json!("fake-model");
        item["tokens"] = json!(321);
        item["turn_id"] = json!(format!("turn{seq}"));
    }
    if let Some(r) = reasoning {
        item["reasoning"] = json!(r);
    }
    item
}

/// The built client served statically, pointed at a [`FakeGateway`].
pub struct FakeApp {
    pub browser: crate::support::Browser,
    _fake: FakeGateway,
    _server: crate::support::StaticServer,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl FakeApp {
    /// Starts the fake gateway and a browser on the app with `hash` (e.g.
    /// `#/t/c_fake`).
    pub async fn start(script: Script, hash: &str) -> FakeApp {
        let turn = crate::support::exclusive().await;
        let fake = FakeGateway::start(script).await;
        let server = crate::support::StaticServer::serve(crate::support::paths::dist_dir());
        let browser = crate::support::Browser::start().await;
        browser
            .goto(&format!("{}?gateway={}{hash}", server.url(), fake.ws_url()))
            .await;
        FakeApp {
            browser,
            _fake: fake,
            _server: server,
            _turn: turn,
        }
    }

    pub async fn close(self) {
        self.browser.close().await;
    }
}

//! A scripted stand-in for the gateway: a WebSocket server on a loopback
//! port that speaks just enough of the protocol for the app to connect
//! (`hello` → `ready`, `ping` → `pong`, echoes of `message.send`, paged
//! `history.get` from what it logged), and lets a test push any raw text
//! frame at the app: hostile content, malformed JSON, 1 MiB frames, bursts.
//! A test can also script the turn that follows each echo
//! ([`FakeGateway::set_turn`]), for what the demo agent cannot produce
//! (long reasoning, a malformed inline prefix, tool previews that differ
//! from their commands), and slow auto-threading down
//! ([`FakeOpts::auto_step_ms`]) to see each of its steps.
//!
//! Approvals (§9) work like the real gateway's: [`FakeGateway::request_approval`]
//! broadcasts a request and keeps it pending (re-sent after every `ready`,
//! after `typing {on:true}`), the first valid `approval.respond` resolves
//! it for every device (logged, with the answering `device_id`), a later
//! one gets the same resolution back, an unknown id `not_found`, an
//! unoffered choice `bad_request`; `turn.cancel` resolves the thread's
//! pending requests as `cancelled` and ends the turn.
//!
//! The app is served from elsewhere (a `StaticServer` over `dist/`) and
//! pointed here with `?gateway=<fake.ws_url()>`.
//!
//! ```ignore
//! let fake = FakeGateway::start(FakeOpts::default()).await;
//! fake.add_channel(json!({"channel_id": "c1", "title": "T", "last_seq": 0}));
//! b.goto(&format!("{}?gateway={}#/t/c1", server.url(), fake.ws_url())).await;
//! fake.wait_ready(1, secs(20)).await;
//! fake.push(json!({"type": "typing", "channel_id": "c1", "on": true}));
//! fake.push_text("{not json".into());
//! fake.set_turn(|text| vec![Step::Pause(50), Step::Frame(json!({"type": "typing", "on": true}))]);
//! ```

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;

/// How the fake answers; can be changed while it runs with [`FakeGateway::set`].
#[derive(Clone, Debug)]
pub struct FakeOpts {
    /// Required `hello.token`; a wrong or missing one gets
    /// `error {code:"unauthorized"}` and close 4401.
    pub token: Option<String>,
    /// Answer every `hello` with `unsupported_protocol` and close 4400.
    pub unsupported: bool,
    /// Close each new socket right after the WebSocket handshake (1011),
    /// before `ready`: a gateway that is up but failing.
    pub refuse: bool,
    /// Answer nothing at all (no `pong`, no echo), but keep sockets open:
    /// a gateway that froze, or a network path that went dead silently.
    pub mute: bool,
    /// Echo `message.send` as the real gateway does (`message` role user).
    pub echo: bool,
    /// Reject this many next `message.send`s with `error {code:"internal",
    /// client_msg_id}` instead of echoing them.
    pub reject_sends: u32,
    /// When a send auto-threads: the wait before its `channel.created`, and
    /// again before its echo (0: both at once), so that a test sees the
    /// pending bubble in each place.
    pub auto_step_ms: u64,
    /// Answer `history.get {around}` (§6); off: ignore `around` and send
    /// the newest page without the echo, like a gateway from before it.
    pub around: bool,
    /// Answer `search` (§10) from the logs; off: `error {code:"unsupported"}`.
    pub search: bool,
}

impl Default for FakeOpts {
    fn default() -> Self {
        FakeOpts {
            token: None,
            unsupported: false,
            refuse: false,
            mute: false,
            echo: true,
            reject_sends: 0,
            auto_step_ms: 0,
            around: true,
            search: true,
        }
    }
}

/// One WebSocket connection the fake accepted.
#[derive(Clone, Debug)]
pub struct ConnInfo {
    pub at: Instant,
    /// The `hello` it sent, if any.
    pub hello: Option<Value>,
    /// Whether it got `ready`.
    pub ready: bool,
}

/// One step of a scripted turn.
pub enum Step {
    /// A frame; `channel_id`, `ts` and (for logged frames) `seq` are filled in.
    Frame(Value),
    Pause(u64),
}

/// The turn played after the echo of a `message.send`, given its text.
type TurnScript = dyn Fn(&str) -> Vec<Step> + Send + Sync;

enum Out {
    Text(String),
    Binary(Vec<u8>),
    /// Drop the TCP connection without a close frame (a network cut).
    Cut,
    /// A clean close with this code.
    Close(u16, String),
}

#[derive(Default)]
struct State {
    opts: FakeOpts,
    conns: Vec<ConnInfo>,
    /// Senders of the sockets that got `ready`, by connection id.
    live: HashMap<usize, mpsc::UnboundedSender<Out>>,
    /// Every frame the app sent, with the connection it came on.
    received: Vec<(usize, Value)>,
    /// Channels announced in `ready` and `channel.list`, in order.
    channels: Vec<Value>,
    /// Logged items per channel (history item form, with `seq`).
    logs: HashMap<String, Vec<Value>>,
    /// The highest `seq` seen per channel (logged or pushed by the test),
    /// so echoes continue after it.
    max_seq: HashMap<String, u64>,
    /// Accepted `client_msg_id`s (idempotent echo, like the real gateway).
    accepted: HashMap<String, Value>,
    next_auto: u32,
    turn: Option<Arc<TurnScript>>,
    /// Approval requests in the order they were made: the request frame
    /// and, once resolved, the `approval.resolved` frame.
    approvals: Vec<(Value, Option<Value>)>,
}

/// The fake gateway; stops accepting when dropped.
pub struct FakeGateway {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept: tokio::task::JoinHandle<()>,
}

impl FakeGateway {
    pub async fn start(opts: FakeOpts) -> FakeGateway {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            opts,
            ..State::default()
        }));
        let shared = state.clone();
        let accept = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let state = shared.clone();
                tokio::spawn(async move {
                    // Frames up to 64 MiB: the tests send 1 MiB ones on purpose.
                    let config = WebSocketConfig::default()
                        .max_message_size(Some(64 << 20))
                        .max_frame_size(Some(64 << 20));
                    let Ok(ws) =
                        tokio_tungstenite::accept_async_with_config(tcp, Some(config)).await
                    else {
                        return;
                    };
                    serve(ws, state).await;
                });
            }
        });
        FakeGateway {
            addr,
            state,
            accept,
        }
    }

    /// `ws://ADDR/ws`, for the app's `?gateway=`.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// Changes the behaviour for what comes next.
    pub fn set(&self, f: impl FnOnce(&mut FakeOpts)) {
        f(&mut self.state.lock().unwrap().opts);
    }

    /// A fake with one thread, `id`, holding the logged `items`.
    pub async fn with_thread(id: &str, title: &str, items: Vec<Value>) -> FakeGateway {
        let fake = FakeGateway::start(FakeOpts::default()).await;
        fake.add_channel(channel(id, title, 0));
        for item in items {
            fake.log_item(id, item);
        }
        fake
    }

    /// Plays `turn(text)` after the echo of each `message.send` of `text`
    /// (trimmed), in the thread it was sent to.
    pub fn set_turn(&self, turn: impl Fn(&str) -> Vec<Step> + Send + Sync + 'static) {
        self.state.lock().unwrap().turn = Some(Arc::new(turn));
    }

    /// Adds a channel to the list `ready` and `channel.list` announce.
    pub fn add_channel(&self, channel: Value) {
        let mut st = self.state.lock().unwrap();
        let id = channel["channel_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        st.logs.entry(id).or_default();
        st.channels.push(channel);
    }

    /// Adds an item to a channel's log (served by `history.get`); the item
    /// must carry its `seq`. Not sent live: use [`push`](Self::push) too.
    pub fn log_item(&self, channel_id: &str, item: Value) {
        let mut st = self.state.lock().unwrap();
        let log = st.logs.entry(channel_id.to_string()).or_default();
        log.push(item);
        log.sort_by_key(|i| i["seq"].as_u64().unwrap_or(0));
        let last = log.last().and_then(|i| i["seq"].as_u64()).unwrap_or(0);
        let max = st.max_seq.entry(channel_id.to_string()).or_default();
        *max = (*max).max(last);
        if let Some(c) = st
            .channels
            .iter_mut()
            .find(|c| c["channel_id"] == channel_id)
        {
            c["last_seq"] = json!(last);
        }
    }

    /// Broadcasts `approval.request` `frame` (with `channel_id`,
    /// `request_id`, `choices`, …) and keeps it pending.
    pub fn request_approval(&self, frame: Value) {
        let mut st = self.state.lock().unwrap();
        let mut frame = frame;
        frame["type"] = json!("approval.request");
        st.approvals.push((frame.clone(), None));
        broadcast(&st, frame);
    }

    /// Resolves a pending request as the gateway itself would (`timeout`,
    /// `cancelled`): logged and broadcast, without a `device_id`.
    pub fn resolve_approval(&self, request_id: &str, choice: &str) {
        let mut st = self.state.lock().unwrap();
        resolve(&mut st, request_id, choice, None);
    }

    /// The `device_id` each connection said in its `hello`, by connection id.
    pub fn device_of(&self, conn: usize) -> Option<String> {
        let st = self.state.lock().unwrap();
        st.conns.get(conn)?.hello.as_ref()?["device_id"]
            .as_str()
            .map(str::to_string)
    }

    /// Every frame of type `ty` the app sent, with its connection id.
    pub fn received_on(&self, ty: &str) -> Vec<(usize, Value)> {
        self.state
            .lock()
            .unwrap()
            .received
            .iter()
            .filter(|(_, f)| f["type"] == ty)
            .cloned()
            .collect()
    }

    /// Every connection accepted so far, in order.
    pub fn connections(&self) -> Vec<ConnInfo> {
        self.state.lock().unwrap().conns.clone()
    }

    /// How many sockets got `ready` so far.
    pub fn ready_count(&self) -> usize {
        self.connections().iter().filter(|c| c.ready).count()
    }

    /// Waits until `n` sockets in total got `ready`.
    pub async fn wait_ready(&self, n: usize, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.ready_count() < n {
            if Instant::now() > deadline {
                panic!(
                    "the app did not complete {n} handshake(s) with the fake gateway within \
                     {timeout:?}; connections: {:?}",
                    self.connections()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Every frame the app sent so far.
    pub fn received(&self) -> Vec<Value> {
        self.state
            .lock()
            .unwrap()
            .received
            .iter()
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// Frames of type `ty` the app sent so far.
    pub fn received_of(&self, ty: &str) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|f| f["type"] == ty)
            .collect()
    }

    /// Waits for a frame from the app matching `pred`.
    pub async fn wait_received(
        &self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(f) = self.received().into_iter().find(|f| pred(f)) {
                return f;
            }
            if Instant::now() > deadline {
                panic!(
                    "the fake gateway did not receive {what} within {timeout:?}; it got: {:?}",
                    self.received()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends a frame to every connected (past `ready`) socket.
    pub fn push(&self, frame: Value) {
        self.push_text(frame.to_string());
    }

    /// Sends raw text (any bytes, valid JSON or not) as one text frame.
    pub fn push_text(&self, text: String) {
        self.push_all(vec![text]);
    }

    /// Sends many text frames back to back, in order.
    pub fn push_all(&self, texts: Vec<String>) {
        let mut st = self.state.lock().unwrap();
        for t in &texts {
            let Ok(v) = serde_json::from_str::<Value>(t) else {
                continue;
            };
            if let (Some(c), Some(seq)) = (v["channel_id"].as_str(), v["seq"].as_u64()) {
                let max = st.max_seq.entry(c.to_string()).or_default();
                *max = (*max).max(seq);
            }
        }
        assert!(
            !st.live.is_empty(),
            "push to the fake gateway, but no socket is connected"
        );
        for tx in st.live.values() {
            for t in &texts {
                let _ = tx.send(Out::Text(t.clone()));
            }
        }
    }

    /// Sends a binary frame (which the protocol says clients ignore).
    pub fn push_binary(&self, bytes: Vec<u8>) {
        let st = self.state.lock().unwrap();
        for tx in st.live.values() {
            let _ = tx.send(Out::Binary(bytes.clone()));
        }
    }

    /// Cuts every socket without a close frame, as a network drop would.
    pub fn cut_all(&self) {
        let mut st = self.state.lock().unwrap();
        for (_, tx) in st.live.drain() {
            let _ = tx.send(Out::Cut);
        }
    }
}

impl Drop for FakeGateway {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut_all();
    }
}

type Ws = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// Runs one connection: handshake, then frames both ways until either ends.
async fn serve(ws: Ws, state: Arc<Mutex<State>>) {
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Out>();
    let id = {
        let mut st = state.lock().unwrap();
        let id = st.conns.len();
        st.conns.push(ConnInfo {
            at: Instant::now(),
            hello: None,
            ready: false,
        });
        id
    };
    if state.lock().unwrap().opts.refuse {
        let _ = sink
            .send(Message::Close(Some(CloseFrame {
                code: CloseCode::Error,
                reason: "refused by the test".into(),
            })))
            .await;
        return;
    }
    let writer = tokio::spawn(async move {
        while let Some(out) = rx.recv().await {
            let result = match out {
                Out::Text(t) => sink.send(Message::text(t)).await,
                Out::Binary(b) => sink.send(Message::binary(b)).await,
                Out::Cut => return,
                Out::Close(code, reason) => {
                    let _ = sink
                        .send(Message::Close(Some(CloseFrame {
                            code: CloseCode::from(code),
                            reason: reason.into(),
                        })))
                        .await;
                    return;
                }
            };
            if result.is_err() {
                return;
            }
        }
    });
    let mut writer = writer;
    loop {
        // The writer ends on a cut or close: dropping both halves then
        // closes the TCP connection.
        let msg = tokio::select! {
            msg = stream.next() => msg,
            _ = &mut writer => break,
        };
        let Some(Ok(msg)) = msg else { break };
        let Message::Text(text) = msg else { continue };
        let Ok(frame) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let mut st = state.lock().unwrap();
        st.received.push((id, frame.clone()));
        if !st.opts.mute {
            answer(&state, &mut st, id, &tx, frame);
        }
    }
    writer.abort();
    state.lock().unwrap().live.remove(&id);
}

/// Answers one client frame; broadcasts go to every live socket. What
/// comes later (a slowed-down auto-thread, a scripted turn) is played by a
/// task of its own on `state`.
fn answer(
    state: &Arc<Mutex<State>>,
    st: &mut State,
    id: usize,
    tx: &mpsc::UnboundedSender<Out>,
    frame: Value,
) {
    let reply = |v: Value| {
        let _ = tx.send(Out::Text(v.to_string()));
    };
    match frame["type"].as_str().unwrap_or("") {
        "hello" => {
            st.conns[id].hello = Some(frame.clone());
            if st.opts.unsupported {
                reply(json!({"type": "error", "code": "unsupported_protocol",
                    "message": "This test gateway speaks protocol 99."}));
                let _ = tx.send(Out::Close(4400, "unsupported protocol".into()));
                return;
            }
            if let Some(token) = &st.opts.token {
                if frame["token"].as_str() != Some(token.as_str()) {
                    reply(json!({"type": "error", "code": "unauthorized",
                        "message": "Wrong or missing token."}));
                    let _ = tx.send(Out::Close(4401, "unauthorized".into()));
                    return;
                }
            }
            st.conns[id].ready = true;
            st.live.insert(id, tx.clone());
            reply(
                json!({"type": "ready", "protocol": 1, "server": "fake-gateway/0",
                "device_id": frame["device_id"], "channels": st.channels}),
            );
            // §9: the turns that wait, then their pending requests.
            for (request, _) in st.approvals.iter().filter(|(_, r)| r.is_none()) {
                reply(json!({"type": "typing", "channel_id": request["channel_id"], "on": true}));
                reply(request.clone());
            }
        }
        "approval.respond" => {
            let request_id = frame["request_id"].as_str().unwrap_or_default();
            let found = st
                .approvals
                .iter()
                .find(|(r, _)| {
                    r["request_id"] == request_id && r["channel_id"] == frame["channel_id"]
                })
                .cloned();
            match found {
                None => reply(json!({"type": "error", "code": "not_found",
                    "request_id": request_id, "message": "No such approval request."})),
                Some((_, Some(done))) => reply(done),
                Some((request, None)) => {
                    let offered = request["choices"]
                        .as_array()
                        .is_some_and(|c| c.contains(&frame["choice"]));
                    if !offered {
                        reply(json!({"type": "error", "code": "bad_request",
                            "request_id": request_id, "message": "That choice was not offered."}));
                        return;
                    }
                    let device = st.conns[id]
                        .hello
                        .as_ref()
                        .and_then(|h| h["device_id"].as_str())
                        .map(str::to_string);
                    let choice = frame["choice"].as_str().unwrap_or_default().to_string();
                    resolve(st, request_id, &choice, device);
                }
            }
        }
        "turn.cancel" => {
            let channel = frame["channel_id"].clone();
            let pending: Vec<String> = st
                .approvals
                .iter()
                .filter(|(r, done)| done.is_none() && r["channel_id"] == channel)
                .filter_map(|(r, _)| r["request_id"].as_str().map(str::to_string))
                .collect();
            for request_id in pending {
                resolve(st, &request_id, "cancelled", None);
            }
            broadcast(
                st,
                json!({"type": "typing", "channel_id": channel, "on": false}),
            );
        }
        "ping" => reply(json!({"type": "pong", "t": frame["t"]})),
        "channel.list" => reply(json!({"type": "channel.list", "channels": st.channels})),
        "history.get" => {
            let channel = frame["channel_id"].as_str().unwrap_or_default();
            let Some(log) = st.logs.get(channel) else {
                reply(
                    json!({"type": "error", "code": "not_found", "channel_id": channel,
                    "message": "No such thread."}),
                );
                return;
            };
            let limit = frame["limit"].as_u64().unwrap_or(50).clamp(1, 200) as usize;
            let around = frame["around"].as_u64().filter(|_| st.opts.around);
            reply(history_page(channel, log, &frame, limit, around));
        }
        "search" => {
            let query = frame["query"].as_str().unwrap_or_default();
            if !st.opts.search {
                reply(
                    json!({"type": "error", "code": "unsupported", "query": query,
                    "message": "This gateway has no search."}),
                );
                return;
            }
            reply(search_page(&st.logs, &frame));
        }
        "message.send" => {
            let cmid = frame["client_msg_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if st.opts.reject_sends > 0 {
                st.opts.reject_sends -= 1;
                reply(
                    json!({"type": "error", "code": "internal", "client_msg_id": cmid,
                    "message": "The test gateway refused this message."}),
                );
                return;
            }
            if !st.opts.echo {
                return;
            }
            if let Some(echo) = st.accepted.get(&cmid) {
                reply(echo.clone());
                return;
            }
            let said = frame["text"]
                .as_str()
                .unwrap_or_default()
                .trim()
                .to_string();
            let (thread, created) = match frame["channel_id"].as_str() {
                Some(c) => (c.to_string(), None),
                None => {
                    st.next_auto += 1;
                    let c = format!("c_auto{}", st.next_auto);
                    let mut meta = channel(&c, &said, 0);
                    meta["auto"] = json!(true);
                    st.channels.push(meta.clone());
                    st.logs.entry(c.clone()).or_default();
                    let created = json!({"type": "channel.created", "channel": meta,
                        "auto": true, "client_msg_id": cmid});
                    (c, Some(created))
                }
            };
            let mut then = Reply {
                pause: if created.is_some() {
                    st.opts.auto_step_ms
                } else {
                    0
                },
                turn: st.turn.clone().map(|t| t(&said)).unwrap_or_default(),
                channel: thread,
                created,
                cmid,
                text: frame["text"].clone(),
            };
            if then.pause == 0 {
                then.announce(st);
                if then.turn.is_empty() {
                    return;
                }
            }
            tokio::spawn(then.play(state.clone()));
        }
        _ => {}
    }
}

/// Resolves pending request `request_id` once: logs the `approval` item
/// and broadcasts `approval.resolved` (repeating title, command, description).
fn resolve(st: &mut State, request_id: &str, choice: &str, device: Option<String>) {
    let Some(i) = st
        .approvals
        .iter()
        .position(|(r, done)| r["request_id"] == request_id && done.is_none())
    else {
        return;
    };
    let request = st.approvals[i].0.clone();
    let channel = request["channel_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let seq = next_seq(st, &channel);
    let mut item = json!({"type": "approval", "seq": seq, "request_id": request_id,
        "turn_id": request["turn_id"], "title": request["title"], "choice": choice, "ts": now_ms()});
    for key in ["command", "description"] {
        if !request[key].is_null() {
            item[key] = request[key].clone();
        }
    }
    if let Some(d) = device {
        item["device_id"] = json!(d);
    }
    st.logs
        .entry(channel.clone())
        .or_default()
        .push(item.clone());
    if let Some(c) = st.channels.iter_mut().find(|c| c["channel_id"] == channel) {
        c["last_seq"] = json!(seq);
    }
    let mut resolved = item;
    resolved["type"] = json!("approval.resolved");
    resolved["channel_id"] = json!(channel);
    st.approvals[i].1 = Some(resolved.clone());
    broadcast(st, resolved);
}

fn broadcast(st: &State, frame: Value) {
    let text = frame.to_string();
    for tx in st.live.values() {
        let _ = tx.send(Out::Text(text.clone()));
    }
}

/// What follows an accepted `message.send`: the `channel.created` of an
/// auto-thread, the echo, then the scripted turn.
struct Reply {
    channel: String,
    created: Option<Value>,
    cmid: String,
    text: Value,
    /// The wait before `created` and again before the echo.
    pause: u64,
    turn: Vec<Step>,
}

impl Reply {
    /// Broadcasts `channel.created` (if the send minted the thread) and
    /// the echo, logged like the real gateway's.
    fn announce(&mut self, st: &mut State) {
        if let Some(created) = self.created.take() {
            broadcast(st, created);
        }
        let seq = next_seq(st, &self.channel);
        let cmid = &self.cmid;
        let item = json!({"type": "message", "seq": seq, "message_id": format!("mu_{cmid}"),
            "role": "user", "text": self.text, "ts": 1_700_000_000_000i64,
            "client_msg_id": cmid});
        st.logs
            .entry(self.channel.clone())
            .or_default()
            .push(item.clone());
        let mut echo = item;
        echo["channel_id"] = json!(self.channel);
        if let Some(c) = st
            .channels
            .iter_mut()
            .find(|c| c["channel_id"] == self.channel)
        {
            c["last_seq"] = json!(seq);
        }
        st.accepted.insert(cmid.clone(), echo.clone());
        broadcast(st, echo);
    }

    /// Plays the slowed-down auto-thread (if `pause`), then the turn.
    async fn play(mut self, state: Arc<Mutex<State>>) {
        if self.pause > 0 {
            let pause = Duration::from_millis(self.pause);
            tokio::time::sleep(pause).await;
            if let Some(created) = self.created.take() {
                broadcast(&state.lock().unwrap(), created);
            }
            tokio::time::sleep(pause).await;
            self.announce(&mut state.lock().unwrap());
        }
        for step in std::mem::take(&mut self.turn) {
            match step {
                Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                Step::Frame(mut f) => {
                    let mut st = state.lock().unwrap();
                    f["channel_id"] = json!(self.channel);
                    f["ts"] = json!(now_ms());
                    let logged = matches!(
                        f["type"].as_str(),
                        Some("message" | "message.stop" | "commentary" | "tool.end")
                    );
                    if logged {
                        f["seq"] = json!(next_seq(&mut st, &self.channel));
                    }
                    broadcast(&st, f);
                }
            }
        }
    }
}

/// The next `seq` of `channel`, after everything logged or pushed there.
fn next_seq(st: &mut State, channel: &str) -> u64 {
    let max = st.max_seq.entry(channel.to_string()).or_default();
    *max += 1;
    *max
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A `Channel` object.
pub fn channel(id: &str, title: &str, last_seq: u64) -> Value {
    let now = now_ms();
    json!({
        "channel_id": id, "title": title, "created_at": now - 60_000,
        "updated_at": now, "auto": false, "last_seq": last_seq,
    })
}

/// A `history` reply of §6 for `frame` over `log` (sorted by seq).
fn history_page(
    channel: &str,
    log: &[Value],
    frame: &Value,
    limit: usize,
    around: Option<u64>,
) -> Value {
    let seq = |i: &Value| i["seq"].as_u64().unwrap_or(0);
    let mut reply = json!({"type": "history", "channel_id": channel});
    let (items, has_more): (&[Value], bool) = if let Some(n) = around {
        let split = log.partition_point(|i| seq(i) < n);
        let older = split.min(limit / 2);
        let end = (split + limit - older).min(log.len());
        // Fewer newer items than room: older ones fill the page.
        let start = end.saturating_sub(limit).min(split - older);
        reply["around"] = json!(n);
        reply["has_newer"] = json!(end < log.len());
        (&log[start..end], start > 0)
    } else if let Some(after) = frame["after"].as_u64() {
        let from = log.partition_point(|i| seq(i) <= after);
        let end = (from + limit).min(log.len());
        reply["after"] = json!(after);
        reply["has_newer"] = json!(end < log.len());
        (&log[from..end], end < log.len())
    } else {
        let before = frame["before"].as_u64();
        let end = before.map_or(log.len(), |b| log.partition_point(|i| seq(i) < b));
        if let Some(b) = before {
            reply["before"] = json!(b);
        }
        let start = end.saturating_sub(limit);
        (&log[start..end], start > 0)
    };
    reply["items"] = json!(items);
    reply["has_more"] = json!(has_more);
    reply
}

/// A `search.results` reply of §10: items whose text has every word of the
/// query, newest first, `limit` a page, the cursor an offset.
fn search_page(logs: &HashMap<String, Vec<Value>>, frame: &Value) -> Value {
    let query = frame["query"].as_str().unwrap_or_default();
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut hits: Vec<Value> = Vec::new();
    for (channel, log) in logs {
        for item in log {
            let text = item["text"].as_str().unwrap_or_default();
            let lower = text.to_lowercase();
            if words.is_empty() || !words.iter().all(|w| lower.contains(w.as_str())) {
                continue;
            }
            let snippet: String = text.chars().take(200).collect();
            hits.push(
                json!({"channel_id": channel, "seq": item["seq"], "kind": "message",
                "role": item["role"], "snippet": snippet, "ts": item["ts"]}),
            );
        }
    }
    hits.sort_by_key(|h| std::cmp::Reverse(h["ts"].as_i64().unwrap_or(0)));
    let limit = frame["limit"].as_u64().unwrap_or(20).clamp(1, 50) as usize;
    let offset: usize = frame["cursor"]
        .as_str()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let page: Vec<Value> = hits.iter().skip(offset).take(limit).cloned().collect();
    let mut reply = json!({"type": "search.results", "query": query, "hits": page});
    if offset + limit < hits.len() {
        reply["cursor"] = json!((offset + limit).to_string());
    }
    reply
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

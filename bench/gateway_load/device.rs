//! A simulated device: a WebSocket that said hello with the token, and a
//! reader that notes when each frame arrived (and the seq of each logged
//! item) without parsing the frames that carry no seq.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

use super::server::TOKEN;

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a device waits for `ready`, or for one reply.
const REPLY_WAIT: Duration = Duration::from_secs(60);

/// Connects, says hello and waits for `ready` (returned).
pub async fn connect(ws_url: &str, name: &str) -> Result<(Socket, Value), String> {
    let (ws, _) = tokio_tungstenite::connect_async(ws_url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    say_hello(ws, name).await
}

/// Like [`connect`], with a receive buffer of only `bytes` in the kernel:
/// a device on a slow link, whose unread frames pile up in the gateway's
/// queue instead of in loopback's large socket buffers.
pub async fn connect_small_window(
    ws_url: &str,
    name: &str,
    bytes: u32,
) -> Result<(Socket, Value), String> {
    let addr: std::net::SocketAddr = ws_url
        .trim_start_matches("ws://")
        .trim_end_matches("/ws")
        .parse()
        .map_err(|e| format!("address of {ws_url}: {e}"))?;
    let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .set_recv_buffer_size(bytes)
        .map_err(|e| e.to_string())?;
    let stream = socket.connect(addr).await.map_err(|e| e.to_string())?;
    let (ws, _) =
        tokio_tungstenite::client_async(ws_url, tokio_tungstenite::MaybeTlsStream::Plain(stream))
            .await
            .map_err(|e| format!("upgrade: {e}"))?;
    say_hello(ws, name).await
}

async fn say_hello(mut ws: Socket, name: &str) -> Result<(Socket, Value), String> {
    let hello = json!({"type": "hello", "device_id": name, "client": "aria-bench-load/0",
                       "protocol": 1, "token": TOKEN});
    send(&mut ws, &hello).await?;
    let ready = reply(&mut ws, "ready", None).await?;
    Ok((ws, ready))
}

pub async fn send(ws: &mut Socket, frame: &Value) -> Result<(), String> {
    ws.send(Message::text(frame.to_string()))
        .await
        .map_err(|e| format!("send: {e}"))
}

/// The next frame of type `ty`; an `error` is an `Err`. Frames before it
/// are noted in `seen`, if given.
pub async fn reply(
    ws: &mut Socket,
    ty: &str,
    mut seen: Option<&mut Seen>,
) -> Result<Value, String> {
    let wait = async {
        while let Some(message) = ws.next().await {
            let Ok(Message::Text(text)) = message else {
                continue;
            };
            if let Some(seen) = seen.as_deref_mut() {
                note(seen, &text);
            }
            let frame: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if frame["type"] == ty {
                return Ok(frame);
            }
            if frame["type"] == "error" {
                return Err(format!("error frame: {frame}"));
            }
        }
        Err(format!("socket closed before {ty}"))
    };
    tokio::time::timeout(REPLY_WAIT, wait)
        .await
        .map_err(|_| format!("no {ty} within {REPLY_WAIT:?}"))?
}

/// One frame a device received: a key that is the same for the same frame
/// on every device, and when it arrived.
#[derive(Debug, Clone, Copy)]
pub struct Receipt {
    pub key: u64,
    pub at: Instant,
    /// For a `message.update`, a key of its message: the gateway may skip
    /// a device's unsent snapshot when a newer one supersedes it.
    pub snapshot_of: Option<u64>,
}

/// What a reader saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub receipts: Vec<Receipt>,
    /// (channel, seq) of every logged item, in arrival order.
    pub seqs: Vec<(String, u64)>,
    /// The close code, if the gateway closed the socket.
    pub closed: Option<u16>,
    pub bytes: u64,
}

/// Frames are encoded once and sent to everyone, so equal bytes are the same
/// frame; streamed snapshots of one bubble share their start and differ in
/// length and end, so both ends and the length make the key.
pub fn key(text: &str) -> u64 {
    let b = text.as_bytes();
    let mut h = DefaultHasher::new();
    b.len().hash(&mut h);
    b[..b.len().min(128)].hash(&mut h);
    b[b.len().saturating_sub(128)..].hash(&mut h);
    h.finish()
}

/// The message a `message.update` is a snapshot of, keyed. The gateway
/// writes `message_id` before `text`, so the text cannot fake it.
fn snapshot_of(text: &str) -> Option<u64> {
    let rest = text.strip_prefix(r#"{"type":"message.update","#)?;
    let (_, after) = rest.split_once(r#""message_id":""#)?;
    let (id, _) = after.split_once('"')?;
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    Some(h.finish())
}

/// Reads `ws` until `stop` turns true or the socket ends, then returns it
/// (when still open) with what it saw.
pub async fn read(mut ws: Socket, mut stop: watch::Receiver<bool>) -> (Option<Socket>, Seen) {
    let mut seen = Seen::default();
    loop {
        if *stop.borrow() {
            return (Some(ws), seen);
        }
        tokio::select! {
            _ = stop.changed() => {}
            message = ws.next() => match message {
                Some(Ok(Message::Text(text))) => note(&mut seen, &text),
                Some(Ok(Message::Close(frame))) => {
                    seen.closed = frame.map(|f| f.code.into());
                    return (None, seen);
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return (None, seen),
            },
        }
    }
}

/// Records one received frame.
pub fn note(seen: &mut Seen, text: &str) {
    seen.receipts.push(Receipt {
        key: key(text),
        at: Instant::now(),
        snapshot_of: snapshot_of(text),
    });
    seen.bytes += text.len() as u64;
    if text.contains("\"seq\"") {
        let frame: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        if let (Some(c), Some(s)) = (frame["channel_id"].as_str(), frame["seq"].as_u64()) {
            seen.seqs.push((c.to_string(), s));
        }
    }
}

/// Fills the gap of `channel` from `after` on with `history.get` pages,
/// noting live frames that arrive meanwhile in `seen`; returns the seqs
/// fetched.
pub async fn fill_gap(
    ws: &mut Socket,
    channel: &str,
    mut after: u64,
    seen: &mut Seen,
) -> Result<Vec<u64>, String> {
    let mut fetched = Vec::new();
    loop {
        let request =
            json!({"type": "history.get", "channel_id": channel, "after": after, "limit": 200});
        send(ws, &request).await?;
        let page = reply(ws, "history", Some(seen)).await?;
        let items = page["items"].as_array().cloned().unwrap_or_default();
        for item in &items {
            if let Some(seq) = item["seq"].as_u64() {
                fetched.push(seq);
                after = seq;
            }
        }
        if page["has_newer"] != true || items.is_empty() {
            return Ok(fetched);
        }
    }
}

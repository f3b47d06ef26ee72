//! The bench's fake OpenAI-compatible model server, on 127.0.0.1 only:
//! `GET /v1/models`, `POST /v1/chat/completions` (a streamed request whose
//! last user message says `stream N` gets the N KiB answer of
//! [`sse::answer`] in 1 KiB deltas every 10 ms; anything else a short
//! whole answer) and `POST /v1/embeddings` (a tiny vector per input, in case
//! Open WebUI embeds something). Both clients get the same bytes.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::http;
use super::sse::{self, Ask};

/// Between two deltas.
const PACE: Duration = Duration::from_millis(10);
/// What a title, tags or follow-up request gets.
const SHORT: &str = "Peer benchmark";

/// A running server; it stops with the bench process.
pub struct ModelServer {
    addr: SocketAddr,
}

impl ModelServer {
    pub async fn start() -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bench: bind the fake model server");
        let addr = listener.local_addr().expect("bench: fake model address");
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket));
            }
        });
        ModelServer { addr }
    }

    /// The API's base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

/// Serves requests on one connection until the peer closes it.
async fn serve(socket: TcpStream) {
    let (read, mut write) = socket.into_split();
    let mut read = BufReader::new(read);
    while let Some(request) = http::read_request(&mut read).await {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let ok = match (request.method.as_str(), request.path.trim_end_matches('/')) {
            ("GET", "/v1/models") => {
                let models = json!({"object": "list", "data": [
                    {"id": sse::MODEL, "object": "model", "created": 0, "owned_by": "bench"}]});
                http::write_json(&mut write, 200, &models).await
            }
            ("POST", "/v1/chat/completions") => match sse::ask(&body) {
                Ask::Stream(kib) => stream(&mut write, kib).await,
                Ask::Short => http::write_json(&mut write, 200, &sse::completion(SHORT)).await,
            },
            ("POST", "/v1/embeddings") => {
                let inputs = match &body["input"] {
                    Value::Array(a) => a.len(),
                    _ => 1,
                };
                let data: Vec<Value> = (0..inputs)
                    .map(|i| json!({"object": "embedding", "index": i, "embedding": [0.1, 0.2, 0.3]}))
                    .collect();
                let reply = json!({"object": "list", "data": data, "model": sse::MODEL,
                                   "usage": {"prompt_tokens": 1, "total_tokens": 1}});
                http::write_json(&mut write, 200, &reply).await
            }
            _ => {
                http::write_json(&mut write, 404, &json!({"error": {"message": "not found"}})).await
            }
        };
        if !ok {
            return;
        }
    }
}

/// The answer as server-sent events in chunked HTTP; false when the peer
/// went away (a client that stopped reading ends the stream early).
async fn stream(write: &mut (impl AsyncWriteExt + Unpin), kib: usize) -> bool {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Transfer-Encoding: chunked\r\n\r\n";
    if write.write_all(head.as_bytes()).await.is_err() {
        return false;
    }
    let text = sse::answer(kib);
    let pieces = sse::deltas(&text, sse::DELTA_BYTES);
    let mut tick = tokio::time::interval(PACE);
    for piece in &pieces {
        tick.tick().await;
        let event = sse::chunk_event(Some(piece), None);
        if write
            .write_all(sse::http_chunk(&event).as_bytes())
            .await
            .is_err()
        {
            return false;
        }
    }
    let tail = [
        sse::chunk_event(None, Some("stop")),
        sse::usage_event(pieces.len() * 256),
        sse::DONE_EVENT.to_string(),
    ];
    for event in tail {
        if write
            .write_all(sse::http_chunk(&event).as_bytes())
            .await
            .is_err()
        {
            return false;
        }
    }
    write
        .write_all(sse::http_chunk("").as_bytes())
        .await
        .is_ok()
        && write.flush().await.is_ok()
}

//! One WebSocket: the `hello` handshake, then frames in and out until either
//! side closes.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aria_protocol::{
    ClientFrame, ErrorCode, Hello, Ready, ServerFrame, CLOSE_UNAUTHORIZED,
    CLOSE_UNSUPPORTED_PROTOCOL, MAX_FRAME_BYTES, PROTOCOL_VERSION,
};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::SinkExt;

use crate::app::App;
use crate::device_queue::Frame;
use crate::hello_throttle::Attempt;
use crate::hub::{ConnId, Outgoing};
use crate::rate_limit::FrameLimit;
use crate::request_error::RequestError;
use crate::requests;

/// How long a client may take to send `hello` after connecting.
const HELLO_TIMEOUT: Duration = Duration::from_secs(15);
/// How long to wait for the client's answer to our close frame.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// `file.chunk` frames are limited apart from other frames: an upload at
/// full speed (4 chunks in flight, §13) is hundreds of them a second, and
/// each costs about what it carries. 1,000 a second is 250 MiB/s, well
/// above what one connection gets through (`tests/file_bench.rs`).
const CHUNKS_PER_SEC: u32 = 1000;
const CHUNK_BURST: u32 = 64;

const CLOSE_GOING_AWAY: u16 = 1001;
const CLOSE_POLICY: u16 = 1008;
const CLOSE_TOO_BIG: u16 = 1009;
const CLOSE_INTERNAL: u16 = 1011;
const CLOSE_TRY_AGAIN: u16 = 1013;

/// `server` of `ready`.
pub const SERVER_NAME: &str = concat!("aria-gateway/", env!("CARGO_PKG_VERSION"));

/// Serves one socket from the client at `peer`.
pub async fn run(app: Arc<App>, mut socket: WebSocket, peer: IpAddr) {
    // Counted from the upgrade on, so sockets that never say hello count too.
    let Some(_slot) = app.sockets.open(peer) else {
        tracing::warn!(%peer, "refused socket: too many from this address");
        let error = RequestError::new(
            ErrorCode::RateLimited,
            format!(
                "Too many connections from this address (at most {}); close some and try again.",
                app.sockets.max()
            ),
        );
        send_frame(&mut socket, &error.into_frame()).await;
        close(
            &mut socket,
            CLOSE_TRY_AGAIN,
            "too many connections from this address",
        )
        .await;
        return;
    };
    let Some(hello) = handshake(&app, &mut socket, peer).await else {
        return;
    };
    let device_id = hello.device_id;
    tracing::debug!(device = %device_id, client = %hello.client, "device authenticated");
    let limits = app.files.limits().announced();
    let ready_device = device_id.clone();
    let joined = app
        .outbox
        .run(move |store, hub| {
            let ready = ServerFrame::Ready(Ready {
                protocol: PROTOCOL_VERSION,
                server: SERVER_NAME.to_string(),
                device_id: ready_device,
                channels: store.list_channels()?,
                limits: Some(limits),
            });
            Ok(hub.join(&ready))
        })
        .await;
    match joined {
        Ok(Some((conn, queue))) => {
            serve_device(&app, conn, &device_id, &mut socket, queue).await;
            app.outbox.hub().leave(conn);
            crate::memory::released();
        }
        Ok(None) => close(&mut socket, CLOSE_GOING_AWAY, "server shutting down").await,
        Err(e) => {
            tracing::error!("cannot list channels for ready: {e}");
            let error =
                RequestError::new(ErrorCode::Internal, "The gateway could not read its log.");
            send_frame(&mut socket, &error.into_frame()).await;
            close(&mut socket, CLOSE_INTERNAL, "internal error").await;
        }
    }
}

/// Waits for a valid `hello`. Frames before it get `bad_request` (the socket
/// stays open); a wrong token or protocol gets its error and close code, and
/// so does any `hello` from an address that sent too many wrong tokens.
async fn handshake(app: &App, socket: &mut WebSocket, peer: IpAddr) -> Option<Hello> {
    let deadline = tokio::time::Instant::now() + HELLO_TIMEOUT;
    loop {
        let text = match tokio::time::timeout_at(deadline, socket.recv()).await {
            Err(_) => {
                close(socket, CLOSE_POLICY, "no hello").await;
                return None;
            }
            Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => return None,
            Ok(Some(Ok(Message::Text(text)))) => text,
            Ok(Some(Ok(_))) => continue,
        };
        let error = match decode(&text) {
            Err(e) => e,
            Ok(ClientFrame::Hello(hello)) => {
                let token = hello.token.as_deref();
                let refusal = match app
                    .hello_throttle
                    .attempt(peer, Instant::now(), || app.token_ok(token))
                {
                    Attempt::Accepted if hello.protocol == PROTOCOL_VERSION => None,
                    Attempt::Accepted => Some((
                        RequestError::new(
                            ErrorCode::UnsupportedProtocol,
                            format!(
                                "This gateway speaks protocol {PROTOCOL_VERSION}, not {}.",
                                hello.protocol
                            ),
                        ),
                        CLOSE_UNSUPPORTED_PROTOCOL,
                        "unsupported protocol",
                    )),
                    Attempt::Refused => {
                        tracing::warn!(%peer, "refused hello: wrong or missing token");
                        Some((
                            RequestError::new(
                                ErrorCode::Unauthorized,
                                "The token is missing or wrong.",
                            ),
                            CLOSE_UNAUTHORIZED,
                            "unauthorized",
                        ))
                    }
                    Attempt::Blocked => {
                        tracing::warn!(%peer, "refused hello: too many wrong tokens");
                        Some((
                            RequestError::new(
                                ErrorCode::RateLimited,
                                "Too many wrong tokens from this address; try again in a minute.",
                            ),
                            CLOSE_TRY_AGAIN,
                            "too many wrong tokens",
                        ))
                    }
                };
                if let Some((error, code, reason)) = refusal {
                    send_frame(socket, &error.into_frame()).await;
                    close(socket, code, reason).await;
                    return None;
                }
                return Some(hello);
            }
            Ok(_) => RequestError::new(ErrorCode::BadRequest, "The first frame must be hello."),
        };
        send_frame(socket, &error.into_frame()).await;
    }
}

/// The authenticated phase: forwards queued frames out and requests in,
/// pausing reads while the client is over its frame limit ([`FrameLimit`]).
async fn serve_device(
    app: &Arc<App>,
    conn: ConnId,
    device_id: &str,
    socket: &mut WebSocket,
    queue: Outgoing,
) {
    let mut limits = Limits {
        frames: FrameLimit::new(app.frames_per_sec, app.frame_burst, Instant::now()),
        chunks: FrameLimit::new(CHUNKS_PER_SEC, CHUNK_BURST, Instant::now()),
    };
    let mut paused_until: Option<tokio::time::Instant> = None;
    let mut batch = Vec::new();
    loop {
        tokio::select! {
            more = queue.next_batch(&mut batch) => match more {
                true => {
                    if send_batch(socket, &batch).await.is_err() {
                        return;
                    }
                }
                false => {
                    let (code, reason) = if app.outbox.hub().is_closed() {
                        (CLOSE_GOING_AWAY, "server shutting down")
                    } else {
                        (CLOSE_TRY_AGAIN, "too slow: reconnect and fill the gap from history")
                    };
                    close(socket, code, reason).await;
                    return;
                }
            },
            () = sleep_until(paused_until), if paused_until.is_some() => paused_until = None,
            incoming = socket.recv(), if paused_until.is_none() => match incoming {
                Some(Ok(Message::Text(text))) => {
                    on_text(app, conn, device_id, &mut limits, &text).await;
                    let now = Instant::now();
                    let pause = limits.frames.pause(now).max(limits.chunks.pause(now));
                    if !pause.is_zero() {
                        paused_until = Some(tokio::time::Instant::now() + pause);
                    }
                }
                Some(Ok(Message::Close(_))) | None => return,
                // Binary frames carry nothing in this protocol; pings are
                // answered by the WebSocket layer.
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    if is_too_big(e) {
                        let error = RequestError::new(ErrorCode::TooLarge, "The frame is far over 1 MiB.");
                        send_frame(socket, &error.into_frame()).await;
                        close(socket, CLOSE_TOO_BIG, "frame too large").await;
                    }
                    return;
                }
            },
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    if let Some(deadline) = deadline {
        tokio::time::sleep_until(deadline).await;
    }
}

/// A connection's rate limits: one for `file.chunk`, one for the rest.
struct Limits {
    frames: FrameLimit,
    chunks: FrameLimit,
}

/// Handles one text frame, or answers `rate_limited` when it is over the limit.
async fn on_text(app: &Arc<App>, conn: ConnId, device_id: &str, limits: &mut Limits, text: &str) {
    let decoded = decode(text);
    let limit = match &decoded {
        Ok(ClientFrame::FileChunk(_)) => &mut limits.chunks,
        _ => &mut limits.frames,
    };
    if !limit.try_take(Instant::now()) {
        let mut error = RequestError::new(ErrorCode::RateLimited, "Too many frames; slow down.");
        match &decoded {
            Ok(ClientFrame::MessageSend(send)) => {
                error = error.for_message(Some(&send.client_msg_id));
            }
            Ok(ClientFrame::FileBegin(b)) => error = error.for_upload(&b.upload_id),
            Ok(ClientFrame::FileChunk(c)) => error = error.for_upload(&c.upload_id),
            // A read refused without its id would never be answered: the
            // client could not tell it to try again and would wait forever.
            Ok(ClientFrame::FileGet(g)) => error = error.for_request(&g.request_id),
            _ => {}
        }
        app.outbox.hub().reply(conn, &error.into_frame());
        return;
    }
    match decoded {
        Ok(frame) => requests::handle(app, conn, device_id, frame).await,
        Err(error) => app.outbox.hub().reply(conn, &error.into_frame()),
    }
}

/// Decodes a client frame, or the error that answers it.
fn decode(text: &str) -> Result<ClientFrame, RequestError> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(RequestError::new(
            ErrorCode::TooLarge,
            "The frame is larger than 1 MiB.",
        ));
    }
    ClientFrame::decode(text).map_err(|e| RequestError::new(ErrorCode::BadRequest, e.to_string()))
}

/// Whether a read failed because the frame passed the WebSocket size cap.
fn is_too_big(error: axum::Error) -> bool {
    error
        .into_inner()
        .downcast_ref::<tungstenite::Error>()
        .is_some_and(|e| matches!(e, tungstenite::Error::Capacity(_)))
}

/// Writes a batch of queued frames with one flush (one system call for a
/// device that has fallen a few frames behind, not one per frame).
async fn send_batch(socket: &mut WebSocket, batch: &[Arc<Frame>]) -> Result<(), axum::Error> {
    for frame in batch {
        socket.feed(Message::Text(frame.text.clone())).await?;
    }
    socket.flush().await
}

async fn send_frame(socket: &mut WebSocket, frame: &ServerFrame) {
    // A failed send means the peer is gone; the caller ends the connection.
    let _ = socket.send(Message::Text(frame.encode().into())).await;
}

/// Sends a close frame and waits briefly for the peer's, for a clean close.
async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    if socket.send(Message::Close(Some(frame))).await.is_err() {
        return;
    }
    let drain = async { while let Some(Ok(_)) = socket.recv().await {} };
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, drain).await;
}

//! A device that falls behind while an answer streams: the gateway sends it
//! the newest snapshot instead of every one it missed, keeps every other
//! frame in order, and never loses the final text.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpSocket;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::MaybeTlsStream;

use crate::support::{hello, Gateway, Socket};

/// The slow device's kernel receive buffer: a phone on a slow link, so the
/// frames it does not read pile up in the gateway instead of in loopback's
/// megabytes of buffers.
const SLOW_WINDOW: u32 = 8 * 1024;
/// `/demo stream 300`: 300 snapshots 10 ms apart growing to 300 KiB, about
/// 45 MB in all, far more than the slow device's socket holds.
const STREAM: &str = "/demo stream 300";

/// A socket with a small receive buffer that said hello and got `ready`.
async fn slow_device(ws_url: &str) -> Socket {
    let addr: std::net::SocketAddr = ws_url
        .trim_start_matches("ws://")
        .trim_end_matches("/ws")
        .parse()
        .expect("gateway address");
    let socket = TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(SLOW_WINDOW).expect("window");
    let stream = socket.connect(addr).await.expect("connect");
    let (mut ws, _) = tokio_tungstenite::client_async(ws_url, MaybeTlsStream::Plain(stream))
        .await
        .expect("upgrade");
    ws.send(Message::text(hello(None).to_string()))
        .await
        .expect("hello");
    let ready = frames_until(&mut ws, |f| f["type"] == "ready").await;
    assert_eq!(ready.len(), 1, "{ready:?}");
    ws
}

/// Text frames up to and including the first matching `done`.
async fn frames_until(ws: &mut Socket, done: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut frames = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(60), ws.next()).await;
        match next {
            Ok(Some(Ok(Message::Text(text)))) => {
                let frame: Value = serde_json::from_str(&text).expect("json frame");
                let last = done(&frame);
                frames.push(frame);
                if last {
                    return frames;
                }
            }
            Ok(Some(Ok(Message::Close(close)))) => panic!("dropped: {close:?}"),
            Ok(Some(Ok(_))) => {}
            other => panic!("socket ended: {other:?}"),
        }
    }
}

fn updates(frames: &[Value]) -> Vec<&str> {
    frames
        .iter()
        .filter(|f| f["type"] == "message.update")
        .map(|f| f["text"].as_str().expect("text"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_behind_gets_the_newest_snapshot_every_other_frame_in_order_and_the_final_text() {
    let gw = Gateway::start(1).await;
    let mut driver = gw.client().await;
    let mut slow = slow_device(&gw.ws_url()).await;

    let channel = driver.create_channel("streamed").await;
    driver.send_message(&channel, STREAM, "k1").await;
    // Everything the gateway published, as a device that keeps up saw it
    // (from the user's message on).
    let published = driver.until_turn_ends().await;
    // The slow device reads only now, the turn over.
    let mut got = frames_until(&mut slow, |f| f["type"] == "typing" && f["on"] == false).await;
    let created = got.remove(0);
    assert_eq!(created["type"], "channel.created", "{created}");
    let user = got.remove(0);
    assert_eq!(user["client_msg_id"], "k1", "{user}");

    // What it got is what was published, in order, minus snapshots.
    let mut rest = published.iter();
    for frame in &got {
        let found = rest.by_ref().find(|p| *p == frame);
        assert!(found.is_some(), "out of order or never published: {frame}");
    }
    let missed: Vec<&Value> = published.iter().filter(|p| !got.contains(p)).collect();
    assert!(
        missed.iter().all(|f| f["type"] == "message.update"),
        "only snapshots are skipped"
    );

    let (all, seen) = (updates(&published), updates(&got));
    assert!(
        seen.len() < all.len() / 2,
        "it skipped most of the {} snapshots, got {}",
        all.len(),
        seen.len()
    );
    assert_eq!(
        seen.last(),
        all.last(),
        "the newest snapshot always arrives"
    );
    let stop = |frames: &[Value]| {
        frames
            .iter()
            .find(|f| f["type"] == "message.stop")
            .map(|f| f["final_text"].clone())
    };
    assert_eq!(stop(&got), stop(&published));
    assert!(stop(&got).is_some_and(|text| text.as_str().is_some_and(|t| t.len() > 250_000)));
}

//! Clients that push too hard, against the real binary: a flood of frames,
//! frames of a mebibyte, 500 sockets from one address. Each is
//! limited and answered, and a well-behaved device alongside keeps its
//! round trips and its turns.

use std::time::{Duration, Instant};

use crate::support::process::Process;
use crate::support::{hello, Client, Socket};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpSocket;
use tokio_tungstenite::tungstenite::Message;

/// A round trip the well-behaved device must always get back within, on
/// a busy two-core machine (typically a millisecond).
const FAIR_ROUND_TRIP: Duration = Duration::from_millis(1500);

/// Pings every 100 ms for `rounds`, then sends a message and waits for its
/// turn to end; returns the slowest ping round trip.
async fn well_behaved(mut client: Client, rounds: u32) -> Duration {
    let mut slowest = Duration::ZERO;
    for t in 0..rounds {
        let started = Instant::now();
        client.send(json!({"type": "ping", "t": t})).await;
        let pong = client.recv_type("pong").await;
        assert_eq!(pong["t"], t);
        slowest = slowest.max(started.elapsed());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    client.send_default("still served?", "fair-1").await;
    client.until_turn_ends().await;
    slowest
}

/// What came back to an abusive socket: pongs, errors by code, close code.
#[derive(Default, Debug)]
struct Answers {
    pongs: usize,
    errors: Vec<String>,
    close: Option<u16>,
}

impl Answers {
    fn count(&self, code: &str) -> usize {
        self.errors.iter().filter(|c| *c == code).count()
    }
}

/// Reads everything `reader` gets until it closes or `until` passes.
async fn collect(
    mut reader: futures_util::stream::SplitStream<Socket>,
    until: tokio::time::Instant,
) -> Answers {
    let mut answers = Answers::default();
    while let Ok(Some(Ok(message))) = tokio::time::timeout_at(until, reader.next()).await {
        match message {
            Message::Text(text) => {
                let frame: Value = serde_json::from_str(&text).expect("json");
                match frame["type"].as_str() {
                    Some("pong") => answers.pongs += 1,
                    Some("error") => answers
                        .errors
                        .push(frame["code"].as_str().unwrap_or("").to_string()),
                    _ => {}
                }
            }
            Message::Close(frame) => {
                answers.close = frame.map(|f| f.code.into());
                break;
            }
            _ => {}
        }
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_frames_is_limited_and_answered_and_others_are_unaffected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let process = Process::start(dir.path(), 1, &[]);
    let fair = tokio::spawn(well_behaved(
        Client::connect(&process.ws_url, None).await,
        20,
    ));
    let abuser = Client::connect(&process.ws_url, None).await;
    let (mut writer, reader) = abuser.ws.split();
    // The flood lasts about 2 s; the gateway works through what it read.
    let window = Duration::from_secs(5);
    let answers = tokio::spawn(collect(reader, tokio::time::Instant::now() + window));

    // 10,000 frames a second for 2 s, for as long as the socket takes
    // them: once the gateway reads only at the limit, its buffers fill and
    // the flood's sends block.
    let started = tokio::time::Instant::now();
    let stop = started + Duration::from_secs(2);
    let mut sent = 0u32;
    while tokio::time::Instant::now() < stop {
        let due = started + Duration::from_micros(100 * u64::from(sent));
        tokio::time::sleep_until(due.min(stop)).await;
        let frame = Message::text(json!({"type": "ping", "t": sent}).to_string());
        match tokio::time::timeout_at(stop, writer.send(frame)).await {
            Ok(Ok(())) => sent += 1,
            Ok(Err(_)) | Err(_) => break,
        }
    }
    let slowest = fair.await.expect("well-behaved device");
    assert!(
        slowest < FAIR_ROUND_TRIP,
        "the other device's slowest round trip was {slowest:?}"
    );
    let answers = answers.await.expect("answers");
    drop(writer);
    // The burst, then 20 a second; a little slack for timing.
    let allowed = 60.0 + 20.0 * window.as_secs_f64() + 10.0;
    assert!(
        (answers.pongs as f64) <= allowed,
        "{} pongs for {sent} pings: more than the limit lets through",
        answers.pongs
    );
    assert!(
        sent as usize > answers.pongs + answers.errors.len() + 1000,
        "the rest of the flood ({sent} frames) waits unread: {} answered",
        answers.pongs + answers.errors.len()
    );
    assert!(answers.pongs >= 60, "the burst was served: {answers:?}");
    assert!(
        answers.count("rate_limited") > 0,
        "excess frames are answered: {} errors",
        answers.errors.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_of_a_mebibyte_and_more_are_answered_and_others_are_unaffected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let process = Process::start(dir.path(), 1, &[]);
    let fair = tokio::spawn(well_behaved(
        Client::connect(&process.ws_url, None).await,
        15,
    ));
    let mut abuser = Client::connect(&process.ws_url, None).await;

    // A ping padded to 1 MiB is a frame like any other; one byte over is
    // `too_large` (past the WebSocket cap the socket closes: connection.rs).
    let padded = |bytes: usize| {
        let head = r#"{"type":"ping","t":0,"pad":""#;
        let pad = "x".repeat(bytes - head.len() - 2);
        format!("{head}{pad}\"}}")
    };
    let mib = 1 << 20;
    for _ in 0..FRAMES_OF_A_MIB {
        abuser.send_text(padded(mib)).await;
        abuser.send_text(padded(mib + 1)).await;
    }
    let (mut pongs, mut too_large) = (0, 0);
    while pongs + too_large < 2 * FRAMES_OF_A_MIB {
        let frame = abuser.recv().await;
        match frame["type"].as_str() {
            Some("pong") => pongs += 1,
            Some("error") if frame["code"] == "too_large" => too_large += 1,
            _ => panic!("unexpected answer: {frame}"),
        }
    }
    assert_eq!((pongs, too_large), (FRAMES_OF_A_MIB, FRAMES_OF_A_MIB));
    abuser.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(
        abuser.recv_type("pong").await["t"],
        1,
        "the socket stays open"
    );

    let slowest = fair.await.expect("well-behaved device");
    assert!(
        slowest < FAIR_ROUND_TRIP,
        "the other device's slowest round trip was {slowest:?}"
    );
}

/// Frames of 1 MiB, and as many one byte over, the big-frame client sends.
const FRAMES_OF_A_MIB: usize = 8;

/// A socket from `source` (a loopback address of its own) that said hello.
async fn connect_from(source: &str, ws_url: &str) -> Socket {
    let addr: std::net::SocketAddr = ws_url
        .trim_start_matches("ws://")
        .trim_end_matches("/ws")
        .parse()
        .expect("gateway address");
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(format!("{source}:0").parse().expect("source"))
        .expect("bind");
    let stream = socket.connect(addr).await.expect("connect");
    let (ws, _) =
        tokio_tungstenite::client_async(ws_url, tokio_tungstenite::MaybeTlsStream::Plain(stream))
            .await
            .expect("upgrade");
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_sockets_from_one_address_are_capped_and_others_are_unaffected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let process = Process::start(dir.path(), 1, &["--max-sockets-per-address", "100"]);
    // All at once (well within the gateway's 15 s wait for hello), then
    // look which were answered.
    let mut sockets = Vec::new();
    for _ in 0..500 {
        sockets.push(connect_from("127.0.0.1", &process.ws_url).await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut held = Vec::new();
    let mut refused = 0;
    for mut ws in sockets {
        match tokio::time::timeout(Duration::from_millis(20), ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => {
                let frame: Value = serde_json::from_str(&text).expect("json");
                assert_eq!(frame["code"], "rate_limited", "{frame}");
                let close = ws.next().await;
                assert!(
                    matches!(&close, Some(Ok(Message::Close(Some(f)))) if u16::from(f.code) == 1013),
                    "then close 1013: {close:?}"
                );
                refused += 1;
            }
            Err(_) => held.push(ws),
            other => panic!("unexpected: {other:?}"),
        }
    }
    assert_eq!((held.len(), refused), (100, 400));

    // Another address is not affected.
    let mut other = connect_from("127.0.0.2", &process.ws_url).await;
    other
        .send(Message::text(hello(None).to_string()))
        .await
        .expect("hello");
    let ready = tokio::time::timeout(Duration::from_secs(5), other.next()).await;
    assert!(
        matches!(&ready, Ok(Some(Ok(Message::Text(t)))) if t.contains("\"ready\"")),
        "{ready:?}"
    );

    // A closed socket frees its place.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut again = connect_from("127.0.0.1", &process.ws_url).await;
    again
        .send(Message::text(hello(None).to_string()))
        .await
        .expect("hello");
    let ready = tokio::time::timeout(Duration::from_secs(5), again.next()).await;
    assert!(
        matches!(&ready, Ok(Some(Ok(Message::Text(t)))) if t.contains("\"ready\"")),
        "{ready:?}"
    );
}

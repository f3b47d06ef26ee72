//! Handshake, heartbeat, malformed and oversized frames, rate limit, origin
//! check and static files, against a real gateway.

use std::time::Duration;

use crate::support::{hello, http_get, open, Client, Gateway};
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

#[tokio::test]
async fn hello_gets_ready_with_server_device_and_channels() {
    let gw = Gateway::start(1).await;
    let client = gw.client().await;
    let ready = &client.ready;
    assert_eq!(ready["protocol"], 1);
    assert_eq!(
        ready["server"],
        format!("aria-gateway/{}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(ready["device_id"], "test-device");
    assert_eq!(ready["channels"], json!([]));
}

#[tokio::test]
async fn ping_gets_pong_with_t_echoed() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    client.send(json!({"type": "ping", "t": 1234567})).await;
    assert_eq!(client.recv().await, json!({"type": "pong", "t": 1234567}));
    client
        .send(json!({"type": "ping", "t": {"any": ["json"]}}))
        .await;
    assert_eq!(
        client.recv().await,
        json!({"type": "pong", "t": {"any": ["json"]}})
    );
}

#[tokio::test]
async fn wrong_or_missing_token_is_unauthorized_and_closed_4401() {
    let gw = Gateway::start_with(1, |c| c.token = Some("s3cret".into())).await;
    for token in [Some("wrong"), None] {
        let mut client = Client {
            ws: open(&gw.ws_url()).await,
            ready: json!(null),
        };
        client.send(hello(token)).await;
        let error = client.recv().await;
        assert_eq!(error["type"], "error");
        assert_eq!(error["code"], "unauthorized");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
        let close = client.recv_close().await.expect("close frame");
        assert_eq!(u16::from(close.code), 4401);
    }
    let ok = Client::connect(&gw.ws_url(), Some("s3cret")).await;
    assert_eq!(ok.ready["type"], "ready");
}

#[tokio::test]
async fn unsupported_protocol_is_closed_4400() {
    let gw = Gateway::start(1).await;
    let mut client = Client {
        ws: open(&gw.ws_url()).await,
        ready: json!(null),
    };
    let mut frame = hello(None);
    frame["protocol"] = json!(2);
    client.send(frame).await;
    let error = client.recv().await;
    assert_eq!(error["code"], "unsupported_protocol");
    let close = client.recv_close().await.expect("close frame");
    assert_eq!(u16::from(close.code), 4400);
}

#[tokio::test]
async fn frames_before_hello_get_bad_request_and_hello_still_works() {
    let gw = Gateway::start(1).await;
    let mut client = Client {
        ws: open(&gw.ws_url()).await,
        ready: json!(null),
    };
    client.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(client.recv().await["code"], "bad_request");
    client.send_text("{not json".into()).await;
    assert_eq!(client.recv().await["code"], "bad_request");
    client.send(hello(None)).await;
    assert_eq!(client.recv().await["type"], "ready");
}

#[tokio::test]
async fn malformed_frames_get_bad_request_and_the_socket_keeps_working() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    for bad in [
        "not json at all".to_string(),
        json!({"no_type": true}).to_string(),
        json!({"type": "history.get"}).to_string(),
        json!({"type": "message.send", "text": 5, "client_msg_id": "k"}).to_string(),
    ] {
        client.send_text(bad.clone()).await;
        let error = client.recv().await;
        assert_eq!(error["type"], "error", "{bad}");
        assert_eq!(error["code"], "bad_request", "{bad}");
    }
    // Unknown frame types are ignored without an answer.
    client.send(json!({"type": "frobnicate", "x": 1})).await;
    client.send(json!({"type": "ping", "t": 7})).await;
    assert_eq!(client.recv().await, json!({"type": "pong", "t": 7}));
}

#[tokio::test]
async fn frame_over_1_mib_gets_too_large_and_the_socket_stays_open() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let big = json!({"type": "ping", "t": "x".repeat(1024 * 1024 + 10)}).to_string();
    client.send_text(big).await;
    let error = client.recv().await;
    assert_eq!(error["code"], "too_large");
    client.send(json!({"type": "ping", "t": 1})).await;
    assert_eq!(client.recv().await["type"], "pong");
}

#[tokio::test]
async fn flood_of_frames_is_rate_limited() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    for t in 0..100 {
        client
            .ws
            .feed(Message::text(json!({"type": "ping", "t": t}).to_string()))
            .await
            .expect("feed");
    }
    client.ws.flush().await.expect("flush");
    let (mut pongs, mut limited) = (0, 0);
    for _ in 0..100 {
        let frame = client.recv().await;
        match frame["type"].as_str() {
            Some("pong") => pongs += 1,
            Some("error") if frame["code"] == "rate_limited" => limited += 1,
            _ => panic!("unexpected {frame}"),
        }
    }
    assert!(pongs >= 60, "the burst passes: {pongs}");
    assert!(limited >= 30, "the excess is refused: {limited}");
    // The bucket refills: 20 frames per second.
    tokio::time::sleep(Duration::from_millis(200)).await;
    client.send(json!({"type": "ping", "t": "again"})).await;
    assert_eq!(client.recv().await["t"], "again");
}

#[tokio::test]
async fn a_refused_file_read_is_answered_with_its_request_id() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    for i in 0..100 {
        let get = json!({"type": "file.get", "request_id": format!("g{i}"), "file_id": "f_none"});
        client
            .ws
            .feed(Message::text(get.to_string()))
            .await
            .expect("feed");
    }
    client.ws.flush().await.expect("flush");
    let mut limited = 0;
    for i in 0..100 {
        let frame = client.recv().await;
        assert_eq!(frame["type"], "error", "{frame}");
        // In order, each naming the read it answers: `not_found` for the
        // burst, `rate_limited` past it, so the client can ask again.
        assert_eq!(frame["request_id"], format!("g{i}"), "{frame}");
        if frame["code"] == "rate_limited" {
            limited += 1;
        } else {
            assert_eq!(frame["code"], "not_found", "{frame}");
        }
    }
    assert!(limited >= 30, "the excess is refused: {limited}");
}

#[tokio::test]
async fn origin_allow_list_refuses_other_origins_at_upgrade() {
    let gw = Gateway::start_with(1, |c| {
        c.allowed_origins = vec!["http://good.example".into()]
    })
    .await;
    let with_origin = |origin: &str| {
        let mut request = gw.ws_url().into_client_request().expect("request");
        request
            .headers_mut()
            .insert("Origin", origin.parse().expect("header"));
        request
    };
    match tokio_tungstenite::connect_async(with_origin("http://evil.example")).await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 403),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("evil origin was accepted"),
    }
    let (ws, _) = tokio_tungstenite::connect_async(with_origin("http://good.example"))
        .await
        .expect("good origin");
    let mut client = Client {
        ws,
        ready: json!(null),
    };
    client.send(hello(None)).await;
    assert_eq!(client.recv().await["type"], "ready");
}

#[tokio::test]
async fn static_files_are_served_with_a_hint_when_the_client_is_missing() {
    let gw = Gateway::start(1).await;
    let (status, body) = http_get(gw.server.addr(), "/", "").await;
    assert_eq!(status, 200);
    assert!(body.contains("web client is not built"), "{body}");
    assert_eq!(http_get(gw.server.addr(), "/nope.js", "").await.0, 404);

    let dist = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dist.path().join("index.html"),
        "<!doctype html><title>aria</title>",
    )
    .expect("write");
    std::fs::write(dist.path().join("app.js"), "console.log(1)").expect("write");
    let served = Gateway::start_with(1, |c| c.static_dir = dist.path().to_path_buf()).await;
    let (status, body) = http_get(served.server.addr(), "/", "").await;
    assert_eq!((status, body.contains("<title>aria</title>")), (200, true));
    let (status, body) = http_get(served.server.addr(), "/app.js", "").await;
    assert_eq!((status, body.as_str()), (200, "console.log(1)"));
}

#[tokio::test]
async fn shutdown_closes_sockets_with_going_away() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    gw.server.shutdown().await.expect("shutdown");
    let close = client.recv_close().await.expect("close frame");
    assert_eq!(u16::from(close.code), 1001);
}

#[tokio::test]
async fn frame_past_the_websocket_cap_gets_too_large_then_close_1009() {
    let gw = Gateway::start(1).await;
    let mut client = gw.client().await;
    let huge = json!({"type": "ping", "t": "x".repeat(5 * 1024 * 1024)}).to_string();
    // The server may close before it has read all of it; a failed send is fine.
    let _ = client.ws.send(Message::text(huge)).await;
    let mut saw_error = false;
    loop {
        match client.next_message(Duration::from_secs(10)).await {
            Some(Message::Text(text)) => {
                let frame: serde_json::Value = serde_json::from_str(&text).expect("json");
                assert_eq!(frame["code"], "too_large");
                saw_error = true;
            }
            Some(Message::Close(frame)) => {
                assert_eq!(frame.map(|f| u16::from(f.code)), Some(1009));
                break;
            }
            Some(_) => {}
            None => panic!("socket neither answered nor closed"),
        }
    }
    assert!(saw_error);
}

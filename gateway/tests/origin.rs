//! The Origin and Host policy at the `/ws` upgrade, over real WebSockets:
//! a browser may open the socket only from the gateway's own origin (or one
//! listed with `--allowed-origin`) and through a host name the gateway
//! serves (loopback, the bound IP, `--allowed-host`). Clients without an
//! `Origin` are not browsers and pass, still behind the token.

use crate::support::{hello, Client, Gateway, Socket};
use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Error as WsError;

/// Upgrades with these headers: the socket, or the refusal's HTTP status.
async fn upgrade(gw: &Gateway, host: Option<&str>, origin: Option<&str>) -> Result<Socket, u16> {
    let mut request = gw.ws_url().into_client_request().expect("request");
    let headers = request.headers_mut();
    if let Some(host) = host {
        headers.insert("Host", host.parse().expect("header"));
    }
    if let Some(origin) = origin {
        headers.insert("Origin", origin.parse().expect("header"));
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        Err(WsError::Http(response)) => Err(response.status().as_u16()),
        Err(e) => panic!("unexpected error {e}"),
    }
}

/// Says hello on an accepted socket and returns the answer's type.
async fn hello_answer(ws: Socket, token: Option<&str>) -> String {
    let mut client = Client {
        ws,
        ready: json!(null),
    };
    client.send(hello(token)).await;
    let answer = client.recv().await;
    match answer["type"].as_str() {
        Some("error") => format!("error {}", answer["code"].as_str().unwrap_or("?")),
        other => other.unwrap_or("?").to_string(),
    }
}

fn own_host(gw: &Gateway) -> String {
    gw.server.addr().to_string()
}

fn port(gw: &Gateway) -> u16 {
    gw.server.addr().port()
}

#[tokio::test]
async fn a_foreign_origin_is_refused_with_403() {
    let gw = Gateway::start(1).await;
    let host = own_host(&gw);
    for origin in [
        "http://evil.example",
        "https://evil.example",
        // Another server on this machine is another origin.
        &format!("http://127.0.0.1:{}", port(&gw) + 1),
        &format!("http://127.0.0.1.evil.example:{}", port(&gw)),
    ] {
        assert_eq!(
            upgrade(&gw, Some(&host), Some(origin)).await.err(),
            Some(403),
            "{origin}"
        );
    }
}

#[tokio::test]
async fn a_null_origin_is_refused_with_403() {
    let gw = Gateway::start(1).await;
    assert_eq!(
        upgrade(&gw, Some(&own_host(&gw)), Some("null")).await.err(),
        Some(403)
    );
}

#[tokio::test]
async fn dns_rebinding_is_refused_by_host_even_when_origin_agrees() {
    let gw = Gateway::start(1).await;
    let rebound = format!("evil.example:{}", port(&gw));
    let origin = format!("http://{rebound}");
    assert_eq!(
        upgrade(&gw, Some(&rebound), Some(&origin)).await.err(),
        Some(403)
    );
}

#[tokio::test]
async fn same_origin_via_127_0_0_1_and_via_localhost_is_accepted() {
    let gw = Gateway::start(1).await;
    for host in [own_host(&gw), format!("localhost:{}", port(&gw))] {
        let ws = upgrade(&gw, Some(&host), Some(&format!("http://{host}")))
            .await
            .unwrap_or_else(|status| panic!("{host} refused with {status}"));
        assert_eq!(hello_answer(ws, None).await, "ready", "{host}");
    }
    // Names are compared as browsers write them, whatever the case.
    let host = format!("LocalHost:{}", port(&gw));
    let ws = upgrade(
        &gw,
        Some(&host),
        Some(&format!("HTTP://localhost:{}", port(&gw))),
    )
    .await
    .expect("case-insensitive");
    assert_eq!(hello_answer(ws, None).await, "ready");
}

#[tokio::test]
async fn allowed_origin_adds_an_origin_and_nothing_else() {
    let gw = Gateway::start_with(1, |c| {
        c.allowed_origins = vec!["https://chat.example.org".into()]
    })
    .await;
    let host = own_host(&gw);
    let ws = upgrade(&gw, Some(&host), Some("https://chat.example.org"))
        .await
        .expect("listed origin");
    assert_eq!(hello_answer(ws, None).await, "ready");
    let ws = upgrade(&gw, Some(&host), Some(&format!("http://{host}")))
        .await
        .expect("own origin still");
    assert_eq!(hello_answer(ws, None).await, "ready");
    for origin in ["http://chat.example.org", "https://evil.example", "null"] {
        assert_eq!(
            upgrade(&gw, Some(&host), Some(origin)).await.err(),
            Some(403),
            "{origin}"
        );
    }
    // A listed origin does not make a foreign Host acceptable.
    assert_eq!(
        upgrade(&gw, Some("evil.example"), Some("https://chat.example.org"))
            .await
            .err(),
        Some(403)
    );
}

#[tokio::test]
async fn allowed_host_lets_a_proxy_name_through() {
    let name = "aria.box.lan";
    let plain = Gateway::start(1).await;
    let host = format!("{name}:{}", port(&plain));
    let origin = format!("http://{host}");
    assert_eq!(
        upgrade(&plain, Some(&host), Some(&origin)).await.err(),
        Some(403),
        "not served by default"
    );

    let gw = Gateway::start_with(1, |c| c.allowed_hosts = vec![name.into()]).await;
    let host = format!("{name}:{}", port(&gw));
    let ws = upgrade(&gw, Some(&host), Some(&format!("http://{host}")))
        .await
        .expect("listed host");
    assert_eq!(hello_answer(ws, None).await, "ready");
    // Behind a TLS proxy on the default port: https origin, Host without port.
    let ws = upgrade(&gw, Some(name), Some(&format!("https://{name}")))
        .await
        .expect("https through a proxy");
    assert_eq!(hello_answer(ws, None).await, "ready");
    // The name is allowed, not any page that claims another one.
    assert_eq!(
        upgrade(&gw, Some(&host), Some("http://evil.example"))
            .await
            .err(),
        Some(403)
    );
}

#[tokio::test]
async fn no_origin_is_allowed_and_still_needs_the_token() {
    let open = Gateway::start(1).await;
    let ws = upgrade(&open, Some("anything.example"), None)
        .await
        .expect("non-browser client");
    assert_eq!(hello_answer(ws, None).await, "ready");

    let locked = Gateway::start_with(1, |c| c.token = Some("s3cret".into())).await;
    let ws = upgrade(&locked, None, None).await.expect("upgrade");
    assert_eq!(hello_answer(ws, None).await, "error unauthorized");
    let ws = upgrade(&locked, None, None).await.expect("upgrade");
    assert_eq!(hello_answer(ws, Some("s3cret")).await, "ready");
}

#[tokio::test]
async fn an_allowed_origin_still_needs_the_token() {
    let gw = Gateway::start_with(1, |c| c.token = Some("s3cret".into())).await;
    let host = own_host(&gw);
    let origin = format!("http://{host}");
    let ws = upgrade(&gw, Some(&host), Some(&origin))
        .await
        .expect("own origin");
    assert_eq!(hello_answer(ws, Some("wrong")).await, "error unauthorized");
    let ws = upgrade(&gw, Some(&host), Some(&origin))
        .await
        .expect("own origin");
    assert_eq!(hello_answer(ws, Some("s3cret")).await, "ready");
}

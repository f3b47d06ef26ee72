//! No open gateway on the network: the real binary refuses a non-loopback
//! address without a token, `--generate-token` makes (once) and reuses a
//! token, refused upgrades are logged with the offending value, and wrong
//! `hello` tokens are throttled per client address.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::{hello, Client, Gateway};
use serde_json::json;
use tokio::net::TcpSocket;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// The binary, its stdout and stderr lines on one channel (stderr tagged).
struct Process {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Process {
    fn spawn(args: &[&str], data_dir: &Path) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_aria-gateway"))
            .args(args)
            .arg("--data-dir")
            .arg(data_dir)
            .arg("--static-dir")
            .arg(data_dir.join("no-client"))
            .env_remove("ARIA_TOKEN")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start aria-gateway");
        let (tx, lines) = mpsc::channel();
        let pump = |stream: Box<dyn Read + Send>, tag: &'static str| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(format!("{tag}{line}"));
                }
            });
        };
        pump(Box::new(child.stdout.take().expect("stdout")), "");
        pump(Box::new(child.stderr.take().expect("stderr")), "stderr: ");
        Process { child, lines }
    }

    /// Lines until one contains `needle`; panics after 30 s.
    fn until(&self, needle: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.contains(needle);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no line with {needle:?}; got:\n{}", seen.join("\n")),
            }
        }
    }

    /// The port of the "listening on" line.
    fn port(&self) -> (u16, Vec<String>) {
        let lines = self.until("aria-gateway listening on http://");
        let addr: SocketAddr = lines
            .last()
            .and_then(|l| l.split("listening on http://").nth(1))
            .and_then(|a| a.trim().parse().ok())
            .expect("address");
        (addr.port(), lines)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn binding_all_interfaces_without_a_token_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_aria-gateway"))
            .args(["--addr", addr, "--data-dir"])
            .arg(dir.path())
            .env_remove("ARIA_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run aria-gateway");
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{addr}: the gateway started and kept running");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let output = child.wait_with_output().expect("output");
        assert!(!status.success(), "{addr}: it exited with success");
        assert!(
            output.stdout.is_empty(),
            "{addr}: it printed a listening line"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        for needle in [
            "without a token",
            "--token",
            "ARIA_TOKEN",
            "--generate-token",
        ] {
            assert!(
                stderr.contains(needle),
                "{addr}: {needle:?} missing in {stderr}"
            );
        }
    }
}

#[tokio::test]
async fn generate_token_makes_one_token_prints_it_once_and_reuses_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = Process::spawn(&["--addr", "0.0.0.0:0", "--generate-token"], dir.path());
    let (port, lines) = first.port();
    let printed = lines
        .iter()
        .find_map(|l| l.split("new token (stored in ").nth(1))
        .and_then(|rest| rest.split("): ").nth(1))
        .map(str::trim)
        .expect("the token was printed")
        .to_string();
    assert_eq!(printed.len(), 64, "{printed}");
    let url = format!("ws://127.0.0.1:{port}/ws");
    assert_eq!(
        Client::connect(&url, Some(&printed)).await.ready["type"],
        "ready"
    );
    let mut wrong = Client {
        ws: crate::support::open(&url).await,
        ready: json!(null),
    };
    wrong.send(hello(Some("guess"))).await;
    assert_eq!(wrong.recv().await["code"], "unauthorized");

    let file = dir.path().join("token");
    assert_eq!(
        std::fs::read_to_string(&file).expect("token file").trim(),
        printed
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    }
    drop(first);

    let again = Process::spawn(&["--addr", "0.0.0.0:0", "--generate-token"], dir.path());
    let (port, lines) = again.port();
    assert!(
        lines.iter().all(|l| !l.contains(&printed)),
        "printed again: {lines:?}"
    );
    let url = format!("ws://127.0.0.1:{port}/ws");
    assert_eq!(
        Client::connect(&url, Some(&printed)).await.ready["type"],
        "ready"
    );
}

#[tokio::test]
async fn a_refused_upgrade_is_logged_with_the_offending_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gateway = Process::spawn(&["--addr", "127.0.0.1:0"], dir.path());
    let (port, _) = gateway.port();
    let mut request = format!("ws://127.0.0.1:{port}/ws")
        .into_client_request()
        .expect("request");
    let headers = request.headers_mut();
    headers.insert("Origin", "http://evil.example".parse().expect("header"));
    assert!(tokio_tungstenite::connect_async(request).await.is_err());
    let line = gateway.until("refused WebSocket").pop().expect("line");
    assert!(line.contains("WARN"), "{line}");
    assert!(line.contains("http://evil.example"), "{line}");

    let mut request = format!("ws://127.0.0.1:{port}/ws")
        .into_client_request()
        .expect("request");
    let headers = request.headers_mut();
    headers.insert(
        "Host",
        format!("evil.example:{port}").parse().expect("header"),
    );
    headers.insert(
        "Origin",
        format!("http://evil.example:{port}")
            .parse()
            .expect("header"),
    );
    assert!(tokio_tungstenite::connect_async(request).await.is_err());
    let line = gateway.until("refused WebSocket").pop().expect("line");
    assert!(
        line.contains(&format!("Host \"evil.example:{port}\"")),
        "{line}"
    );
}

/// One `hello` from local address `from`: the answer's code (or type) and
/// the close code.
async fn hello_from(gw: &Gateway, from: &str, token: &str) -> (String, Option<u16>) {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(format!("{from}:0").parse().expect("addr"))
        .expect("bind");
    let stream = socket.connect(gw.server.addr()).await.expect("connect");
    let stream = tokio_tungstenite::MaybeTlsStream::Plain(stream);
    let (ws, _) = tokio_tungstenite::client_async(gw.ws_url(), stream)
        .await
        .expect("upgrade");
    let mut client = Client {
        ws,
        ready: json!(null),
    };
    client.send(hello(Some(token))).await;
    let answer = client.recv().await;
    if answer["type"] == "ready" {
        return ("ready".into(), None);
    }
    let code = answer["code"].as_str().unwrap_or("?").to_string();
    let close = client.recv_close().await.map(|f| u16::from(f.code));
    (code, close)
}

#[tokio::test]
async fn wrong_tokens_are_throttled_per_client_address() {
    let gw = Gateway::start_with(1, |c| c.token = Some("s3cret".into())).await;
    for i in 0..10 {
        let answer = hello_from(&gw, "127.0.0.1", &format!("guess-{i}")).await;
        assert_eq!(answer, ("unauthorized".into(), Some(4401)), "guess {i}");
    }
    // Blocked now, even with the right token, and told to come back later.
    assert_eq!(
        hello_from(&gw, "127.0.0.1", "s3cret").await,
        ("rate_limited".into(), Some(1013))
    );
    assert_eq!(
        hello_from(&gw, "127.0.0.1", "guess-11").await,
        ("rate_limited".into(), Some(1013))
    );
    // Another address is not.
    assert_eq!(hello_from(&gw, "127.0.0.2", "s3cret").await.0, "ready");
}

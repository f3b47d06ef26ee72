//! A TCP proxy on a loopback port between the browser and a gateway, to
//! play the network: cut every connection at once (a dropped Wi-Fi), go
//! silent without closing anything (a dead path: only the heartbeat can
//! tell), and point at another upstream (a gateway restarted on a new
//! port) while the app keeps the same address. It counts connections, so
//! a test can tell whether the app is retrying.
//!
//! ```ignore
//! let proxy = TcpProxy::start(gateway.addr()).await;
//! b.goto(&format!("{}?gateway={}", server.url(), proxy.ws_url())).await;
//! proxy.cut_all();                  // every socket drops now
//! proxy.set_upstream(restarted.addr());
//! proxy.set_blackhole(true);        // bytes vanish, nothing closes
//! ```

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

struct State {
    upstream: SocketAddr,
    blackhole: bool,
    accepted: Vec<Instant>,
    /// The "frozen" flag of every connection opened so far.
    frozen: Vec<Arc<AtomicBool>>,
}

pub struct TcpProxy {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    cut: watch::Sender<u64>,
    accept: tokio::task::JoinHandle<()>,
}

impl TcpProxy {
    pub async fn start(upstream: SocketAddr) -> TcpProxy {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            upstream,
            blackhole: false,
            accepted: Vec::new(),
            frozen: Vec::new(),
        }));
        let (cut, _) = watch::channel(0u64);
        let shared = state.clone();
        let cut_rx = cut.subscribe();
        let accept = tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                let frozen = Arc::new(AtomicBool::new(false));
                let upstream = {
                    let mut st = shared.lock().unwrap();
                    st.accepted.push(Instant::now());
                    st.frozen.push(frozen.clone());
                    st.upstream
                };
                let state = shared.clone();
                let mut cut = cut_rx.clone();
                cut.mark_unchanged();
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(upstream).await else {
                        return; // upstream down: the client sees its socket close
                    };
                    let _ = client.set_nodelay(true);
                    let _ = server.set_nodelay(true);
                    let (cr, cw) = client.into_split();
                    let (sr, sw) = server.into_split();
                    tokio::select! {
                        _ = pump(cr, sw, state.clone(), frozen.clone()) => {}
                        _ = pump(sr, cw, state.clone(), frozen.clone()) => {}
                        _ = cut.changed() => {}
                    }
                    // Dropping both halves closes both sides at once.
                });
            }
        });
        TcpProxy {
            addr,
            state,
            cut,
            accept,
        }
    }

    /// `ws://PROXY/ws`, for the app's `?gateway=`.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// How many connections the app opened through the proxy so far.
    pub fn connections(&self) -> usize {
        self.state.lock().unwrap().accepted.len()
    }

    /// Closes every open connection through the proxy now (both sides).
    pub fn cut_all(&self) {
        self.cut.send_modify(|n| *n += 1);
    }

    /// New connections go to `upstream` from now on.
    pub fn set_upstream(&self, upstream: SocketAddr) {
        self.state.lock().unwrap().upstream = upstream;
    }

    /// While on, bytes in either direction are swallowed and nothing is
    /// closed, on every connection, old and new: both ends look alive.
    pub fn set_blackhole(&self, on: bool) {
        self.state.lock().unwrap().blackhole = on;
    }

    /// The connections open now go silent for good (bytes swallowed,
    /// nothing closed); new connections work normally.
    pub fn freeze_existing(&self) {
        for f in &self.state.lock().unwrap().frozen {
            f.store(true, Ordering::SeqCst);
        }
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut_all();
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    state: Arc<Mutex<State>>,
    frozen: Arc<AtomicBool>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if frozen.load(Ordering::SeqCst) || state.lock().unwrap().blackhole {
            continue;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

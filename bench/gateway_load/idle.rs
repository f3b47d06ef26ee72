//! Idle sockets: how many authenticated sockets one gateway holds, and its
//! resident memory per idle socket.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::task::JoinSet;

use super::device::{self, Socket};
use super::server::LoadGateway;

/// Sockets connecting at once (the accept queue and the handshakes).
const CONCURRENT_CONNECTS: usize = 200;

pub struct Idle {
    /// Sockets that said hello, got `ready` and still answered a ping after
    /// sitting idle.
    pub held: usize,
    pub rss_per_socket_kib: f64,
    pub rss_before_mib: f64,
    pub rss_after_mib: f64,
    pub connect_secs: f64,
    pub first_error: Option<String>,
}

pub async fn run(ws_url: &str, gateway: &LoadGateway, count: usize) -> Idle {
    // One connection first, so what every connection shares is paid for.
    if let Ok((ws, _)) = device::connect(ws_url, "warm-up").await {
        drop(ws);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_before = gateway.rss_kib();
    let started = Instant::now();
    let mut sockets: Vec<Socket> = Vec::with_capacity(count);
    let mut first_error = None;
    let mut pending = JoinSet::new();
    let mut next = 0;
    while next < count || !pending.is_empty() {
        while next < count && pending.len() < CONCURRENT_CONNECTS {
            let url = ws_url.to_string();
            let name = format!("idle-{next}");
            pending.spawn(async move { device::connect(&url, &name).await });
            next += 1;
        }
        match pending.join_next().await {
            Some(Ok(Ok((ws, _)))) => sockets.push(ws),
            Some(Ok(Err(e))) => {
                first_error.get_or_insert(e);
            }
            Some(Err(e)) => {
                first_error.get_or_insert(e.to_string());
            }
            None => {}
        }
    }
    let connect_secs = started.elapsed().as_secs_f64();
    // Idle for a moment, then measure, then prove each is still served.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_after = gateway.rss_kib();
    let mut pings = JoinSet::new();
    for (i, mut ws) in sockets.into_iter().enumerate() {
        pings.spawn(async move {
            device::send(&mut ws, &json!({"type": "ping", "t": i})).await?;
            device::reply(&mut ws, "pong", None).await.map(|_| ws)
        });
    }
    let mut held = Vec::new();
    while let Some(result) = pings.join_next().await {
        match result {
            Ok(Ok(ws)) => held.push(ws),
            Ok(Err(e)) => {
                first_error.get_or_insert(e);
            }
            Err(e) => {
                first_error.get_or_insert(e.to_string());
            }
        }
    }
    let per_socket = (rss_after - rss_before) / held.len().max(1) as f64;
    Idle {
        held: held.len(),
        rss_per_socket_kib: per_socket,
        rss_before_mib: rss_before / 1024.0,
        rss_after_mib: rss_after / 1024.0,
        connect_secs,
        first_error,
    }
}

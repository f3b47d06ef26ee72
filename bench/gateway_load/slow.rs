//! A slow reader: one device reads nothing while the others read turns that
//! stream and flood in two threads. Run once without it and once with it:
//! the others' delivery latency should not change, the gateway should drop
//! the slow device (its queue is bounded) and the device should then fill
//! its gap from history with nothing lost or doubled.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use super::device::{self, Seen, Socket};
use super::fanout::Readers;
use super::latency::{delivery, Delivery};
use super::server::LoadGateway;

/// The slow device's kernel receive buffer: a phone on a slow link, not
/// loopback's megabytes.
const SLOW_WINDOW: u32 = 8 * 1024;

/// How long without a frame means the slow device has read everything.
const QUIET: Duration = Duration::from_secs(2);

/// How long after every device left the gateway's memory is read again:
/// it gives the heap back a few seconds after devices go.
const AFTER_LEAVING: Duration = Duration::from_secs(8);

/// The slow device's fate.
pub struct Slow {
    /// The close code the gateway sent it (1013: too slow).
    pub closed: Option<u16>,
    /// Items of both threads missing from, or doubled in, what it had live
    /// plus what it fetched afterwards.
    pub lost: usize,
    pub doubled: usize,
}

pub struct SlowRun {
    pub others: Delivery,
    pub rss_start_mib: f64,
    pub rss_peak_mib: f64,
    pub rss_end_mib: f64,
    /// Once every device has left.
    pub rss_left_mib: f64,
    pub slow: Option<Slow>,
}

/// Sends `text` as a new message to `channel` again and again, each after
/// the previous turn ended, until `until`.
async fn keep_busy(
    mut ws: Socket,
    channel: String,
    text: &str,
    until: Instant,
) -> Result<(), String> {
    let mut n = 0;
    while Instant::now() < until {
        let send = json!({"type": "message.send", "channel_id": channel, "text": text,
                          "client_msg_id": format!("{channel}-{n}")});
        device::send(&mut ws, &send).await?;
        loop {
            let typing = device::reply(&mut ws, "typing", None).await?;
            if typing["on"] == false && typing["channel_id"] == channel.as_str() {
                break;
            }
        }
        n += 1;
    }
    Ok(())
}

async fn create_channel(ws: &mut Socket, title: &str) -> Result<String, String> {
    device::send(ws, &json!({"type": "channel.create", "title": title})).await?;
    let created: Value = device::reply(ws, "channel.created", None).await?;
    Ok(created["channel"]["channel_id"]
        .as_str()
        .unwrap_or("")
        .to_string())
}

pub async fn run(
    gateway: &LoadGateway,
    readers: usize,
    busy: Duration,
    with_slow: bool,
) -> Result<SlowRun, String> {
    let ws_url = gateway.gateway.ws_url();
    let (mut setup, _) = device::connect(&ws_url, "slow-setup").await?;
    let streamed = create_channel(&mut setup, "streamed").await?;
    let flooded = create_channel(&mut setup, "flooded").await?;
    drop(setup);
    let others = Readers::connect(&ws_url, readers, "reader").await;
    let slow = match with_slow {
        true => Some(
            device::connect_small_window(&ws_url, "slow", SLOW_WINDOW)
                .await?
                .0,
        ),
        false => None,
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_start = gateway.rss_kib();

    let until = Instant::now() + busy;
    let (a, _) = device::connect(&ws_url, "driver-stream").await?;
    let (b, _) = device::connect(&ws_url, "driver-flood").await?;
    let stream = tokio::spawn(keep_busy(a, streamed.clone(), "/demo stream 16", until));
    let flood = tokio::spawn(keep_busy(b, flooded.clone(), "/demo flood 300", until));
    let mut rss_peak = rss_start;
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(250)).await;
        rss_peak = rss_peak.max(gateway.rss_kib());
    }
    for driver in [stream, flood] {
        driver.await.map_err(|e| e.to_string())??;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_end = gateway.rss_kib();
    let results = others.finish().await;
    let seen: Vec<&Seen> = results.iter().map(|(_, s)| s).collect();
    let slow = match slow {
        Some(ws) => Some(catch_up(&ws_url, ws, &[&streamed, &flooded]).await?),
        None => None,
    };
    let others = delivery(&seen);
    drop(results);
    tokio::time::sleep(AFTER_LEAVING).await;
    Ok(SlowRun {
        others,
        rss_start_mib: rss_start / 1024.0,
        rss_peak_mib: rss_peak / 1024.0,
        rss_end_mib: rss_end / 1024.0,
        rss_left_mib: gateway.rss_kib() / 1024.0,
        slow,
    })
}

/// The slow device reads what it was sent until the gateway closes it (or
/// nothing more comes for 2 s: it was not dropped), reconnects, fills each
/// thread's gap and compares with the log.
async fn catch_up(ws_url: &str, mut ws: Socket, channels: &[&str]) -> Result<Slow, String> {
    let mut seen = Seen::default();
    while let Ok(Some(Ok(message))) = tokio::time::timeout(QUIET, ws.next()).await {
        match message {
            Message::Text(text) => device::note(&mut seen, &text),
            Message::Close(frame) => {
                seen.closed = frame.map(|f| f.code.into());
                break;
            }
            _ => {}
        }
    }
    drop(ws);
    let (mut ws, _) = device::connect(ws_url, "slow-again").await?;
    let (mut auditor, _) = device::connect(ws_url, "slow-auditor").await?;
    let (mut lost, mut doubled) = (0, 0);
    for channel in channels {
        let live: Vec<u64> = seen
            .seqs
            .iter()
            .filter(|(c, _)| c == channel)
            .map(|(_, s)| *s)
            .collect();
        let mut have: BTreeSet<u64> = live.iter().copied().collect();
        doubled += live.len() - have.len();
        let mut after = 0;
        while have.contains(&(after + 1)) {
            after += 1;
        }
        have.extend(device::fill_gap(&mut ws, channel, after, &mut Seen::default()).await?);
        let log: BTreeSet<u64> = device::fill_gap(&mut auditor, channel, 0, &mut Seen::default())
            .await?
            .into_iter()
            .collect();
        lost += log.difference(&have).count();
    }
    Ok(Slow {
        closed: seen.closed,
        lost,
        doubled,
    })
}

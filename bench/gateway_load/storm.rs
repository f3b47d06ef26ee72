//! A reconnect storm: every device drops at once while a turn logs items,
//! and each reconnects within one second and fills its gap from history.
//! Witness devices that stay connected time ping round trips meanwhile.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::task::JoinSet;

use super::device::{self, Seen, Socket};
use super::fanout::Readers;
use crate::measure::percentile;

/// The thread the storm's turns log into.
const CHANNEL: &str = "c_general";
const WITNESSES: usize = 10;

pub struct Storm {
    pub devices: usize,
    /// From the drop until the last device had everything it missed.
    pub all_caught_up_secs: f64,
    /// Devices whose items (live and fetched) were not exactly the log.
    pub wrong: usize,
    /// Devices that could not reconnect or fill their gap, and why the
    /// first one could not.
    pub failed: usize,
    pub first_failure: Option<String>,
    /// Items a device received live twice.
    pub doubled: usize,
    pub witness_rtt_p99_ms: f64,
    pub witness_rtt_p50_ms: f64,
    pub items_missed_per_device: f64,
}

/// The reconnect delay of device `i` of `n`: even steps over one second,
/// in an order shuffled by a prime stride.
fn spread(i: usize, n: usize) -> Duration {
    let slot = (i * 7919) % n.max(1);
    Duration::from_secs_f64(slot as f64 / n.max(1) as f64)
}

/// The seqs a device has, from 1 up to its first gap.
fn contiguous(have: &BTreeSet<u64>) -> u64 {
    let mut n = 0;
    while have.contains(&(n + 1)) {
        n += 1;
    }
    n
}

fn seqs_of(seen: &Seen) -> Vec<u64> {
    seen.seqs
        .iter()
        .filter(|(c, _)| c == CHANNEL)
        .map(|(_, s)| *s)
        .collect()
}

/// One device's storm: wait, reconnect, fill the gap, read on until the
/// driver's turn is over. Returns every seq it received live after the
/// reconnect, the seqs fetched, and when it had everything it missed.
async fn reconnect(
    ws_url: String,
    name: String,
    delay: Duration,
    before: BTreeSet<u64>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(Seen, Vec<u64>, Instant), String> {
    tokio::time::sleep(delay).await;
    let (mut ws, ready) = device::connect(&ws_url, &name).await?;
    let missed_up_to = ready["channels"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["channel_id"] == CHANNEL))
        .and_then(|c| c["last_seq"].as_u64())
        .unwrap_or(0);
    let mut seen = Seen::default();
    let fetched = device::fill_gap(&mut ws, CHANNEL, contiguous(&before), &mut seen).await?;
    let caught_up = Instant::now();
    let have_all = (1..=missed_up_to).all(|s| before.contains(&s) || fetched.contains(&s));
    if !have_all {
        return Err(format!("{name} still misses items up to {missed_up_to}"));
    }
    let (_, rest) = device::read(ws, stop).await;
    seen.seqs.extend(rest.seqs);
    Ok((seen, fetched, caught_up))
}

/// Witnesses ping every 100 ms until `stop`; their round trips in ms.
async fn witness(mut ws: Socket, stop: tokio::sync::watch::Receiver<bool>) -> Vec<f64> {
    let mut rtts = Vec::new();
    let mut t = 0u64;
    while !*stop.borrow() {
        let started = Instant::now();
        if device::send(&mut ws, &json!({"type": "ping", "t": t}))
            .await
            .is_err()
            || device::reply(&mut ws, "pong", None).await.is_err()
        {
            break;
        }
        rtts.push(started.elapsed().as_secs_f64() * 1000.0);
        t += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    rtts
}

/// Runs a `/demo flood N` turn from `driver` and waits for its end.
async fn flood(driver: &mut Socket, calls: usize, id: &str) -> Result<(), String> {
    let send = json!({"type": "message.send", "text": format!("/demo flood {calls}"), "client_msg_id": id});
    device::send(driver, &send).await?;
    loop {
        let typing = device::reply(driver, "typing", None).await?;
        if typing["on"] == false {
            return Ok(());
        }
    }
}

pub async fn run(ws_url: &str, count: usize, flood_calls: usize) -> Result<Storm, String> {
    let (mut driver, _) = device::connect(ws_url, "storm-driver").await?;
    let readers = Readers::connect(ws_url, count, "storm").await;
    let (stop_witnesses, witnesses_stop) = tokio::sync::watch::channel(false);
    let mut witnesses = JoinSet::new();
    for i in 0..WITNESSES {
        let (ws, _) = device::connect(ws_url, &format!("witness-{i}")).await?;
        witnesses.spawn(witness(ws, witnesses_stop.clone()));
    }
    // Items everyone receives live, then the drop.
    flood(&mut driver, flood_calls, "storm-1").await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before: Vec<BTreeSet<u64>> = readers
        .finish()
        .await
        .into_iter()
        .map(|(ws, seen)| {
            drop(ws);
            seqs_of(&seen).into_iter().collect()
        })
        .collect();
    let dropped_at = Instant::now();

    // A second flood logs while they are away and while they come back.
    let (stop_devices, devices_stop) = tokio::sync::watch::channel(false);
    let mut devices = JoinSet::new();
    for (i, have) in before.iter().enumerate() {
        let back = reconnect(
            ws_url.to_string(),
            format!("storm-{i}"),
            spread(i, count),
            have.clone(),
            devices_stop.clone(),
        );
        devices.spawn(async move { (i, back.await) });
    }
    flood(&mut driver, flood_calls, "storm-2").await?;
    // Let every device come back before telling them to stop.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let _ = stop_devices.send(true);
    let _ = stop_witnesses.send(true);

    let mut log = BTreeSet::new();
    let fetched_all = device::fill_gap(&mut driver, CHANNEL, 0, &mut Seen::default()).await?;
    log.extend(fetched_all);
    let mut wrong = 0;
    let mut failed = 0;
    let mut first_failure = None;
    let mut doubled = 0;
    let mut last_caught_up = dropped_at;
    let mut missed = Vec::new();
    while let Some(result) = devices.join_next().await {
        let (i, seen, fetched, caught_up) = match result {
            Ok((i, Ok((seen, fetched, caught_up)))) => (i, seen, fetched, caught_up),
            Ok((_, Err(e))) => {
                failed += 1;
                first_failure.get_or_insert(e);
                continue;
            }
            Err(e) => {
                failed += 1;
                first_failure.get_or_insert(e.to_string());
                continue;
            }
        };
        last_caught_up = last_caught_up.max(caught_up);
        let live = seqs_of(&seen);
        let live_set: BTreeSet<u64> = live.iter().copied().collect();
        doubled += live.len() - live_set.len();
        missed.push(fetched.len() as f64);
        let mut have = before.get(i).cloned().unwrap_or_default();
        have.extend(live_set);
        have.extend(fetched);
        if have != log {
            wrong += 1;
        }
    }
    let mut rtts = Vec::new();
    while let Some(Ok(r)) = witnesses.join_next().await {
        rtts.extend(r);
    }
    Ok(Storm {
        devices: count,
        all_caught_up_secs: last_caught_up.duration_since(dropped_at).as_secs_f64(),
        wrong,
        failed,
        first_failure,
        doubled,
        witness_rtt_p99_ms: percentile(&rtts, 99.0),
        witness_rtt_p50_ms: percentile(&rtts, 50.0),
        items_missed_per_device: missed.iter().sum::<f64>() / missed.len().max(1) as f64,
    })
}

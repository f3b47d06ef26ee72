//! Delivery latency from what the devices saw. The gateway encodes each
//! frame once and queues it to every device; the first device to receive a
//! frame marks when the gateway sent it (loopback adds tens of
//! microseconds), and every device's receipt after that is its delivery
//! latency. The gateway sends a device that fell behind only the newest of
//! a message's queued snapshots; the ones it skipped reach that device, in
//! substance, with the newest one.

use std::collections::HashMap;
use std::time::Instant;

use super::device::{Receipt, Seen};
use crate::measure::percentile;

#[derive(Debug, Clone, Copy, Default)]
pub struct Delivery {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Frames received by all devices per second, over the span from the
    /// first receipt to the last.
    pub frames_per_sec: f64,
    pub mib_per_sec: f64,
    /// Frames received and measured.
    pub received: usize,
    /// Deliveries measured (broadcasts times devices, a skipped snapshot
    /// counted when its newer one arrived).
    pub frames: usize,
}

/// A frame's identity across devices: its key and which occurrence of
/// those bytes it is.
type FrameId = (u64, u32);

/// Latencies of the frames at least half the devices received, and of every
/// streamed snapshot. A frame that repeats (the same bytes twice) is told
/// apart by its occurrence. A snapshot the gateway skipped for a device
/// (superseded by a newer one of the same message while still queued)
/// counts as delivered when that newer one arrived.
pub fn delivery(devices: &[&Seen]) -> Delivery {
    let mut first: HashMap<FrameId, (Instant, usize)> = HashMap::new();
    let mut snapshots: HashMap<u64, Vec<(Instant, FrameId)>> = HashMap::new();
    for seen in devices {
        for (id, r) in identified(seen) {
            let entry = first.entry(id).or_insert((r.at, 0));
            entry.0 = entry.0.min(r.at);
            entry.1 += 1;
            if let (Some(message), 1) = (r.snapshot_of, entry.1) {
                snapshots.entry(message).or_default().push((r.at, id));
            }
        }
    }
    // Each message's snapshots in the order the gateway sent them.
    let mut place: HashMap<FrameId, (u64, usize)> = HashMap::new();
    let mut ordered: HashMap<u64, Vec<FrameId>> = HashMap::new();
    for (message, mut list) in snapshots {
        list.sort_by_key(|&(_, id)| first.get(&id).map(|f| f.0));
        for (i, (_, id)) in list.iter().enumerate() {
            place.insert(*id, (message, i));
        }
        ordered.insert(message, list.into_iter().map(|(_, id)| id).collect());
    }
    let wide = devices.len().div_ceil(2).max(1);
    let mut latencies = Vec::new();
    let (mut earliest, mut latest): (Option<Instant>, Option<Instant>) = (None, None);
    let mut bytes = 0u64;
    let mut received = 0usize;
    for seen in devices {
        bytes += seen.bytes;
        // Per message, the place of the last snapshot this device received.
        let mut reached: HashMap<u64, usize> = HashMap::new();
        for (id, r) in identified(seen) {
            let Some((sent, count)) = first.get(&id) else {
                continue;
            };
            let snapshot = place.get(&id);
            if *count < wide && snapshot.is_none() {
                continue;
            }
            let ms = |sent: Instant| r.at.duration_since(sent).as_secs_f64() * 1000.0;
            if let Some(&(message, at)) = snapshot {
                let from = reached.get(&message).map_or(0, |&last| last + 1);
                let skipped = ordered[&message].get(from..at).unwrap_or_default();
                for id in skipped {
                    if let Some((sent, _)) = first.get(id) {
                        latencies.push(ms(*sent));
                    }
                }
                reached.insert(message, at);
            }
            latencies.push(ms(*sent));
            received += 1;
            earliest = Some(earliest.map_or(r.at, |e| e.min(r.at)));
            latest = Some(latest.map_or(r.at, |l| l.max(r.at)));
        }
    }
    let span = match (earliest, latest) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64().max(1e-3),
        _ => f64::NAN,
    };
    Delivery {
        p50_ms: percentile(&latencies, 50.0),
        p99_ms: percentile(&latencies, 99.0),
        max_ms: latencies.iter().copied().fold(f64::NAN, f64::max),
        frames_per_sec: received as f64 / span,
        received,
        mib_per_sec: bytes as f64 / span / f64::from(1u32 << 20),
        frames: latencies.len(),
    }
}

/// A device's receipts with the identity of each frame.
fn identified(seen: &Seen) -> impl Iterator<Item = (FrameId, &Receipt)> {
    let mut occurrence: HashMap<u64, u32> = HashMap::new();
    seen.receipts.iter().map(move |r| {
        let n = occurrence.entry(r.key).or_default();
        *n += 1;
        ((r.key, *n), r)
    })
}

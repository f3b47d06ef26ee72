//! Delivery latency from what the devices saw. The gateway encodes each
//! frame once and queues it to every device; the first device to receive a
//! frame marks when the gateway sent it (loopback adds tens of
//! microseconds), and every device's receipt after that is its delivery
//! latency.

use std::collections::HashMap;
use std::time::Instant;

use super::device::Seen;
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
    /// Frames measured (broadcasts times devices).
    pub frames: usize,
}

/// Latencies of the frames at least half the devices received. A frame
/// that repeats (the same bytes twice) is told apart by its occurrence.
pub fn delivery(devices: &[&Seen]) -> Delivery {
    let mut first: HashMap<(u64, u32), (Instant, usize)> = HashMap::new();
    for seen in devices {
        let mut occurrence: HashMap<u64, u32> = HashMap::new();
        for r in &seen.receipts {
            let n = occurrence.entry(r.key).or_default();
            *n += 1;
            let entry = first.entry((r.key, *n)).or_insert((r.at, 0));
            entry.0 = entry.0.min(r.at);
            entry.1 += 1;
        }
    }
    let wide = devices.len().div_ceil(2).max(1);
    let mut latencies = Vec::new();
    let (mut earliest, mut latest): (Option<Instant>, Option<Instant>) = (None, None);
    let mut bytes = 0u64;
    for seen in devices {
        bytes += seen.bytes;
        let mut occurrence: HashMap<u64, u32> = HashMap::new();
        for r in &seen.receipts {
            let n = occurrence.entry(r.key).or_default();
            *n += 1;
            let Some((sent, count)) = first.get(&(r.key, *n)) else {
                continue;
            };
            if *count < wide {
                continue;
            }
            latencies.push(r.at.duration_since(*sent).as_secs_f64() * 1000.0);
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
        frames_per_sec: latencies.len() as f64 / span,
        mib_per_sec: bytes as f64 / span / f64::from(1u32 << 20),
        frames: latencies.len(),
    }
}

//! What the in-page probe (`bench/probe.js`) recorded, and the numbers the
//! scenarios derive from it. Pure functions over plain data.

use serde::Deserialize;

/// One WebSocket message the app handled.
#[derive(Debug, Clone, Deserialize)]
pub struct SocketRecord(pub f64, pub f64, pub String, pub u64);

impl SocketRecord {
    pub fn start(&self) -> f64 {
        self.0
    }
    pub fn duration(&self) -> f64 {
        self.1
    }
    pub fn kind(&self) -> &str {
        &self.2
    }
}

/// One animation frame: rAF timestamp, work start, work end (after paint),
/// and 1 if a streamed answer's completed blocks grew in it.
#[derive(Debug, Clone, Deserialize)]
pub struct FrameRecord(pub f64, pub f64, pub f64, pub u8);

impl FrameRecord {
    pub fn vsync(&self) -> f64 {
        self.0
    }
    pub fn start(&self) -> f64 {
        self.1
    }
    pub fn end(&self) -> f64 {
        self.2
    }
    pub fn grew(&self) -> bool {
        self.3 != 0
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub js_heap_used: Option<f64>,
    pub wasm: Option<f64>,
    pub dom_nodes: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Script {
    pub invoker: Option<String>,
    pub duration: f64,
}

/// A long animation frame (over 50 ms) with the scripts that ran in it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LongFrame {
    pub start: f64,
    pub duration: f64,
    pub style_layout: f64,
    pub scripts: Vec<Script>,
}

/// `__bench.collect(since)`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Collected {
    pub now: f64,
    pub socket: Vec<SocketRecord>,
    pub frames: Vec<FrameRecord>,
    pub long_tasks: Vec<(f64, f64)>,
    pub loafs: Vec<LongFrame>,
    pub memory: Memory,
}

impl Collected {
    /// Only what happened in `[from, to]`.
    pub fn window(&self, from: f64, to: f64) -> Collected {
        let inside = |t: f64| t >= from && t <= to;
        Collected {
            now: self.now,
            socket: self
                .socket
                .iter()
                .filter(|s| inside(s.start()))
                .cloned()
                .collect(),
            frames: self
                .frames
                .iter()
                .filter(|f| inside(f.start()))
                .cloned()
                .collect(),
            long_tasks: self
                .long_tasks
                .iter()
                .filter(|t| inside(t.0))
                .copied()
                .collect(),
            loafs: self
                .loafs
                .iter()
                .filter(|l| inside(l.start))
                .cloned()
                .collect(),
            memory: self.memory.clone(),
        }
    }

    /// Start of the first message of `kind`, if any.
    pub fn first(&self, kind: &str) -> Option<f64> {
        self.socket
            .iter()
            .find(|s| s.kind() == kind)
            .map(SocketRecord::start)
    }

    /// Start of the last message of `kind`, if any.
    pub fn last(&self, kind: &str) -> Option<f64> {
        self.socket
            .iter()
            .rev()
            .find(|s| s.kind() == kind)
            .map(SocketRecord::start)
    }

    /// Main-thread time of each frame's rendering work: from its first
    /// scroll event or rAF callback to the end of paint, minus socket
    /// messages handled in between (they are counted on their own).
    pub fn render_times(&self) -> Vec<f64> {
        let mut i = 0;
        self.frames
            .iter()
            .map(|f| {
                while i < self.socket.len() && self.socket[i].start() < f.start() {
                    i += 1;
                }
                let inside: f64 = self.socket[i..]
                    .iter()
                    .take_while(|s| s.start() < f.end())
                    .map(SocketRecord::duration)
                    .sum();
                (f.end() - f.start() - inside).max(0.0)
            })
            .collect()
    }

    /// Main-thread time per rendered update: for every frame that shows at
    /// least one new message of `kind`, the time spent handling those
    /// messages since the previous frame plus the frame's rendering work,
    /// with the size of the newest of them. Snapshots are coalesced, so one
    /// rendered update may stand for several messages; a frame after the
    /// first update that appends completed blocks with no new message
    /// (what a burst left for it) is an update too, of the size last seen.
    pub fn update_costs(&self, kind: &str) -> Vec<(f64, u64)> {
        let render = self.render_times();
        let mut costs = Vec::new();
        let mut prev_start = f64::NEG_INFINITY;
        let mut last_size = None;
        let mut j = 0;
        for (f, r) in self.frames.iter().zip(render) {
            let mut handled = 0.0;
            let mut newest = None;
            while j < self.socket.len() && self.socket[j].start() < f.start() {
                let s = &self.socket[j];
                if s.start() >= prev_start && s.kind() == kind {
                    handled += s.duration();
                    newest = Some(s.3);
                }
                j += 1;
            }
            if newest.is_some() {
                last_size = newest;
            }
            match (newest, last_size) {
                (Some(bytes), _) => costs.push((handled + r, bytes)),
                (None, Some(bytes)) if f.grew() => costs.push((r, bytes)),
                _ => {}
            }
            prev_start = f.start();
        }
        costs
    }

    /// Frames the display would have shown but the page produced none:
    /// gaps between animation frames longer than one interval.
    pub fn missed_frames(&self) -> u64 {
        let interval = self.frame_interval();
        self.frames
            .windows(2)
            .map(|w| {
                let gap = w[1].vsync() - w[0].vsync();
                ((gap / interval).round() as u64).saturating_sub(1)
            })
            .sum()
    }

    /// The display's frame interval: the median gap between frames.
    pub fn frame_interval(&self) -> f64 {
        let gaps: Vec<f64> = self
            .frames
            .windows(2)
            .map(|w| w[1].vsync() - w[0].vsync())
            .collect();
        let m = median(&gaps);
        if m.is_finite() && m > 1.0 {
            m
        } else {
            1000.0 / 60.0
        }
    }

    pub fn longest_task(&self) -> f64 {
        self.long_tasks.iter().map(|t| t.1).fold(0.0, f64::max)
    }

    /// The worst long animation frame, described for the report.
    pub fn worst_frame(&self) -> Option<String> {
        let worst = self
            .loafs
            .iter()
            .max_by(|a, b| a.duration.total_cmp(&b.duration))?;
        let mut scripts: Vec<&Script> = worst.scripts.iter().collect();
        scripts.sort_by(|a, b| b.duration.total_cmp(&a.duration));
        let top: Vec<String> = scripts
            .iter()
            .take(3)
            .map(|s| {
                format!(
                    "{} {:.0} ms",
                    s.invoker.as_deref().unwrap_or("?"),
                    s.duration
                )
            })
            .collect();
        Some(format!(
            "worst frame {:.0} ms (style+layout+paint {:.0} ms; scripts: {})",
            worst.duration,
            worst.style_layout,
            if top.is_empty() {
                "none".to_string()
            } else {
                top.join(", ")
            }
        ))
    }
}

/// The `p`-th percentile (0..=100) by nearest rank; NaN when empty.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn median(values: &[f64]) -> f64 {
    percentile(values, 50.0)
}

pub fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NAN, f64::max)
}

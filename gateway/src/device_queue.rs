//! One device's queue of outgoing frames: bounded, drained in batches by its
//! connection, and a streaming snapshot still unsent when a newer snapshot
//! of the same message arrives is dropped.
//!
//! `message.update` carries the full text so far (§5) and the client shows
//! the newest snapshot as is, so a device that has fallen behind loses
//! nothing by skipping to the newest one: it catches up with one frame
//! instead of all of them, late. A snapshot is superseded only while no
//! other frame of its channel (nor one of no channel) is queued after it,
//! so what the device receives is what was published, in order, minus
//! those snapshots.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aria_protocol::ServerFrame;
use axum::extract::ws::Utf8Bytes;
use tokio::sync::Notify;

/// How far back from the newest queued frame a snapshot looks for the one
/// it supersedes: far enough for a hundred threads streaming at once,
/// short enough that a full queue costs little to push to.
const SUPERSEDE_LOOKBACK: usize = 128;
/// At most this many frames, or about this many bytes, go out per write.
const BATCH_FRAMES: usize = 32;
const BATCH_BYTES: usize = 64 * 1024;

/// A frame encoded once, shared by every device's queue.
#[derive(Debug)]
pub struct Frame {
    pub text: Utf8Bytes,
    channel_id: Option<Box<str>>,
    /// The message of a `message.update`.
    snapshot_of: Option<Box<str>>,
}

impl Frame {
    pub fn new(frame: &ServerFrame) -> Arc<Frame> {
        let snapshot_of = match frame {
            ServerFrame::MessageUpdate(update) => Some(update.message_id.as_str().into()),
            _ => None,
        };
        Arc::new(Frame {
            text: Utf8Bytes::from(frame.encode()),
            channel_id: frame.channel_id().map(Into::into),
            snapshot_of,
        })
    }

    /// Whether `newer` makes this queued frame unnecessary.
    fn superseded_by(&self, newer: &Frame) -> bool {
        self.snapshot_of.is_some()
            && self.snapshot_of == newer.snapshot_of
            && self.channel_id == newer.channel_id
    }

    /// Whether this queued frame must stay before `newer`'s snapshot, so
    /// none of its kind behind it may be superseded.
    fn orders(&self, newer: &Frame) -> bool {
        self.channel_id.is_none() || self.channel_id == newer.channel_id
    }
}

/// What became of a pushed frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed {
    Queued,
    /// The queue was full: the device is dropped and its queue emptied.
    Lagging,
    /// The queue no longer takes frames.
    Closed,
}

#[derive(Debug)]
pub struct DeviceQueue {
    state: Mutex<State>,
    /// Wakes the connection when a frame arrives or the queue closes.
    ready: Notify,
    capacity: usize,
}

#[derive(Debug)]
struct State {
    frames: VecDeque<Arc<Frame>>,
    open: bool,
}

impl DeviceQueue {
    pub fn new(capacity: usize) -> Self {
        Self {
            state: Mutex::new(State {
                frames: VecDeque::new(),
                open: true,
            }),
            ready: Notify::new(),
            capacity,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Plain data: a panic elsewhere while holding the lock leaves it usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `frame`, dropping the unsent snapshot it supersedes. A full
    /// queue is emptied at once (its frames freed) and closed: the device
    /// fills the gap from history after reconnecting.
    pub fn push(&self, frame: &Arc<Frame>) -> Pushed {
        let mut state = self.lock();
        if !state.open {
            return Pushed::Closed;
        }
        if frame.snapshot_of.is_some() {
            let superseded = state
                .frames
                .iter()
                .rev()
                .take(SUPERSEDE_LOOKBACK)
                .position(|queued| queued.superseded_by(frame) || queued.orders(frame))
                .map(|back| state.frames.len() - 1 - back)
                .filter(|&i| state.frames[i].superseded_by(frame));
            if let Some(i) = superseded {
                state.frames.remove(i);
            }
        }
        if state.frames.len() >= self.capacity {
            state.frames = VecDeque::new();
            state.open = false;
            drop(state);
            self.ready.notify_one();
            return Pushed::Lagging;
        }
        state.frames.push_back(Arc::clone(frame));
        drop(state);
        self.ready.notify_one();
        Pushed::Queued
    }

    /// Takes no more frames; those queued are still delivered.
    pub fn finish(&self) {
        self.lock().open = false;
        self.ready.notify_one();
    }

    pub fn len(&self) -> usize {
        self.lock().frames.len()
    }

    /// Waits for frames and moves the next few into `batch` (emptied
    /// first); false once the queue is closed and empty. Cancel-safe:
    /// frames are only taken in the poll that returns them.
    pub async fn next_batch(&self, batch: &mut Vec<Arc<Frame>>) -> bool {
        batch.clear();
        loop {
            {
                let mut state = self.lock();
                let mut bytes = 0;
                while bytes < BATCH_BYTES && batch.len() < BATCH_FRAMES {
                    let Some(frame) = state.frames.pop_front() else {
                        break;
                    };
                    bytes += frame.text.len();
                    batch.push(frame);
                }
                if !batch.is_empty() {
                    return true;
                }
                if !state.open {
                    return false;
                }
            }
            // A push between the check and here leaves a permit: no wake-up
            // is lost.
            self.ready.notified().await;
        }
    }
}

#[cfg(test)]
impl DeviceQueue {
    /// Every frame queued now, in the order its connection would send them.
    pub fn drain_now(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut batch = Vec::new();
        while futures_util::FutureExt::now_or_never(self.next_batch(&mut batch)) == Some(true) {
            out.extend(batch.iter().map(|f| f.text.to_string()));
        }
        out
    }

    /// Whether its connection would be told to close now.
    pub fn is_done(&self) -> bool {
        let mut batch = Vec::new();
        futures_util::FutureExt::now_or_never(self.next_batch(&mut batch)) == Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aria_protocol::{MessageUpdate, Ping, Typing};

    fn update(channel: &str, message: &str, text: &str) -> Arc<Frame> {
        Frame::new(&ServerFrame::MessageUpdate(MessageUpdate {
            channel_id: channel.into(),
            turn_id: Some("t".into()),
            message_id: message.into(),
            text: text.into(),
        }))
    }

    fn typing(channel: &str) -> Arc<Frame> {
        Frame::new(&ServerFrame::Typing(Typing {
            channel_id: channel.into(),
            on: true,
        }))
    }

    fn pong() -> Arc<Frame> {
        Frame::new(&ServerFrame::Pong(Ping { t: 1.into() }))
    }

    fn texts(frames: &[&Arc<Frame>]) -> Vec<String> {
        frames.iter().map(|f| f.text.to_string()).collect()
    }

    #[test]
    fn a_newer_snapshot_replaces_the_unsent_one_at_its_own_place() {
        let queue = DeviceQueue::new(16);
        let (a1, b1, a2, b2, a3) = (
            update("c1", "m1", "He"),
            update("c2", "m9", "Other"),
            update("c1", "m1", "Hello"),
            update("c2", "m9", "Other thread"),
            update("c1", "m1", "Hello there"),
        );
        for f in [&a1, &b1, &a2, &b2, &a3] {
            assert_eq!(queue.push(f), Pushed::Queued);
        }
        assert_eq!(queue.drain_now(), texts(&[&b2, &a3]));
    }

    #[test]
    fn a_frame_of_the_same_channel_between_keeps_both_snapshots() {
        let queue = DeviceQueue::new(16);
        let (a1, t, a2, a3) = (
            update("c1", "m1", "Let me look"),
            typing("c1"),
            update("c1", "m1", "Let me look…"),
            update("c1", "m1", "Let me look… done"),
        );
        for f in [&a1, &t, &a2, &a3] {
            queue.push(f);
        }
        assert_eq!(queue.drain_now(), texts(&[&a1, &t, &a3]));
        let (b1, p, b2) = (update("c1", "m2", "A"), pong(), update("c1", "m2", "AB"));
        for f in [&b1, &p, &b2] {
            queue.push(f);
        }
        assert_eq!(
            queue.drain_now(),
            texts(&[&b1, &p, &b2]),
            "a frame of no channel orders like one of every channel"
        );
    }

    #[test]
    fn another_message_of_the_channel_is_never_superseded() {
        let queue = DeviceQueue::new(16);
        let (m1, m2) = (update("c1", "m1", "First"), update("c1", "m2", "Second"));
        queue.push(&m1);
        queue.push(&m2);
        assert_eq!(queue.drain_now(), texts(&[&m1, &m2]));
    }

    #[test]
    fn the_last_snapshot_always_goes_out_after_a_backlog() {
        let queue = DeviceQueue::new(8);
        let mut last = update("c1", "m1", "");
        for n in 0..1000 {
            last = update("c1", "m1", &"x".repeat(n));
            assert_eq!(queue.push(&last), Pushed::Queued, "snapshots never fill it");
        }
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.drain_now(), texts(&[&last]));
    }

    #[test]
    fn a_full_queue_is_emptied_and_closed() {
        let queue = DeviceQueue::new(4);
        for _ in 0..4 {
            assert_eq!(queue.push(&typing("c1")), Pushed::Queued);
        }
        assert_eq!(queue.push(&typing("c1")), Pushed::Lagging);
        assert_eq!(queue.len(), 0, "its frames are freed at once");
        assert_eq!(queue.push(&typing("c1")), Pushed::Closed);
        assert!(queue.is_done());
    }

    #[test]
    fn a_finished_queue_still_delivers_what_it_holds_in_batches() {
        let queue = DeviceQueue::new(100);
        for _ in 0..BATCH_FRAMES + 1 {
            queue.push(&typing("c1"));
        }
        queue.finish();
        assert_eq!(queue.push(&typing("c1")), Pushed::Closed);
        let mut batch = Vec::new();
        let mut sizes = Vec::new();
        while futures_util::FutureExt::now_or_never(queue.next_batch(&mut batch)) == Some(true) {
            sizes.push(batch.len());
        }
        assert_eq!(sizes, [BATCH_FRAMES, 1]);
    }

    #[tokio::test]
    async fn a_waiting_connection_wakes_for_a_frame_pushed_later() {
        let queue = Arc::new(DeviceQueue::new(4));
        let waiter = {
            let queue = Arc::clone(&queue);
            tokio::spawn(async move {
                let mut batch = Vec::new();
                queue.next_batch(&mut batch).await.then_some(batch.len())
            })
        };
        tokio::task::yield_now().await;
        queue.push(&typing("c1"));
        let got = tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await;
        assert!(matches!(got, Ok(Ok(Some(1)))));
    }
}

//! The connected devices and fan-out of outgoing frames.
//!
//! Every device has a bounded queue drained by its connection task. Frames
//! are encoded once and shared. A device whose queue is full is lagging: it
//! is dropped from the hub (its connection then closes) instead of slowing
//! down everyone else; its client reconnects and fills the gap from history.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use aria_protocol::ServerFrame;
use axum::extract::ws::Utf8Bytes;
use tokio::sync::mpsc;

use crate::live::LiveTurns;

/// Frames a device may have queued before it counts as lagging. A flood turn
/// (500 tool calls) is ~1000 frames over ~0.5 s; a healthy client on any
/// link drains far faster than that fills 1024 slots.
const QUEUE_FRAMES: usize = 1024;

/// Identifies one authenticated connection inside the hub.
pub type ConnId = u64;

/// What a connection's queue yields.
pub type Outgoing = mpsc::Receiver<Utf8Bytes>;

#[derive(Default)]
pub struct Hub {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    devices: HashMap<ConnId, mpsc::Sender<Utf8Bytes>>,
    live: LiveTurns,
    next_id: ConnId,
    /// Set at shutdown: no device may join any more.
    closed: bool,
}

impl Hub {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves plain data behind;
        // keep serving rather than cascade the panic to every connection.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a device. Its queue starts with `ready` and the re-send of every
    /// live turn, all under the lock that broadcasts take, so the device sees
    /// each later frame exactly once and after its `ready`. `None` once the
    /// hub is shut down.
    pub fn join(&self, ready: &ServerFrame) -> Option<(ConnId, Outgoing)> {
        let mut inner = self.lock();
        if inner.closed {
            return None;
        }
        let resend = inner.live.resend();
        let (tx, rx) = mpsc::channel(QUEUE_FRAMES.max(resend.len() + 1));
        for frame in std::iter::once(ready).chain(&resend) {
            // Cannot fail: the queue is new and large enough for all of them.
            let _ = tx.try_send(encode(frame));
        }
        inner.next_id += 1;
        let id = inner.next_id;
        inner.devices.insert(id, tx);
        Some((id, rx))
    }

    pub fn leave(&self, id: ConnId) {
        self.lock().devices.remove(&id);
    }

    /// Sends a frame to every device and records what it changes of a live turn.
    pub fn publish(&self, frame: &ServerFrame) {
        let text = encode(frame);
        let mut inner = self.lock();
        inner.live.observe(frame);
        inner
            .devices
            .retain(|id, tx| match tx.try_send(text.clone()) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    tracing::warn!(conn = id, "device is lagging; disconnecting it");
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            });
    }

    /// Sends a reply to the one device that asked.
    pub fn reply(&self, id: ConnId, frame: &ServerFrame) {
        let mut inner = self.lock();
        let lagging = inner
            .devices
            .get(&id)
            .is_some_and(|tx| tx.try_send(encode(frame)).is_err());
        if lagging {
            inner.devices.remove(&id);
        }
    }

    /// Frames waiting in the queue of the device `id`.
    pub fn queued(&self, id: ConnId) -> usize {
        self.lock()
            .devices
            .get(&id)
            .map_or(0, |tx| tx.max_capacity() - tx.capacity())
    }

    /// Whether the hub has been shut down (a connection's queue ending then
    /// means "server going away", not "you were too slow").
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Drops every device; their connections close.
    pub fn close(&self) {
        let mut inner = self.lock();
        inner.closed = true;
        inner.devices.clear();
    }
}

fn encode(frame: &ServerFrame) -> Utf8Bytes {
    Utf8Bytes::from(frame.encode())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aria_protocol::{Ping, Ready, Typing};

    fn ready() -> ServerFrame {
        ServerFrame::Ready(Ready {
            protocol: 1,
            server: "test".into(),
            device_id: "d".into(),
            channels: vec![],
            limits: None,
        })
    }

    fn typing(on: bool) -> ServerFrame {
        ServerFrame::Typing(Typing {
            channel_id: "c1".into(),
            on,
        })
    }

    #[test]
    fn join_queues_ready_then_live_state_then_broadcasts() {
        let hub = Hub::default();
        hub.publish(&typing(true));
        let (id, mut rx) = hub.join(&ready()).expect("open hub");
        hub.publish(&typing(false));
        hub.reply(id, &ServerFrame::Pong(Ping { t: 1.into() }));
        let got: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|t| t.to_string())
            .collect();
        assert_eq!(got.len(), 4);
        assert!(got[0].contains("\"ready\""));
        assert!(got[1].contains("\"on\":true"));
        assert!(got[2].contains("\"on\":false"));
        assert!(got[3].contains("\"pong\""));
    }

    #[test]
    fn lagging_device_is_dropped_and_others_keep_receiving() {
        let hub = Hub::default();
        let (_slow, slow_rx) = hub.join(&ready()).expect("open hub");
        let (_fast, mut fast_rx) = hub.join(&ready()).expect("open hub");
        for _ in 0..QUEUE_FRAMES + 10 {
            hub.publish(&typing(true));
            while fast_rx.try_recv().is_ok() {}
        }
        assert_eq!(hub.lock().devices.len(), 1);
        drop(slow_rx);
        hub.publish(&typing(false));
        assert!(fast_rx.try_recv().is_ok());
    }

    #[test]
    fn closed_hub_refuses_joins() {
        let hub = Hub::default();
        let (_id, mut rx) = hub.join(&ready()).expect("open hub");
        hub.close();
        assert!(hub.is_closed());
        assert!(hub.join(&ready()).is_none());
        assert!(rx.try_recv().is_ok(), "queued ready is still delivered");
        assert!(rx.try_recv().is_err());
    }
}

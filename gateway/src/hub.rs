//! The connected devices and fan-out of outgoing frames.
//!
//! Every device has a bounded queue drained by its connection task
//! ([`DeviceQueue`]). Frames are encoded once and shared. A device whose
//! queue is full is lagging: it is dropped from the hub (its queue emptied,
//! its connection then closes) instead of slowing down everyone else; its
//! client reconnects and fills the gap from history.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aria_protocol::ServerFrame;

use crate::device_queue::{DeviceQueue, Frame, Pushed};
use crate::live::LiveTurns;

/// Frames a device may have queued before it counts as lagging. A flood turn
/// (500 tool calls) is ~1000 frames over ~0.5 s; a healthy client on any
/// link drains far faster than that fills 1024 slots.
const QUEUE_FRAMES: usize = 1024;

/// Identifies one authenticated connection inside the hub.
pub type ConnId = u64;

/// The queue a connection drains.
pub type Outgoing = Arc<DeviceQueue>;

#[derive(Default)]
pub struct Hub {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    devices: HashMap<ConnId, Arc<DeviceQueue>>,
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
        let queue = Arc::new(DeviceQueue::new(QUEUE_FRAMES.max(resend.len() + 1)));
        for frame in std::iter::once(ready).chain(&resend) {
            // Cannot fail: the queue is new and large enough for all of them.
            queue.push(&Frame::new(frame));
        }
        inner.next_id += 1;
        let id = inner.next_id;
        inner.devices.insert(id, Arc::clone(&queue));
        Some((id, queue))
    }

    pub fn leave(&self, id: ConnId) {
        self.lock().devices.remove(&id);
    }

    /// Sends a frame to every device and records what it changes of a live turn.
    pub fn publish(&self, frame: &ServerFrame) {
        let shared = Frame::new(frame);
        let mut inner = self.lock();
        inner.live.observe(frame);
        inner.devices.retain(|id, queue| match queue.push(&shared) {
            Pushed::Queued => true,
            Pushed::Lagging => {
                tracing::warn!(conn = id, "device is lagging; disconnecting it");
                crate::memory::released();
                false
            }
            Pushed::Closed => false,
        });
    }

    /// Sends a reply to the one device that asked.
    pub fn reply(&self, id: ConnId, frame: &ServerFrame) {
        let mut inner = self.lock();
        let dropped = inner
            .devices
            .get(&id)
            .is_some_and(|queue| queue.push(&Frame::new(frame)) != Pushed::Queued);
        if dropped {
            inner.devices.remove(&id);
        }
    }

    /// Frames waiting in the queue of the device `id`.
    pub fn queued(&self, id: ConnId) -> usize {
        self.lock().devices.get(&id).map_or(0, |queue| queue.len())
    }

    /// Whether the hub has been shut down (a connection's queue ending then
    /// means "server going away", not "you were too slow").
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Drops every device; their connections send what is queued and close.
    pub fn close(&self) {
        let mut inner = self.lock();
        inner.closed = true;
        for (_, queue) in inner.devices.drain() {
            queue.finish();
        }
    }
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
        let (id, queue) = hub.join(&ready()).expect("open hub");
        hub.publish(&typing(false));
        hub.reply(id, &ServerFrame::Pong(Ping { t: 1.into() }));
        let got = queue.drain_now();
        assert_eq!(got.len(), 4);
        assert!(got[0].contains("\"ready\""));
        assert!(got[1].contains("\"on\":true"));
        assert!(got[2].contains("\"on\":false"));
        assert!(got[3].contains("\"pong\""));
    }

    #[test]
    fn lagging_device_is_dropped_with_its_queue_freed_and_others_keep_receiving() {
        let hub = Hub::default();
        let (_slow, slow) = hub.join(&ready()).expect("open hub");
        let (_fast, fast) = hub.join(&ready()).expect("open hub");
        for _ in 0..QUEUE_FRAMES + 10 {
            hub.publish(&typing(true));
            fast.drain_now();
        }
        assert_eq!(hub.lock().devices.len(), 1);
        assert_eq!(slow.len(), 0, "the dropped device's frames are freed");
        assert!(slow.is_done(), "its connection is told to close");
        hub.publish(&typing(false));
        assert_eq!(fast.drain_now().len(), 1);
    }

    #[test]
    fn closed_hub_refuses_joins() {
        let hub = Hub::default();
        let (_id, queue) = hub.join(&ready()).expect("open hub");
        hub.close();
        assert!(hub.is_closed());
        assert!(hub.join(&ready()).is_none());
        assert_eq!(
            queue.drain_now().len(),
            1,
            "queued ready is still delivered"
        );
        assert!(queue.is_done());
    }
}

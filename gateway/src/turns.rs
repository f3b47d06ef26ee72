//! Runs the agent's turns: one at a time per channel, later sends queued.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::{watch, Notify};

use crate::agent::{Agent, Turn};
use crate::approvals::Approvals;
use crate::files::Files;
use crate::outbox::Outbox;
use crate::store::TurnSlot;

pub struct Turns {
    outbox: Arc<Outbox>,
    approvals: Arc<Approvals>,
    files: Arc<Files>,
    agent: Arc<dyn Agent>,
    lanes: Mutex<HashMap<String, Lane>>,
    /// Woken whenever a lane ends.
    lane_ended: Notify,
}

/// A channel with a turn running. It exists exactly while a worker task
/// drains its queue, which keeps "start a worker" free of races.
struct Lane {
    /// Turns accepted and not started, in order.
    queue: VecDeque<TurnSlot>,
    /// Cancels the running turn.
    cancel: Option<watch::Sender<bool>>,
}

impl Turns {
    pub fn new(
        outbox: Arc<Outbox>,
        approvals: Arc<Approvals>,
        files: Arc<Files>,
        agent: Arc<dyn Agent>,
    ) -> Self {
        Self {
            outbox,
            approvals,
            files,
            agent,
            lanes: Mutex::new(HashMap::new()),
            lane_ended: Notify::new(),
        }
    }

    fn lanes(&self) -> MutexGuard<'_, HashMap<String, Lane>> {
        self.lanes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a turn; starts it at once if the channel is idle. Called
    /// under the outbox lock that logged what it answers, so a branching
    /// request checked under that lock sees it ([`Turns::busy`]).
    pub fn enqueue(self: &Arc<Self>, channel_id: &str, turn: TurnSlot) {
        match self.lanes().entry(channel_id.to_string()) {
            Entry::Occupied(mut lane) => lane.get_mut().queue.push_back(turn),
            Entry::Vacant(slot) => {
                slot.insert(Lane {
                    queue: VecDeque::from([turn]),
                    cancel: None,
                });
                tokio::spawn(Arc::clone(self).drain(channel_id.to_string()));
            }
        }
    }

    /// Whether a turn runs or waits in the channel (§12 refuses branching
    /// then).
    pub fn busy(&self, channel_id: &str) -> bool {
        self.lanes().contains_key(channel_id)
    }

    /// Runs the channel's queued turns in order until the queue is empty.
    async fn drain(self: Arc<Self>, channel_id: String) {
        loop {
            let next = {
                let mut lanes = self.lanes();
                let Some(lane) = lanes.get_mut(&channel_id) else {
                    return;
                };
                match lane.queue.pop_front() {
                    Some(slot) => {
                        let (tx, rx) = watch::channel(false);
                        lane.cancel = Some(tx);
                        (slot, rx)
                    }
                    None => {
                        lanes.remove(&channel_id);
                        drop(lanes);
                        self.lane_ended.notify_waiters();
                        return;
                    }
                }
            };
            let (slot, cancel) = next;
            let mut turn = Turn::begin(
                Arc::clone(&self.outbox),
                Arc::clone(&self.approvals),
                Arc::clone(&self.files),
                channel_id.clone(),
                &slot,
                cancel,
            );
            let outcome = self.agent.run(&slot.text, &mut turn).await;
            let typing_off = turn.finish(outcome).await;
            let idle = {
                let mut lanes = self.lanes();
                let idle = lanes.get(&channel_id).is_none_or(|l| l.queue.is_empty());
                if idle {
                    lanes.remove(&channel_id);
                }
                idle
            };
            // After the lane is gone: whoever sees the turn end finds the
            // channel idle.
            typing_off.send();
            if idle {
                self.lane_ended.notify_waiters();
                return;
            }
        }
    }

    /// Cancels the channel's running turn; queued ones still run.
    pub fn cancel(&self, channel_id: &str) {
        if let Some(cancel) = self.lanes().get(channel_id).and_then(|l| l.cancel.as_ref()) {
            cancel.send_replace(true);
        }
    }

    /// Forgets the queue of a deleted channel and cancels its running turn.
    pub fn forget_channel(&self, channel_id: &str) {
        if let Some(lane) = self.lanes().get_mut(channel_id) {
            lane.stop();
        }
    }

    /// Shutdown: drops every queue and cancels every running turn.
    pub fn cancel_all(&self) {
        self.lanes().values_mut().for_each(Lane::stop);
    }

    /// Waits until no turn runs, at most `limit`: at shutdown, cancelled
    /// turns get to log how they ended (their tools, their approvals).
    pub async fn wait_idle(&self, limit: Duration) {
        let idle = async {
            loop {
                // Registered before the check, so no lane end is missed.
                let ended = self.lane_ended.notified();
                if self.lanes().is_empty() {
                    return;
                }
                ended.await;
            }
        };
        if tokio::time::timeout(limit, idle).await.is_err() {
            tracing::warn!("turns still running at shutdown");
        }
    }
}

impl Lane {
    fn stop(&mut self) {
        self.queue.clear();
        if let Some(cancel) = &self.cancel {
            cancel.send_replace(true);
        }
    }
}

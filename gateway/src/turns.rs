//! Runs the agent's turns: one at a time per channel, later sends queued.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

use crate::agent::{Agent, Turn};
use crate::outbox::Outbox;

pub struct Turns {
    outbox: Arc<Outbox>,
    agent: Arc<dyn Agent>,
    lanes: Mutex<HashMap<String, Lane>>,
}

/// A channel with a turn running. It exists exactly while a worker task
/// drains its queue, which keeps "start a worker" free of races.
struct Lane {
    /// Texts of accepted messages whose turn has not started.
    queue: VecDeque<String>,
    /// Cancels the running turn.
    cancel: Option<watch::Sender<bool>>,
}

impl Turns {
    pub fn new(outbox: Arc<Outbox>, agent: Arc<dyn Agent>) -> Self {
        Self {
            outbox,
            agent,
            lanes: Mutex::new(HashMap::new()),
        }
    }

    fn lanes(&self) -> MutexGuard<'_, HashMap<String, Lane>> {
        self.lanes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a turn answering `text`; starts it at once if the channel is idle.
    pub fn enqueue(self: &Arc<Self>, channel_id: &str, text: String) {
        match self.lanes().entry(channel_id.to_string()) {
            Entry::Occupied(mut lane) => lane.get_mut().queue.push_back(text),
            Entry::Vacant(slot) => {
                slot.insert(Lane {
                    queue: VecDeque::from([text]),
                    cancel: None,
                });
                tokio::spawn(Arc::clone(self).drain(channel_id.to_string()));
            }
        }
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
                    Some(text) => {
                        let (tx, rx) = watch::channel(false);
                        lane.cancel = Some(tx);
                        (text, rx)
                    }
                    None => {
                        lanes.remove(&channel_id);
                        return;
                    }
                }
            };
            let (text, cancel) = next;
            let mut turn = Turn::begin(Arc::clone(&self.outbox), channel_id.clone(), cancel);
            let outcome = self.agent.run(&text, &mut turn).await;
            turn.finish(outcome).await;
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
}

impl Lane {
    fn stop(&mut self) {
        self.queue.clear();
        if let Some(cancel) = &self.cancel {
            cancel.send_replace(true);
        }
    }
}

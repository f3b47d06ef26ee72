//! Pending approval requests (§9): the turn that asked waits on one, any
//! device may answer it, and each is resolved exactly once.
//!
//! Every resolution runs inside [`crate::outbox::Outbox::run`], under the
//! store lock: taking the request out of the registry, logging its
//! `approval.resolved` and broadcasting it are one step, so of two racing
//! answers the second finds the first one's logged outcome.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use aria_protocol::{
    ApprovalItem, ApprovalRequest, ApprovalRespond, Choice, InChannel, ServerFrame,
};
use tokio::sync::oneshot;

use crate::clock::now_ms;
use crate::hub::Hub;
use crate::store::{Store, StoreError};

pub struct Approvals {
    pending: Mutex<HashMap<String, Pending>>,
    /// How long a request waits for an answer by default.
    timeout: Duration,
}

struct Pending {
    request: ApprovalRequest,
    /// Tells the waiting turn how the request was resolved.
    resolved: oneshot::Sender<ApprovalItem>,
}

/// What a device's `approval.respond` did.
#[derive(Debug)]
pub enum Answer {
    /// It resolved the request; `approval.resolved` went to every device.
    Resolved,
    /// The request was resolved before: its `approval.resolved` again, for
    /// the asking device only.
    Repeat(Box<ServerFrame>),
    /// No such request in that channel.
    NotFound,
    /// The request is pending but did not offer that choice.
    NotOffered,
}

impl Approvals {
    pub fn new(timeout: Duration) -> Self {
        Self {
            pending: Mutex::new(HashMap::new()),
            timeout,
        }
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `--approval-timeout-secs`.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Registers a request (before it is broadcast, so no answer can miss
    /// it); the receiver gets its resolution. The sender is dropped without
    /// a value only if logging the resolution failed.
    pub fn open(&self, request: ApprovalRequest) -> oneshot::Receiver<ApprovalItem> {
        let (resolved, receiver) = oneshot::channel();
        self.pending()
            .insert(request.request_id.clone(), Pending { request, resolved });
        receiver
    }

    /// Resolves a pending request: logs and broadcasts `approval.resolved`
    /// and wakes the turn. `None` when it was no longer pending. Call it
    /// under the store lock (inside `Outbox::run`).
    pub fn resolve(
        &self,
        store: &mut Store,
        hub: &Hub,
        request_id: &str,
        choice: Choice,
        device_id: Option<String>,
    ) -> Result<Option<ApprovalItem>, StoreError> {
        let Some(pending) = self.pending().remove(request_id) else {
            return Ok(None);
        };
        let channel_id = pending.request.channel_id.clone();
        let item = store.append(&channel_id, resolution(pending.request, choice, device_id))?;
        hub.publish(&ServerFrame::ApprovalResolved(InChannel {
            channel_id,
            item: item.clone(),
        }));
        // The turn may have stopped waiting (it was dropped): nothing to wake.
        let _ = pending.resolved.send(item.clone());
        Ok(Some(item))
    }

    /// A device's `approval.respond`. Call it under the store lock.
    pub fn answer(
        &self,
        store: &mut Store,
        hub: &Hub,
        respond: &ApprovalRespond,
        device_id: &str,
    ) -> Result<Answer, StoreError> {
        let offered = self
            .pending()
            .get(&respond.request_id)
            .filter(|p| p.request.channel_id == respond.channel_id)
            .map(|p| p.request.choices.contains(&respond.choice));
        match offered {
            Some(false) => return Ok(Answer::NotOffered),
            Some(true) => {
                let resolved = self.resolve(
                    store,
                    hub,
                    &respond.request_id,
                    respond.choice,
                    Some(device_id.to_string()),
                )?;
                if resolved.is_some() {
                    return Ok(Answer::Resolved);
                }
            }
            None => {}
        }
        Ok(match store.find_approval(&respond.request_id)? {
            Some((channel_id, item)) if channel_id == respond.channel_id => {
                Answer::Repeat(Box::new(ServerFrame::ApprovalResolved(InChannel {
                    channel_id,
                    item,
                })))
            }
            _ => Answer::NotFound,
        })
    }
}

/// The logged item (without its `seq` yet) of `request` resolved with `choice`.
fn resolution(request: ApprovalRequest, choice: Choice, device_id: Option<String>) -> ApprovalItem {
    ApprovalItem {
        seq: 0,
        turn_id: request.turn_id,
        request_id: request.request_id,
        title: request.title,
        command: request.command,
        description: request.description,
        choice,
        device_id,
        ts: now_ms(),
        branch: None,
    }
}

/// The choices a request offers: `choices` in order, without duplicates or
/// the gateway's own outcomes, always with `deny`.
pub fn offered(choices: Vec<Choice>) -> Vec<Choice> {
    let mut offered: Vec<Choice> = Vec::with_capacity(choices.len() + 1);
    for choice in choices {
        if choice.is_answer() && !offered.contains(&choice) {
            offered.push(choice);
        }
    }
    if !offered.contains(&Choice::Deny) {
        offered.push(Choice::Deny);
    }
    offered
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A pending `rm -rf ./build` request of turn `t1`, for tests.
    pub(crate) fn request(channel_id: &str, request_id: &str) -> ApprovalRequest {
        ApprovalRequest {
            channel_id: channel_id.into(),
            turn_id: Some("t1".into()),
            request_id: request_id.into(),
            title: "Run a shell command?".into(),
            command: Some("rm -rf ./build".into()),
            description: None,
            choices: vec![Choice::Once, Choice::Deny],
            ts: 1,
        }
    }

    /// Its resolution as logged (`seq` 0), for tests.
    pub(crate) fn approval_item(request_id: &str, choice: Choice) -> ApprovalItem {
        resolution(request("c1", request_id), choice, Some("d1".into()))
    }

    fn respond(channel_id: &str, request_id: &str, choice: Choice) -> ApprovalRespond {
        ApprovalRespond {
            channel_id: channel_id.into(),
            request_id: request_id.into(),
            choice,
        }
    }

    #[test]
    fn offered_choices_always_include_deny_once() {
        assert_eq!(offered(vec![]), [Choice::Deny]);
        assert_eq!(
            offered(vec![
                Choice::Deny,
                Choice::Once,
                Choice::Timeout,
                Choice::Once
            ]),
            [Choice::Deny, Choice::Once]
        );
        assert_eq!(
            offered(vec![Choice::Once, Choice::Other, Choice::Always]),
            [Choice::Once, Choice::Always, Choice::Deny]
        );
    }

    #[test]
    fn first_answer_resolves_and_later_ones_get_its_outcome() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = Store::open(dir.path()).expect("store");
        store.create_channel("c1", "One", false).expect("channel");
        store.create_channel("c2", "Two", false).expect("channel");
        let hub = Hub::default();
        let approvals = Approvals::new(Duration::from_secs(1));
        let mut waiter = approvals.open(request("c1", "a1"));

        let answer = |store: &mut Store, r: ApprovalRespond, device: &str| {
            approvals.answer(store, &hub, &r, device).expect("answer")
        };
        assert!(matches!(
            answer(&mut store, respond("c1", "a1", Choice::Always), "d1"),
            Answer::NotOffered
        ));
        assert!(matches!(
            answer(&mut store, respond("c2", "a1", Choice::Once), "d1"),
            Answer::NotFound
        ));
        assert!(waiter.try_recv().is_err(), "still pending");
        assert!(matches!(
            answer(&mut store, respond("c1", "a1", Choice::Once), "d1"),
            Answer::Resolved
        ));
        let item = waiter.try_recv().expect("resolved");
        assert_eq!(
            (item.seq, item.choice, item.device_id.as_deref()),
            (1, Choice::Once, Some("d1"))
        );
        let Answer::Repeat(repeat) = answer(&mut store, respond("c1", "a1", Choice::Deny), "d2")
        else {
            panic!("not a repeat");
        };
        let ServerFrame::ApprovalResolved(again) = *repeat else {
            panic!("not approval.resolved");
        };
        assert_eq!((again.channel_id.as_str(), again.item), ("c1", item));
        assert!(matches!(
            answer(&mut store, respond("c2", "a1", Choice::Deny), "d2"),
            Answer::NotFound
        ));
        assert!(approvals
            .resolve(&mut store, &hub, "a1", Choice::Timeout, None)
            .expect("resolve")
            .is_none());
        assert_eq!(store.channel("c1").expect("channel").last_seq, 1);
    }
}

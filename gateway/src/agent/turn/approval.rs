//! Asking the user's permission from inside a turn (§9).

use std::sync::Arc;
use std::time::Duration;

use aria_protocol::{ApprovalItem, ApprovalRequest, Choice, ServerFrame};
use tokio::sync::oneshot;

use super::{Turn, TurnError};
use crate::approvals::offered;
use crate::clock::now_ms;
use crate::ids;
use crate::store::StoreError;

/// What an agent asks permission for. All text is shown to the user as is
/// (untrusted, never rendered as markup).
#[derive(Debug, Clone)]
pub struct ApprovalAsk {
    /// A short line ("Run a shell command?").
    pub title: String,
    /// The exact action that waits, already redacted of secrets.
    pub command: Option<String>,
    /// Why it needs approval ("recursive delete").
    pub description: Option<String>,
    /// The choices offered, in the order shown; `deny` is added if missing.
    pub choices: Vec<Choice>,
}

/// How the wait for an answer ended.
enum Waited {
    Answered(Result<ApprovalItem, oneshot::error::RecvError>),
    /// The gateway resolves it itself: `timeout` or `cancelled`.
    ByGateway(Choice),
}

impl Turn {
    /// Broadcasts `approval.request`, waits for the first answer from any
    /// device, the approval timeout or the turn's cancellation; logs and
    /// broadcasts `approval.resolved` exactly once. Returns the resolved
    /// choice (`Once`, `Session`, `Always`, `Deny` or `Timeout`). On
    /// cancellation it resolves the request as `Cancelled` and returns
    /// `Err(TurnError::Cancelled)`.
    pub async fn ask_approval(&mut self, ask: ApprovalAsk) -> Result<Choice, TurnError> {
        let timeout = self.approvals.timeout();
        self.ask_approval_within(ask, timeout).await
    }

    /// How long [`Turn::ask_approval`] waits (`--approval-timeout-secs`).
    pub fn approval_timeout(&self) -> Duration {
        self.approvals.timeout()
    }

    /// [`Turn::ask_approval`] with its own timeout instead of
    /// `--approval-timeout-secs`.
    pub async fn ask_approval_within(
        &mut self,
        ask: ApprovalAsk,
        timeout: Duration,
    ) -> Result<Choice, TurnError> {
        self.check()?;
        let request = ApprovalRequest {
            channel_id: self.channel_id.clone(),
            turn_id: Some(self.turn_id.clone()),
            request_id: ids::request_id(),
            title: ask.title,
            command: ask.command,
            description: ask.description,
            choices: offered(ask.choices),
            ts: now_ms(),
        };
        let request_id = request.request_id.clone();
        let mut answered = self.approvals.open(request.clone());
        // Should this future be dropped while waiting, `finish` still
        // resolves the request.
        self.waiting.push(request_id.clone());
        self.publish(ServerFrame::ApprovalRequest(request));
        let waited = tokio::select! {
            answer = &mut answered => Waited::Answered(answer),
            () = tokio::time::sleep(timeout) => Waited::ByGateway(Choice::Timeout),
            // An error means the gateway dropped the turn: stop as well.
            _ = self.cancel.wait_for(|cancelled| *cancelled) => Waited::ByGateway(Choice::Cancelled),
        };
        let resolved = match waited {
            Waited::Answered(answer) => answer.map_err(|_| lost()),
            Waited::ByGateway(choice) => self.resolve_own(&request_id, choice, answered).await,
        };
        self.waiting.retain(|id| *id != request_id);
        let choice = resolved?.choice;
        if choice == Choice::Cancelled || *self.cancel.borrow() {
            return Err(TurnError::Cancelled);
        }
        Ok(choice)
    }

    /// Resolves a request of this turn with the gateway's own `choice`,
    /// unless a device answered first: then that answer is the outcome.
    async fn resolve_own(
        &self,
        request_id: &str,
        choice: Choice,
        answered: oneshot::Receiver<ApprovalItem>,
    ) -> Result<ApprovalItem, TurnError> {
        let approvals = Arc::clone(&self.approvals);
        let id = request_id.to_string();
        let mine = self
            .outbox
            .run(move |store, hub| approvals.resolve(store, hub, &id, choice, None))
            .await?;
        match mine {
            Some(item) => Ok(item),
            // Sent under the lock this resolution waited for: ready now.
            None => answered.await.map_err(|_| lost()),
        }
    }

    /// The turn is ending: requests still waiting (their asking future was
    /// dropped) are resolved as `cancelled`.
    pub(super) async fn cancel_waiting(&mut self) {
        for request_id in std::mem::take(&mut self.waiting) {
            let approvals = Arc::clone(&self.approvals);
            let resolved = self
                .outbox
                .run(move |store, hub| {
                    approvals.resolve(store, hub, &request_id, Choice::Cancelled, None)
                })
                .await;
            match resolved {
                Ok(_) | Err(StoreError::NotFound) => {}
                Err(e) => {
                    tracing::warn!(channel = %self.channel_id, "cannot cancel an approval: {e}");
                }
            }
        }
    }
}

/// The resolution was taken but could not be logged.
fn lost() -> TurnError {
    TurnError::Failed("The gateway could not log the approval's outcome.".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approvals::Approvals;
    use crate::history::{Anchor, PageQuery};
    use crate::outbox::Outbox;
    use crate::store::Store;
    use aria_protocol::{HistoryItem, Ready};
    use tokio::sync::watch;

    fn ask() -> ApprovalAsk {
        ApprovalAsk {
            title: "Run a shell command?".into(),
            command: Some("rm -rf ./build".into()),
            description: None,
            choices: vec![Choice::Once],
        }
    }

    #[tokio::test]
    async fn a_request_left_waiting_by_a_failed_turn_is_cancelled() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("store");
        store.create_channel("c1", "One", false).expect("channel");
        let outbox = Arc::new(Outbox::new(store));
        let ready = ServerFrame::Ready(Ready {
            protocol: 1,
            server: "test".into(),
            device_id: "d".into(),
            channels: vec![],
            limits: None,
        });
        let (_conn, frames) = outbox.hub().join(&ready).expect("open hub");
        let approvals = Arc::new(Approvals::new(Duration::from_secs(60)));
        let (_cancel, cancelled) = watch::channel(false);
        let slot = crate::store::TurnSlot {
            turn_id: "t1".into(),
            text: String::new(),
            follows: None,
            files: Box::default(),
        };
        let files = crate::files::Files::open(dir.path(), Default::default()).expect("files");
        let mut turn = Turn::begin(
            Arc::clone(&outbox),
            approvals,
            Arc::new(files),
            "c1".into(),
            &slot,
            cancelled,
        );

        // The agent stops waiting (say its upstream failed meanwhile).
        let waiting = tokio::time::timeout(Duration::from_millis(50), turn.ask_approval(ask()));
        assert!(waiting.await.is_err(), "nobody answered");
        turn.finish(Err(TurnError::Failed("upstream gone".into())))
            .await
            .send();

        let sent: Vec<ServerFrame> = frames
            .drain_now()
            .iter()
            .map(|text| ServerFrame::decode(text).expect("frame"))
            .collect();
        let request = sent.iter().find_map(|f| match f {
            ServerFrame::ApprovalRequest(r) => Some(r),
            _ => None,
        });
        assert_eq!(
            request.map(|r| r.choices.clone()),
            Some(vec![Choice::Once, Choice::Deny]),
            "deny is always offered"
        );
        let resolved: Vec<&ApprovalItem> = sent
            .iter()
            .filter_map(|f| match f {
                ServerFrame::ApprovalResolved(r) => Some(&r.item),
                _ => None,
            })
            .collect();
        assert_eq!(resolved.len(), 1);
        assert_eq!(
            (resolved[0].choice, resolved[0].device_id.clone()),
            (Choice::Cancelled, None)
        );
        assert!(matches!(sent.last(), Some(ServerFrame::Typing(t)) if !t.on));

        let query = PageQuery {
            anchor: Anchor::Newest,
            limit: 10,
        };
        let items = outbox
            .run(move |store, _| store.page("c1", &query))
            .await
            .expect("page")
            .0
            .items;
        assert!(
            matches!(&items[..], [HistoryItem::Approval(a)] if a.choice == Choice::Cancelled),
            "{items:?}"
        );
    }
}

//! Approvals of the `hermes-api` agent: a run waiting on a command asks
//! the user, and the answer goes back with `POST /v1/runs/{id}/approval`.

use std::time::Duration;

use aria_protocol::Choice;
use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{HermesAgent, Run};
use crate::agent::upstream::Failure;
use crate::agent::{ApprovalAsk, Turn};

/// Hermes's default `approvals.timeout`, after which it denies by itself.
const HERMES_APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);

impl HermesAgent {
    /// Asks the user about the command the run waits on and posts the
    /// answer; nobody answering in time is a denial. Cancelling the turn
    /// meanwhile ends it (and [`HermesAgent::answer`] stops the run).
    pub(super) async fn approve(
        &self,
        turn: &mut Turn,
        run: &mut Run,
        id: &str,
        command: Option<String>,
        description: Option<String>,
        choices: &[String],
    ) -> Result<(), Failure> {
        let ask = ApprovalAsk {
            title: "Run this command?".into(),
            command,
            description,
            choices: offered(choices),
        };
        // Hermes stops waiting after its own `approvals.timeout`: asking
        // for longer would take answers it no longer reads.
        let timeout = turn.approval_timeout().min(HERMES_APPROVAL_TIMEOUT);
        let choice = turn.ask_approval_within(ask, timeout).await?;
        let (answer, declined) = match choice {
            Choice::Once => ("once", None),
            Choice::Session => ("session", None),
            Choice::Always => ("always", None),
            Choice::Timeout => ("deny", Some("not run: nobody answered in time")),
            _ => ("deny", Some("not run: denied")),
        };
        run.declined = declined.map(str::to_string);
        let request = self.post(
            &format!("/v1/runs/{id}/approval"),
            &json!({ "choice": answer }),
        )?;
        let response = self.upstream.send(turn, request).await?;
        if response.status() == StatusCode::CONFLICT {
            // Nothing pending any more: Hermes's own timeout passed first
            // and the command was denied.
            run.declined = Some("not run: Hermes stopped waiting for the answer".into());
            if declined.is_none() {
                turn.commentary(
                    "Hermes had stopped waiting for this answer (its approvals.timeout passed), \
                     so the command was not run.",
                )
                .await?;
            }
            return Ok(());
        }
        self.upstream.ensure_success(turn, response).await?;
        Ok(())
    }
}

/// The choices of an approval request the gateway can offer: Hermes's
/// `session` lasts for the run only, not the thread, so it is left out.
fn offered(choices: &[String]) -> Vec<Choice> {
    choices
        .iter()
        .filter_map(|c| serde_json::from_value::<Choice>(Value::String(c.clone())).ok())
        .filter(|c| c.is_answer() && *c != Choice::Session)
        .collect()
}

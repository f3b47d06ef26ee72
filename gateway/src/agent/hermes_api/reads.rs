//! What the `hermes-api` agent reads back from Hermes beside a run's
//! events, which leave it out: a starting call's arguments and the answer's
//! reasoning from the session's transcript, and the model's name. Each is
//! best effort: the turn goes on without it. Stopping a run is here too.

use std::time::Duration;

use reqwest::{RequestBuilder, StatusCode};
use serde_json::{json, Value};

use super::transcript::{self, Transcript};
use super::{HermesAgent, Run};
use crate::agent::upstream::Failure;
use crate::agent::Turn;

/// What Hermes calls itself when `/v1/models` does not say.
const DEFAULT_MODEL: &str = "hermes-agent";
/// Most bytes of a small JSON answer (a started run, the model list).
const MAX_JSON_BYTES: usize = 256 * 1024;
/// Most bytes of a session transcript read for reasoning; a longer one
/// gives no reasoning rather than unbounded memory.
const MAX_TRANSCRIPT_BYTES: usize = 8 * 1024 * 1024;
/// How long stopping a run may take: the turn is already over.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

impl HermesAgent {
    /// Stops a run, best effort: the turn ends either way.
    pub(super) async fn stop_run(&self, id: &str) {
        let Ok(client) = self.upstream.client() else {
            return;
        };
        let sent = client
            .post(format!("{}/v1/runs/{id}/stop", self.base_url))
            .bearer_auth(&self.api_key)
            .timeout(STOP_TIMEOUT)
            .send()
            .await;
        match sent {
            // 404: the run had already ended.
            Ok(r) if r.status().is_success() || r.status() == StatusCode::NOT_FOUND => {}
            Ok(r) => {
                tracing::warn!(run = id, status = %r.status(), "Hermes refused to stop the run")
            }
            Err(e) => tracing::warn!(run = id, "cannot stop the Hermes run: {e}"),
        }
    }

    /// The arguments of the call of tool `name` that starts, from the
    /// session's transcript (the run's events carry none): the first call
    /// of that name in the running step not shown yet. `{}` if there is
    /// none or the transcript cannot be read (the card shows the preview).
    pub(super) async fn step_args(
        &self,
        turn: &mut Turn,
        run: &mut Run,
        session: &str,
        name: &str,
    ) -> Result<Value, Failure> {
        let calls = async {
            let body = self.read_transcript(turn, session).await?;
            transcript::step_calls(&body).map_err(Failure::Server)
        };
        let calls = match calls.await {
            Ok(calls) => calls,
            Err(Failure::Turn(e)) => return Err(Failure::Turn(e)),
            Err(Failure::Server(reason)) => {
                tracing::warn!(
                    session,
                    "no tool arguments from Hermes's transcript: {reason}"
                );
                Vec::new()
            }
        };
        let call = calls
            .into_iter()
            .find(|c| c.name == name && !run.argued.contains(&c.key));
        Ok(match call {
            Some(call) => {
                run.argued.insert(call.key);
                call.args
            }
            None => json!({}),
        })
    }

    /// The session's messages listing, as Hermes sent it.
    pub(super) async fn read_transcript(
        &self,
        turn: &mut Turn,
        session: &str,
    ) -> Result<Vec<u8>, Failure> {
        let request = self.get(&format!("/api/sessions/{session}/messages"))?;
        let response = self.upstream.open(turn, request).await?;
        self.upstream
            .read_body(turn, response, MAX_TRANSCRIPT_BYTES)
            .await
    }

    /// The session's transcript; empty if it cannot be read (the answer is
    /// there, so no error is shown).
    pub(super) async fn transcript(
        &self,
        turn: &mut Turn,
        session: &str,
    ) -> Result<Transcript, Failure> {
        let read = async {
            let body = self.read_transcript(turn, session).await?;
            transcript::parse(&body).map_err(Failure::Server)
        };
        match read.await {
            Ok(transcript) => Ok(transcript),
            Err(Failure::Turn(e)) => Err(Failure::Turn(e)),
            Err(Failure::Server(reason)) => {
                tracing::warn!(session, "no reasoning from Hermes's transcript: {reason}");
                Ok(Transcript::default())
            }
        }
    }

    /// The model name Hermes advertises, asked once; its default if the
    /// question fails (the answer is already there, so no error is shown).
    pub(super) async fn model(&self, turn: &mut Turn) -> String {
        let asked = self
            .model
            .get_or_init(|| async {
                match self.ask_model(turn).await {
                    Ok(model) => model,
                    Err(e) => {
                        tracing::warn!("cannot read Hermes's model name: {e:?}");
                        DEFAULT_MODEL.to_string()
                    }
                }
            })
            .await;
        asked.clone()
    }

    pub(super) async fn ask_model(&self, turn: &mut Turn) -> Result<String, Failure> {
        let request = self.get("/v1/models")?.timeout(Duration::from_secs(10));
        self.read_string(turn, request, "/data/0/id")
            .await?
            .filter(|m| !m.is_empty())
            .ok_or_else(|| Failure::Server("no model in Hermes's /v1/models".into()))
    }

    /// The string at `pointer` of a small JSON answer to `request`.
    pub(super) async fn read_string(
        &self,
        turn: &mut Turn,
        request: RequestBuilder,
        pointer: &str,
    ) -> Result<Option<String>, Failure> {
        let response = self.upstream.open(turn, request).await?;
        let body = self
            .upstream
            .read_body(turn, response, MAX_JSON_BYTES)
            .await?;
        Ok(serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| Some(v.pointer(pointer)?.as_str()?.to_string())))
    }
}

//! The `hermes-api` agent: Hermes Agent (hermes-agent 0.19.0) through its
//! API server's runs API. The lesser path, for a Hermes on another host or
//! one that cannot load the aria plugin (see the `hermes` agent).
//!
//! A turn is one run: `POST /v1/runs` with the new message as `input`, the
//! thread's earlier messages as `conversation_history` (0.19.0 loads no
//! history for a run by itself: `session_id` only names the session the run
//! is saved under) and the channel's Hermes session. Its events
//! (`GET /v1/runs/{id}/events`, see [`events`](self::events)
//! and the README's mapping table) become bubbles and tool cards; an
//! approval request is answered with `POST /v1/runs/{id}/approval`; a turn
//! that is cancelled or fails stops the run with `POST /v1/runs/{id}/stop`.
//! The session's transcript gives what the run's events leave out: each
//! starting tool call's arguments and the finished run's reasoning.

mod events;
mod sessions;
mod transcript;

use std::collections::HashSet;
use std::time::Duration;

use aria_protocol::Choice;
use reqwest::header::CONTENT_TYPE;
use reqwest::{RequestBuilder, StatusCode};
use serde_json::{json, Value};
use tokio::sync::OnceCell;

use self::events::HermesEvent;
use self::sessions::SessionStore;
use self::transcript::Transcript;
use super::llm_turn::{next_event, show_failure, stop_bubble, LiveText};
use super::turn::ToolHandle;
use super::upstream::{EventStream, Failure, Server, Upstream};
use super::{Agent, AgentFuture, ApprovalAsk, Reply, ToolCall, ToolOutcome, Turn, TurnError};
use crate::config::{Config, DEFAULT_CONTEXT_CHARS};
use crate::ids;

const SERVER: Server = Server {
    subject: "Hermes",
    object: "Hermes",
    key_hint: "--hermes-key (or API_SERVER_KEY)",
};
/// What Hermes calls itself when `/v1/models` does not say.
const DEFAULT_MODEL: &str = "hermes-agent";
/// Most bytes of a small JSON answer (a started run, the model list).
const MAX_JSON_BYTES: usize = 256 * 1024;
/// Most bytes of a session transcript read for reasoning; a longer one
/// gives no reasoning rather than unbounded memory.
const MAX_TRANSCRIPT_BYTES: usize = 8 * 1024 * 1024;
/// How long stopping a run may take: the turn is already over.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);
/// Hermes's default `approvals.timeout`, after which it denies by itself.
const HERMES_APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);
/// The card of a call Hermes flags as failed: its run events say no more.
const FAILED_CALL: &str = "failed (Hermes's run events give no details)";

pub struct HermesAgent {
    upstream: Upstream,
    base_url: String,
    api_key: String,
    sessions: SessionStore,
    /// The name Hermes gives itself on `/v1/models`, asked once.
    model: OnceCell<String>,
}

/// The state of one turn's run.
#[derive(Default)]
struct Run {
    /// Set once Hermes accepted the run.
    id: Option<String>,
    /// Whether Hermes said the run ended (nothing left to stop).
    over: bool,
    live: LiveText,
    /// Tool calls started and not ended, oldest first, by name: Hermes's
    /// tool events carry no call id.
    tools: Vec<(String, ToolHandle)>,
    /// Why the next failed call did not run, when the gateway declined it.
    declined: Option<String>,
    /// The transcript's calls whose arguments a card already shows.
    argued: HashSet<(usize, usize)>,
}

impl Agent for HermesAgent {
    fn run<'a>(
        &'a self,
        text: &'a str,
        turn: &'a mut Turn,
    ) -> AgentFuture<'a, Result<(), TurnError>> {
        Box::pin(self.answer(text, turn))
    }

    /// Hermes's API server titles no sessions (0.19.0 does so only on its
    /// messaging platforms) and asking it would run a whole agent turn with
    /// tools, so auto threads keep their derived title.
    fn title<'a>(&'a self, _first_message: &'a str) -> AgentFuture<'a, Option<String>> {
        Box::pin(async { None })
    }
}

impl HermesAgent {
    pub fn new(config: &Config) -> Self {
        Self {
            upstream: Upstream::new(SERVER, config.model_stall),
            base_url: config
                .hermes
                .base_url
                .trim()
                .trim_end_matches('/')
                .to_string(),
            api_key: config.hermes.api_key.clone(),
            sessions: SessionStore::new(&config.data_dir),
            model: OnceCell::new(),
        }
    }

    fn post(&self, path: &str, body: &Value) -> Result<RequestBuilder, Failure> {
        Ok(self
            .upstream
            .client()?
            .post(format!("{}{path}", self.base_url))
            .bearer_auth(&self.api_key)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string()))
    }

    fn get(&self, path: &str) -> Result<RequestBuilder, Failure> {
        Ok(self
            .upstream
            .client()?
            .get(format!("{}{path}", self.base_url))
            .bearer_auth(&self.api_key))
    }

    async fn answer(&self, text: &str, turn: &mut Turn) -> Result<(), TurnError> {
        let mut run = Run::default();
        let outcome = self.converse(text, turn, &mut run).await;
        if outcome.is_err() && !run.over {
            // Cancelled, or the gateway gave up on it: the run must not go
            // on (and run commands) unseen.
            if let Some(id) = &run.id {
                self.stop_run(id).await;
            }
        }
        match outcome {
            Ok(()) => Ok(()),
            Err(Failure::Turn(e)) => Err(e),
            Err(Failure::Server(reason)) => {
                end_open_tools(turn, &mut run, "Hermes stopped before this call ended").await?;
                Err(show_failure(turn, &mut run.live, &reason).await)
            }
        }
    }

    async fn converse(&self, text: &str, turn: &mut Turn, run: &mut Run) -> Result<(), Failure> {
        let session = self.session(turn).await?;
        let id = self.start_run(turn, &session, text).await?;
        run.id = Some(id.clone());
        let response = self
            .upstream
            .open(turn, self.get(&format!("/v1/runs/{id}/events"))?)
            .await?;
        let mut events = EventStream::new(response);
        loop {
            let Some(event) = next_event(&mut events, &self.upstream, turn, &mut run.live).await?
            else {
                return Err(Failure::Server(
                    "Hermes closed the run's event stream before the run ended.".into(),
                ));
            };
            match events::parse(&event).map_err(Failure::Server)? {
                HermesEvent::Completed { output, tokens } => {
                    run.over = true;
                    return self.finish(turn, run, &session, output, tokens).await;
                }
                HermesEvent::Failed(reason) => {
                    run.over = true;
                    return Err(Failure::Server(format!("Hermes's run failed: {reason}")));
                }
                HermesEvent::Cancelled => {
                    run.over = true;
                    return Ok(cancelled_by_hermes(turn, run).await?);
                }
                event => self.apply(turn, run, &id, &session, event).await?,
            }
        }
    }

    /// The channel's Hermes session, made up on its first turn: a run
    /// creates the session it names.
    async fn session(&self, turn: &Turn) -> Result<String, Failure> {
        let channel_id = turn.channel_id();
        if let Some(session) = self
            .sessions
            .get(channel_id)
            .await
            .map_err(Failure::Server)?
        {
            return Ok(session);
        }
        let session = ids::hermes_session_id();
        self.sessions
            .put(channel_id, &session)
            .await
            .map_err(Failure::Server)?;
        Ok(session)
    }

    /// Starts the run answering `text`; returns its id.
    async fn start_run(
        &self,
        turn: &mut Turn,
        session: &str,
        text: &str,
    ) -> Result<String, Failure> {
        let history = turn
            .history(crate::agent::openai::context::HISTORY_ITEMS)
            .await?;
        let mut messages =
            crate::agent::openai::context::messages(&history, text, DEFAULT_CONTEXT_CHARS);
        // The last message is the one answered, joined with any the user
        // sent before it that got no answer.
        let input = messages
            .pop()
            .and_then(|m| Some(m.get("content")?.as_str()?.to_string()))
            .unwrap_or_else(|| text.to_string());
        let body = json!({
            "input": input,
            "session_id": session,
            "conversation_history": messages,
        });
        let id = self
            .read_string(turn, self.post("/v1/runs", &body)?, "/run_id")
            .await?;
        // The id goes into URL paths.
        id.filter(|id| {
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        .ok_or_else(|| Failure::Server("Hermes started the run without a usable run id.".into()))
    }

    /// Acts on one event of a run still going.
    async fn apply(
        &self,
        turn: &mut Turn,
        run: &mut Run,
        id: &str,
        session: &str,
        event: HermesEvent,
    ) -> Result<(), Failure> {
        match event {
            HermesEvent::Delta(delta) => run.live.push(turn, &delta)?,
            HermesEvent::ToolStarted { name, preview } => {
                // Text streamed before a tool call is a message of its own,
                // as in Hermes's transcript; the answer opens a new bubble.
                stop_bubble(turn, &mut run.live).await?;
                let args = self.step_args(turn, run, session, &name).await?;
                let call = ToolCall {
                    name: name.clone(),
                    emoji: None,
                    preview: preview.unwrap_or_default(),
                    args,
                };
                run.tools.push((name, turn.tool_start(call)?));
            }
            HermesEvent::ToolCompleted {
                name,
                duration,
                failed,
            } => end_tool(turn, run, &name, duration, failed).await?,
            HermesEvent::ApprovalRequest {
                command,
                description,
                choices,
            } => {
                self.approve(turn, run, id, command, description, &choices)
                    .await?
            }
            // `converse` handles the run's endings.
            HermesEvent::Completed { .. }
            | HermesEvent::Failed(_)
            | HermesEvent::Cancelled
            | HermesEvent::Ignored => {}
        }
        Ok(())
    }

    /// Asks the user about the command the run waits on and posts the
    /// answer; nobody answering in time is a denial. Cancelling the turn
    /// meanwhile ends it (and [`HermesAgent::answer`] stops the run).
    async fn approve(
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

    /// Stops a run, best effort: the turn ends either way.
    async fn stop_run(&self, id: &str) {
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

    /// Stops the last bubble with the final answer, reasoning, model and tokens.
    async fn finish(
        &self,
        turn: &mut Turn,
        run: &mut Run,
        session: &str,
        output: String,
        tokens: Option<u64>,
    ) -> Result<(), Failure> {
        let streamed = run.live.take(turn)?;
        // `output` is the whole final answer, also when it was not streamed.
        let text = if output.trim().is_empty() {
            streamed
        } else {
            output
        };
        if text.trim().is_empty() {
            return Err(Failure::Server(
                "Hermes finished the run without an answer.".into(),
            ));
        }
        let transcript = self.transcript(turn, session).await?;
        if let Some(moved) = transcript.session_id.as_deref().filter(|s| *s != session) {
            self.sessions
                .put(turn.channel_id(), moved)
                .await
                .map_err(Failure::Server)?;
        }
        let ours = transcript.answer.as_deref().map(str::trim) == Some(text.trim());
        let model = self.model(turn).await;
        turn.stop(Reply {
            text,
            reasoning: transcript.reasoning.filter(|_| ours),
            model: Some(model),
            tokens,
        })
        .await?;
        Ok(())
    }

    /// The arguments of the call of tool `name` that starts, from the
    /// session's transcript (the run's events carry none): the first call
    /// of that name in the running step not shown yet. `{}` if there is
    /// none or the transcript cannot be read (the card shows the preview).
    async fn step_args(
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
    async fn read_transcript(&self, turn: &mut Turn, session: &str) -> Result<Vec<u8>, Failure> {
        let request = self.get(&format!("/api/sessions/{session}/messages"))?;
        let response = self.upstream.open(turn, request).await?;
        self.upstream
            .read_body(turn, response, MAX_TRANSCRIPT_BYTES)
            .await
    }

    /// The session's transcript; empty if it cannot be read (the answer is
    /// there, so no error is shown).
    async fn transcript(&self, turn: &mut Turn, session: &str) -> Result<Transcript, Failure> {
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
    async fn model(&self, turn: &mut Turn) -> String {
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

    async fn ask_model(&self, turn: &mut Turn) -> Result<String, Failure> {
        let request = self.get("/v1/models")?.timeout(Duration::from_secs(10));
        self.read_string(turn, request, "/data/0/id")
            .await?
            .filter(|m| !m.is_empty())
            .ok_or_else(|| Failure::Server("no model in Hermes's /v1/models".into()))
    }

    /// The string at `pointer` of a small JSON answer to `request`.
    async fn read_string(
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

/// Ends the oldest running call of tool `name` with Hermes's duration.
async fn end_tool(
    turn: &mut Turn,
    run: &mut Run,
    name: &str,
    duration: Option<f64>,
    failed: bool,
) -> Result<(), Failure> {
    let Some(position) = run.tools.iter().position(|(n, _)| n == name) else {
        tracing::warn!(tool = name, "Hermes ended a tool call that had not started");
        return Ok(());
    };
    let (_, tool) = run.tools.remove(position);
    let declined = run.declined.take();
    let output_preview = match (failed, declined) {
        (false, _) => String::new(),
        (true, Some(why)) => why,
        (true, None) => FAILED_CALL.to_string(),
    };
    let outcome = ToolOutcome {
        ok: !failed,
        output_preview,
        output: None,
    };
    match duration.and_then(|secs| Duration::try_from_secs_f64(secs).ok()) {
        Some(duration) => turn.tool_end_after(tool, outcome, duration).await?,
        None => turn.tool_end(tool, outcome).await?,
    }
    Ok(())
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

/// Ends the calls still running as failed, with `why`.
async fn end_open_tools(turn: &mut Turn, run: &mut Run, why: &str) -> Result<(), TurnError> {
    for (_, tool) in run.tools.drain(..) {
        turn.tool_end(tool, ToolOutcome::failed(why)).await?;
    }
    Ok(())
}

/// A run stopped on Hermes's side (not by this turn): the turn ends with
/// what it has, and says why it ended early.
async fn cancelled_by_hermes(turn: &mut Turn, run: &mut Run) -> Result<(), TurnError> {
    stop_bubble(turn, &mut run.live).await?;
    end_open_tools(turn, run, "Hermes stopped the run").await?;
    turn.commentary("Hermes stopped the run before it finished.")
        .await
}

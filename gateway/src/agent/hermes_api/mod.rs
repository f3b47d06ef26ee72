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

mod approval;
mod events;
mod reads;
mod sessions;
mod tool_cards;
mod transcript;

use std::collections::HashSet;

use reqwest::header::CONTENT_TYPE;
use reqwest::RequestBuilder;
use serde_json::{json, Value};
use tokio::sync::OnceCell;

use self::events::HermesEvent;
use self::sessions::SessionStore;
use self::tool_cards::{cancelled_by_hermes, end_open_tools, end_tool};
use super::llm_turn::{next_event, show_failure, stop_bubble, LiveText};
use super::turn::ToolHandle;
use super::upstream::{EventStream, Failure, Server, Upstream};
use super::{Agent, AgentFuture, Reply, ToolCall, Turn, TurnError};
use crate::config::{Config, DEFAULT_CONTEXT_CHARS};
use crate::ids;

const SERVER: Server = Server {
    subject: "Hermes",
    object: "Hermes",
    key_hint: "--hermes-key (or API_SERVER_KEY)",
};

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
    fn title<'a>(
        &'a self,
        _channel_id: &'a str,
        _first_message: &'a str,
    ) -> AgentFuture<'a, Option<String>> {
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
            files: Box::default(),
        })
        .await?;
        Ok(())
    }
}

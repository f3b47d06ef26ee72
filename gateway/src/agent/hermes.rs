//! The `hermes` agent: Hermes Agent (hermes-agent 0.19.0) through its
//! built-in API server, one Hermes session per channel.
//!
//! It uses the richest stream Hermes offers, `POST /api/sessions/{id}/chat/stream`
//! (see [`hermes_events`](super::hermes_events) and the mapping table in the
//! README): streamed text becomes bubbles, Hermes's tool calls become cards
//! with their arguments, and `run.completed` adds reasoning and tokens to the
//! final `message.stop`. Hermes keeps the conversation in its session, so
//! only the new message is sent.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use reqwest::{RequestBuilder, StatusCode};
use serde_json::{json, Value};
use tokio::sync::OnceCell;

use super::hermes_events::{self, HermesEvent, RunSummary};
use super::hermes_sessions::SessionStore;
use super::llm_turn::{next_event, preview_of, show_failure, stop_bubble, LiveText};
use super::turn::ToolHandle;
use super::upstream::{cut, EventStream, Failure, Server, Upstream};
use super::{Agent, AgentFuture, Reply, ToolCall, ToolOutcome, Turn, TurnError};
use crate::config::Config;

const SERVER: Server = Server {
    subject: "Hermes",
    object: "Hermes",
    key_hint: "--hermes-key (or API_SERVER_KEY)",
};
/// What Hermes calls itself when `/v1/models` does not say.
const DEFAULT_MODEL: &str = "hermes-agent";
/// Most bytes of a JSON answer (a session, the model list).
const MAX_JSON_BYTES: usize = 256 * 1024;

pub struct HermesAgent {
    upstream: Upstream,
    base_url: String,
    api_key: String,
    sessions: SessionStore,
    /// The name Hermes gives itself on `/v1/models`, asked once.
    model: OnceCell<String>,
}

/// The state of one turn's stream.
#[derive(Default)]
struct Run {
    live: LiveText,
    /// Whether any text was streamed this turn.
    streamed: bool,
    /// Tool calls started and not ended, oldest first, by name: Hermes's
    /// tool events carry no call id.
    tools: Vec<(String, ToolHandle)>,
    /// `assistant.completed`'s text.
    answer: Option<String>,
    summary: Option<RunSummary>,
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

    async fn answer(&self, text: &str, turn: &mut Turn) -> Result<(), TurnError> {
        let mut run = Run::default();
        match self.converse(text, turn, &mut run).await {
            Ok(()) => Ok(()),
            Err(Failure::Turn(e)) => Err(e),
            Err(Failure::Server(reason)) => {
                for (_, tool) in run.tools.drain(..) {
                    let outcome = ToolOutcome {
                        ok: false,
                        output_preview: "Hermes stopped before this call ended".into(),
                        output: None,
                    };
                    turn.tool_end(tool, outcome).await?;
                }
                Err(show_failure(turn, &mut run.live, &reason).await)
            }
        }
    }

    async fn converse(&self, text: &str, turn: &mut Turn, run: &mut Run) -> Result<(), Failure> {
        let channel_id = turn.channel_id().to_string();
        let mut session = match self
            .sessions
            .get(&channel_id)
            .await
            .map_err(Failure::Server)?
        {
            Some(session) => session,
            None => self.new_session(turn).await?,
        };
        let mut response = self.upstream.send(turn, self.chat(&session, text)?).await?;
        if response.status() == StatusCode::NOT_FOUND {
            // Hermes no longer has the session (e.g. a fresh HERMES_HOME).
            session = self.new_session(turn).await?;
            response = self.upstream.send(turn, self.chat(&session, text)?).await?;
        }
        let response = self.upstream.ensure_success(turn, response).await?;
        let mut events = EventStream::new(response);
        while let Some(event) = next_event(&mut events, &self.upstream, turn, &mut run.live).await?
        {
            let event = hermes_events::parse(&event).map_err(Failure::Server)?;
            if !self.apply(turn, run, event).await? {
                break;
            }
        }
        let Some(summary) = run.summary.take() else {
            return Err(Failure::Server(
                "Hermes closed the stream before the turn was complete.".into(),
            ));
        };
        if let Some(moved) = summary.session_id.as_deref().filter(|s| *s != session) {
            self.sessions
                .put(&channel_id, moved)
                .await
                .map_err(Failure::Server)?;
        }
        self.finish(turn, run, summary).await
    }

    /// The stream request of one turn.
    fn chat(&self, session: &str, text: &str) -> Result<RequestBuilder, Failure> {
        self.post(
            &format!("/api/sessions/{session}/chat/stream"),
            &json!({"message": text}),
        )
    }

    /// Acts on one event; `false` once the stream is over.
    async fn apply(
        &self,
        turn: &mut Turn,
        run: &mut Run,
        event: HermesEvent,
    ) -> Result<bool, Failure> {
        match event {
            HermesEvent::Delta(delta) => {
                run.streamed |= !delta.is_empty();
                run.live.push(turn, &delta)?;
            }
            HermesEvent::ToolStarted {
                name,
                preview,
                args,
            } => {
                // Text streamed before a tool call is a message of its own,
                // as in Hermes's transcript; the answer opens a new bubble.
                stop_bubble(turn, &mut run.live).await?;
                let call = ToolCall {
                    name: name.clone(),
                    emoji: None,
                    preview: preview.unwrap_or_else(|| preview_of(&args)),
                    args,
                };
                run.tools.push((name, turn.tool_start(call)?));
            }
            HermesEvent::ToolCompleted { name } => end_tool(turn, run, &name, true).await?,
            HermesEvent::ToolFailed { name } => end_tool(turn, run, &name, false).await?,
            HermesEvent::Completed { content } => run.answer = Some(content),
            HermesEvent::RunCompleted(summary) => run.summary = Some(summary),
            HermesEvent::Error(message) => {
                return Err(Failure::Server(format!(
                    "Hermes stopped with an error: {message}"
                )))
            }
            HermesEvent::Done => return Ok(false),
            HermesEvent::Ignored => {}
        }
        Ok(true)
    }

    /// Stops the last bubble with the final answer, reasoning, model and tokens.
    async fn finish(
        &self,
        turn: &mut Turn,
        run: &mut Run,
        summary: RunSummary,
    ) -> Result<(), Failure> {
        let streamed = run.live.take(turn)?;
        // `assistant.completed` has the whole final answer, also when the
        // model's text was not streamed.
        let text = run
            .answer
            .take()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or(streamed);
        if text.trim().is_empty() {
            return Err(Failure::Server(
                "Hermes finished the turn without an answer.".into(),
            ));
        }
        if summary.tokens == Some(0) && !run.streamed {
            // No token used and nothing streamed: the model never answered,
            // and the "answer" is Hermes's account of its model's error.
            return Err(Failure::Server(format!(
                "Hermes got no answer from its model: {}",
                cut(text.trim(), 300)
            )));
        }
        let model = self.model(turn).await;
        let ours = summary.answer.as_deref().map(str::trim) == Some(text.trim());
        turn.stop(Reply {
            text,
            reasoning: summary.reasoning.filter(|_| ours),
            model: Some(model),
            tokens: summary.tokens,
        })
        .await?;
        Ok(())
    }

    /// Creates a Hermes session for the turn's channel and remembers it.
    async fn new_session(&self, turn: &mut Turn) -> Result<String, Failure> {
        let response = self
            .upstream
            .open(turn, self.post("/api/sessions", &json!({}))?)
            .await?;
        let body = self
            .upstream
            .read_body(turn, response, MAX_JSON_BYTES)
            .await?;
        let id = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| Some(v.pointer("/session/id")?.as_str()?.to_string()))
            .ok_or_else(|| {
                Failure::Server(format!(
                    "Hermes answered the new session request without a session id: {}",
                    String::from_utf8_lossy(&body)
                ))
            })?;
        self.sessions
            .put(turn.channel_id(), &id)
            .await
            .map_err(Failure::Server)?;
        Ok(id)
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
        let request = self
            .upstream
            .client()?
            .get(format!("{}/v1/models", self.base_url))
            .bearer_auth(&self.api_key)
            .timeout(Duration::from_secs(10));
        let response = self.upstream.open(turn, request).await?;
        let body = self
            .upstream
            .read_body(turn, response, MAX_JSON_BYTES)
            .await?;
        serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| Some(v.pointer("/data/0/id")?.as_str()?.to_string()))
            .filter(|m| !m.is_empty())
            .ok_or_else(|| Failure::Server("no model in Hermes's /v1/models".into()))
    }
}

/// Ends the oldest running call of tool `name`; the gateway measured its
/// duration. Hermes sends neither output nor duration on this stream.
async fn end_tool(turn: &mut Turn, run: &mut Run, name: &str, ok: bool) -> Result<(), Failure> {
    let Some(position) = run.tools.iter().position(|(n, _)| n == name) else {
        tracing::warn!(tool = name, "Hermes ended a tool call that had not started");
        return Ok(());
    };
    let (_, tool) = run.tools.remove(position);
    let outcome = ToolOutcome {
        ok,
        output_preview: String::new(),
        output: None,
    };
    turn.tool_end(tool, outcome).await?;
    Ok(())
}

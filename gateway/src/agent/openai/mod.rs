//! The `openai` agent: streaming Chat Completions from any OpenAI-compatible
//! server (llama.cpp, Ollama, vLLM, hosted services).
//!
//! The gateway runs no tools, so it offers none to the model; should a model
//! ask for one anyway, the call is shown as a card that ends `ok:false`
//! ("not run") instead of being lost.

pub(super) mod context;
mod stream;

use reqwest::header::CONTENT_TYPE;
use reqwest::RequestBuilder;
use serde_json::{json, Value};

use self::stream::{clean_title, Answer};
use super::llm_turn::{next_event, show_failure, LiveText};
use super::upstream::{cut, EventStream, Failure, Server, Upstream};
use super::{Agent, AgentFuture, Reply, ToolOutcome, Turn, TurnError};
use crate::config::OpenAiConfig;

const SERVER: Server = Server {
    subject: "The model server",
    object: "the model server",
    key_hint: "--openai-key (or OPENAI_API_KEY)",
};
/// Output preview of a tool call the model asked for.
const NOT_RUN: &str = "not run: the openai agent executes no tools";
const TITLE_PROMPT: &str = "You name chat threads. Reply with a title for a conversation \
that starts with the user's message below: at most six words, in the user's language, \
no quotes, no final punctuation. Reply with the title only.";
/// Most characters of the first message sent to make a title.
const TITLE_INPUT_CHARS: usize = 2000;

pub struct OpenAiAgent {
    upstream: Upstream,
    config: OpenAiConfig,
    /// `{base_url}/chat/completions`.
    endpoint: String,
}

impl Agent for OpenAiAgent {
    fn run<'a>(
        &'a self,
        text: &'a str,
        turn: &'a mut Turn,
    ) -> AgentFuture<'a, Result<(), TurnError>> {
        Box::pin(self.answer(text, turn))
    }

    fn title<'a>(&'a self, first_message: &'a str) -> AgentFuture<'a, Option<String>> {
        Box::pin(self.make_title(first_message))
    }
}

impl OpenAiAgent {
    pub fn new(config: OpenAiConfig, stall: std::time::Duration) -> Self {
        let endpoint = format!(
            "{}/chat/completions",
            config.base_url.trim().trim_end_matches('/')
        );
        Self {
            upstream: Upstream::new(SERVER, stall),
            config,
            endpoint,
        }
    }

    /// A request body with the configured model (if any) and `fields`.
    fn body(&self, mut fields: Value) -> Value {
        if let Some(model) = &self.config.model {
            fields["model"] = json!(model);
        }
        fields
    }

    fn request(&self, body: &Value) -> Result<RequestBuilder, Failure> {
        let request = self
            .upstream
            .client()?
            .post(&self.endpoint)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        Ok(match &self.config.api_key {
            Some(key) => request.bearer_auth(key),
            None => request,
        })
    }

    async fn answer(&self, text: &str, turn: &mut Turn) -> Result<(), TurnError> {
        let history = turn.history(context::HISTORY_ITEMS).await?;
        let messages = context::messages(&history, text, self.config.context_chars);
        let body = self.body(json!({
            "messages": messages,
            "stream": true,
            // Without it no usage arrives when streaming.
            "stream_options": {"include_usage": true},
        }));
        let mut live = LiveText::default();
        match self.stream(turn, &body, &mut live).await {
            Ok(()) => Ok(()),
            Err(Failure::Turn(e)) => Err(e),
            Err(Failure::Server(reason)) => Err(show_failure(turn, &mut live, &reason).await),
        }
    }

    async fn stream(
        &self,
        turn: &mut Turn,
        body: &Value,
        live: &mut LiveText,
    ) -> Result<(), Failure> {
        let response = self.upstream.open(turn, self.request(body)?).await?;
        let mut events = EventStream::new(response);
        let mut answer = Answer::default();
        while let Some(event) = next_event(&mut events, &self.upstream, turn, live).await? {
            let delta = answer.apply(&event.data).map_err(Failure::Server)?;
            live.push(turn, &delta)?;
            if answer.is_done() {
                break;
            }
        }
        if !answer.is_complete() {
            return Err(Failure::Server(
                "The model server closed the stream before the answer was complete.".into(),
            ));
        }
        self.finish(turn, live, answer).await
    }

    /// Stops the bubble with model, reasoning and tokens, then shows the tool
    /// calls the model asked for.
    async fn finish(
        &self,
        turn: &mut Turn,
        live: &mut LiveText,
        answer: Answer,
    ) -> Result<(), Failure> {
        let text = live.take(turn)?;
        let reasoning = Some(answer.reasoning.trim().to_string()).filter(|r| !r.is_empty());
        let calls = answer.tool_calls();
        if text.trim().is_empty() && reasoning.is_none() {
            if calls.is_empty() {
                return Err(Failure::Server(
                    "The model returned an empty answer.".into(),
                ));
            }
        } else {
            turn.stop(Reply {
                text,
                reasoning,
                model: answer.model.clone().or_else(|| self.config.model.clone()),
                tokens: answer.tokens,
            })
            .await?;
        }
        for call in calls {
            let handle = turn.tool_start(call)?;
            turn.tool_end(handle, ToolOutcome::failed(NOT_RUN)).await?;
        }
        Ok(())
    }

    /// Asks the model for a title (not streamed). Any failure keeps the
    /// derived title; the reason is logged.
    async fn make_title(&self, first_message: &str) -> Option<String> {
        let body = self.body(json!({
            "messages": [
                {"role": "system", "content": TITLE_PROMPT},
                {"role": "user", "content": cut(first_message, TITLE_INPUT_CHARS)},
            ],
            "stream": false,
        }));
        let request = match self.request(&body) {
            Ok(request) => request.timeout(self.upstream.stall()),
            Err(_) => return None,
        };
        let answer = async {
            let response = request.send().await?.error_for_status()?;
            response.bytes().await
        };
        let bytes = match answer.await {
            Ok(bytes) => bytes,
            Err(e) => {
                tracing::warn!("no title from the model: {e}");
                return None;
            }
        };
        let content = serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| {
            Some(
                v.pointer("/choices/0/message/content")?
                    .as_str()?
                    .to_string(),
            )
        });
        let title = content.as_deref().and_then(clean_title);
        if title.is_none() {
            tracing::warn!(
                "no title in the model's answer: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
        title
    }
}

//! Agents answer a user's message with a turn of frames.
//!
//! An [`Agent`] never touches sockets or the log: it drives a [`Turn`], which
//! logs final items with their `seq`, broadcasts the frames and keeps the
//! state needed to cancel the turn or show it to a device joining late. The
//! built-in agent is the scripted [`demo::DemoAgent`]; the real back ends are
//! [`openai::OpenAiAgent`] (any OpenAI-compatible server),
//! [`hermes::HermesAgent`] (Hermes Agent's gateway with the aria plugin,
//! over the Hermes link) and [`hermes_api::HermesAgent`] (Hermes Agent's
//! runs API, the lesser path for a Hermes that cannot load the plugin).

mod demo;
mod hermes;
mod hermes_api;
mod llm_turn;
mod openai;
mod sse;
mod turn;
mod upstream;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use turn::{ApprovalAsk, Reply, ToolCall, ToolOutcome, Turn, TurnError};

use crate::config::{AgentKind, Config};

/// A boxed future, so `Agent` stays object-safe (`Arc<dyn Agent>`).
pub type AgentFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub trait Agent: Send + Sync {
    /// Runs one turn answering `text`. `typing` on/off around it is the
    /// gateway's job. Returning early with the error of a [`Turn`] call is
    /// the expected way to stop when the turn is cancelled.
    fn run<'a>(
        &'a self,
        text: &'a str,
        turn: &'a mut Turn,
    ) -> AgentFuture<'a, Result<(), TurnError>>;

    /// A better title for an auto thread, made from its first message; `None`
    /// keeps the derived one. May take a while (an LLM call).
    fn title<'a>(&'a self, first_message: &'a str) -> AgentFuture<'a, Option<String>>;
}

/// The agent selected by `--agent`; `Err` says why it cannot start (the
/// Hermes link's port is taken). Must be called inside a Tokio runtime.
pub fn build(config: &Config) -> Result<Arc<dyn Agent>, String> {
    Ok(match config.agent {
        AgentKind::Demo => Arc::new(demo::DemoAgent::new(config.demo_delay)),
        AgentKind::OpenAi => Arc::new(openai::OpenAiAgent::new(
            config.openai.clone(),
            config.model_stall,
        )),
        AgentKind::Hermes => Arc::new(hermes::HermesAgent::new(config)?),
        AgentKind::HermesApi => Arc::new(hermes_api::HermesAgent::new(config)),
    })
}

//! The `hermes` agent: Hermes Agent's own messaging gateway, with this
//! repository's plugin (`hermes-plugin/`, platform `aria`) loaded, reached
//! over the Hermes link (docs/hermes-link.md).
//!
//! Each thread is one Hermes chat, so Hermes keeps the thread's session
//! (its transcript with tool calls and results, its todo list) itself; a
//! turn only sends the new message. The gateway listens on loopback and
//! joins whichever Hermes links to it with the secret it made.

mod answer;
mod from_hermes;
mod link;
mod path;
mod secret;
mod to_hermes;
mod wire;

use std::time::Duration;

use answer::{Answer, Failure};
use link::Link;
use wire::Command;

use super::{Agent, AgentFuture, Turn, TurnError};
use crate::config::Config;

/// How long a turn waits for Hermes to link (it may be starting).
const LINK_WAIT: Duration = Duration::from_secs(15);
/// How long a new auto thread waits for Hermes's title of its session
/// (Hermes makes it after the first answer, with a model call).
const TITLE_WAIT: Duration = Duration::from_secs(120);

pub struct HermesAgent {
    link: Link,
    stall: Duration,
}

impl Agent for HermesAgent {
    fn run<'a>(
        &'a self,
        text: &'a str,
        turn: &'a mut Turn,
    ) -> AgentFuture<'a, Result<(), TurnError>> {
        Box::pin(self.answer(text, turn))
    }

    /// Hermes titles a thread's session itself after its first exchange;
    /// the plugin sends that title over the link.
    fn title<'a>(
        &'a self,
        channel_id: &'a str,
        _first_message: &'a str,
    ) -> AgentFuture<'a, Option<String>> {
        let title = self.link.await_title(channel_id);
        Box::pin(async move {
            tokio::time::timeout(TITLE_WAIT, title)
                .await
                .ok()
                .and_then(Result::ok)
        })
    }
}

impl Drop for HermesAgent {
    fn drop(&mut self) {
        self.link.close();
    }
}

impl HermesAgent {
    /// Makes (or reads) the link's secret and listens for Hermes.
    pub fn new(config: &Config) -> Result<Self, String> {
        let secret = secret::load_or_create(&config.data_dir).map_err(|e| {
            format!(
                "cannot write the Hermes link's secret in {}: {e}",
                config.data_dir.display()
            )
        })?;
        let (link, bound) = Link::listen(config.hermes.link, secret).map_err(|e| {
            format!(
                "the Hermes link cannot listen on {}: {e}",
                config.hermes.link
            )
        })?;
        tracing::info!(
            %bound,
            secret_file = %secret::path(&config.data_dir).display(),
            "Hermes link listening"
        );
        Ok(Self {
            link,
            stall: config.model_stall,
        })
    }

    async fn answer(&self, text: &str, turn: &mut Turn) -> Result<(), TurnError> {
        let chat_id = turn.channel_id().to_string();
        if !self.link.linked_within(LINK_WAIT).await {
            let reason = "Hermes is not linked to the gateway: start `hermes gateway run` with \
                          the aria plugin enabled (see docs/hermes-link.md).";
            turn.commentary(&format!("⚠️ {reason}")).await?;
            return Err(TurnError::Failed(reason.into()));
        }
        let turn_id = turn.turn_id().to_string();
        let heard = self.link.register(&chat_id, &turn_id);
        let sent = match to_hermes::send(&self.link, turn, &chat_id, &turn_id).await {
            Ok(files) => self.link.send(&Command::Turn {
                chat_id: chat_id.clone(),
                turn_id,
                text: text.to_string(),
                follows: turn.follows().map(str::to_string),
                files,
            }),
            Err(why) => Err(why),
        };
        let mut answer = Answer::new(&self.link, turn, heard, self.stall, text);
        let outcome = match sent {
            Ok(()) => answer.run().await,
            Err(why) => Err(Failure::Hermes(why)),
        };
        let error = match outcome {
            Ok(()) => return Ok(()),
            Err(Failure::Turn(e)) => e,
            Err(Failure::Hermes(reason)) => answer.show_failure(&reason).await,
        };
        // Cancelled, or given up on: Hermes must not go on (and run
        // commands) unseen. Best effort: a lost link has nobody to tell.
        let _ = self.link.send(&Command::Cancel { chat_id });
        Err(error)
    }
}

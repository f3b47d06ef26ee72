//! One turn answered by Hermes over the link: the user's message goes out
//! as the thread's chat message, Hermes's events come back as frames.
//!
//! Hermes's messages are snapshots (`send` opens one, `edit` replaces its
//! text). The newest one stays open until something follows it: a tool
//! call or another message closes it (a streamed bubble as a message of its
//! own, a whole message as commentary, Hermes's interim beat); the one
//! still open when Hermes is done is the answer, with the model, the
//! turn's tokens and the reasoning of the answer's model call.

use std::collections::HashMap;
use std::time::Duration;

use aria_protocol::{Choice, PlanItem, PlanStatus};
use serde_json::Value;

use super::from_hermes::{Piece, Received};
use super::link::{Heard, Link, Registration};
use super::path;
use super::wire::{self, Command, Event};
use crate::agent::turn::ToolHandle;
use crate::agent::{ApprovalAsk, Reply, ToolCall, ToolOutcome, Turn, TurnError};

/// Most tasks of a plan shown (Hermes's todo tool keeps at most 256).
const MAX_PLAN_ITEMS: usize = 256;
/// Hermes's default `approvals.timeout`, after which it denies by itself.
const HERMES_APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a turn ends early: the turn's own error, or a failure to show.
pub enum Failure {
    Turn(TurnError),
    Hermes(String),
}

impl From<TurnError> for Failure {
    fn from(e: TurnError) -> Self {
        Self::Turn(e)
    }
}

/// What Hermes's `done` says about the answer.
struct About {
    model: Option<String>,
    tokens: Option<u64>,
    reasoning: Option<String>,
}

/// A message of Hermes's, as last sent or edited.
struct Said {
    message_id: String,
    text: String,
    reasoning: Option<String>,
    /// Whether clients show it as a streaming bubble already.
    streamed: bool,
}

pub struct Answer<'a> {
    link: &'a Link,
    turn: &'a mut Turn,
    heard: Registration,
    /// Longest silence of the link during a turn (Hermes refreshes typing
    /// every 2 s while it works).
    stall: Duration,
    open: Option<Said>,
    tools: HashMap<String, ToolHandle>,
    /// Whether any assistant message of this turn was shown.
    spoke: bool,
    /// Files Hermes sent, for the answer.
    files: Received,
    /// The user's message this turn answers.
    text: &'a str,
}

impl<'a> Answer<'a> {
    pub fn new(
        link: &'a Link,
        turn: &'a mut Turn,
        heard: Registration,
        stall: Duration,
        text: &'a str,
    ) -> Self {
        Self {
            link,
            turn,
            heard,
            stall,
            open: None,
            tools: HashMap::new(),
            spoke: false,
            files: Received::default(),
            text,
        }
    }

    /// Runs the turn to Hermes's `done`.
    pub async fn run(&mut self) -> Result<(), Failure> {
        loop {
            let heard = tokio::select! {
                heard = self.heard.heard.recv() => heard,
                paused = self.turn.pause(self.stall) => {
                    paused?;
                    return Err(Failure::Hermes(format!(
                        "Hermes sent nothing for {} s.", self.stall.as_secs()
                    )));
                }
            };
            let event = match heard {
                Some(Heard::Event(event)) => event,
                Some(Heard::Garbled(why)) => {
                    return Err(Failure::Hermes(format!("Hermes sent {why}.")))
                }
                Some(Heard::Lost(why)) => {
                    return Err(Failure::Hermes(format!(
                        "The link to Hermes was lost mid-turn ({why}), so this turn is over. \
                         Send again once Hermes is back."
                    )))
                }
                None => {
                    return Err(Failure::Hermes(
                        "Another turn of this thread took over the link to Hermes.".into(),
                    ))
                }
            };
            if let Event::Done {
                outcome,
                model,
                tokens,
                reasoning,
            } = event
            {
                let about = About {
                    model,
                    tokens,
                    reasoning,
                };
                return self.finish(&outcome, about).await;
            }
            self.apply(event).await?;
        }
    }

    async fn apply(&mut self, event: Event) -> Result<(), Failure> {
        match event {
            Event::Send {
                message_id,
                text,
                reasoning,
                streaming,
            } => {
                self.close().await?;
                self.open = Some(Said {
                    message_id,
                    text: String::new(),
                    reasoning: None,
                    streamed: false,
                });
                self.said(&text, reasoning, streaming)?;
            }
            Event::Edit {
                message_id,
                text,
                reasoning,
            } => {
                match &self.open {
                    // Only a message Hermes edits is a bubble it streams.
                    Some(open) if open.message_id == message_id => {
                        self.said(&text, reasoning, true)?;
                    }
                    // An edit of a message already closed changes nothing
                    // shown: clients keep what was logged.
                    _ => {}
                }
            }
            Event::ToolStart {
                call_id,
                name,
                args,
                preview,
                parent_call_id,
            } => {
                self.close().await?;
                // A sub-agent's call nests under its delegation's card.
                let parent = parent_call_id.and_then(|p| self.tools.get(&p));
                let tool = self
                    .turn
                    .tool_start_under(tool_call(name, args, preview), parent)?;
                self.tools.insert(call_id, tool);
            }
            Event::ToolEnd {
                call_id,
                name,
                ok,
                duration_ms,
                output_preview,
                output,
            } => {
                let tool = match self.tools.remove(&call_id) {
                    Some(tool) => tool,
                    None => self
                        .turn
                        .tool_start(tool_call(name, Value::Null, String::new()))?,
                };
                let outcome = ToolOutcome {
                    ok,
                    output_preview,
                    output,
                };
                let duration =
                    duration_ms.and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok());
                match duration {
                    Some(duration) => self.turn.tool_end_after(tool, outcome, duration).await?,
                    None => self.turn.tool_end(tool, outcome).await?,
                }
            }
            Event::Approval {
                approval_id,
                command,
                description,
                choices,
            } => {
                self.approve(approval_id, command, description, &choices)
                    .await?
            }
            Event::Plan { items } => self.turn.plan(plan_items(items))?,
            Event::PathNeed => {
                let (users, from_start) = path::users(self.turn, self.text).await?;
                let path = Command::Path {
                    chat_id: self.turn.channel_id().to_string(),
                    turn_id: self.turn.turn_id().to_string(),
                    users,
                    from_start,
                };
                self.link.send(&path).map_err(Failure::Hermes)?;
            }
            Event::File {
                file_id,
                name,
                offset,
                data,
                last,
                error,
            } => {
                let piece = Piece {
                    file_id,
                    name,
                    offset,
                    data,
                    last,
                    error,
                };
                self.files.piece(self.turn, piece).await?;
            }
            // The gateway keeps the thread's typing on for the whole turn;
            // a title goes to the thread, not the turn (the link routes it).
            Event::Typing | Event::Done { .. } | Event::Title { .. } => {}
        }
        Ok(())
    }

    /// The open message's new text; a streamed one updates its bubble.
    fn said(&mut self, text: &str, reasoning: Option<String>, stream: bool) -> Result<(), Failure> {
        let Some(open) = &mut self.open else {
            return Ok(());
        };
        // Hermes opens an answer after a tool call with line breaks: a
        // message starts at its first line of text.
        let text = text.trim_start_matches(['\n', '\r']);
        open.text = text.to_string();
        if reasoning.is_some() {
            open.reasoning = reasoning;
        }
        if stream && !text.trim().is_empty() {
            if !open.streamed {
                self.turn.start_message()?;
                open.streamed = true;
            }
            self.turn.update(text)?;
        }
        Ok(())
    }

    /// Closes the open message because more follows: a streamed bubble
    /// stops as a message, a whole message is commentary.
    async fn close(&mut self) -> Result<(), Failure> {
        let Some(said) = self.open.take() else {
            return Ok(());
        };
        if said.text.trim().is_empty() {
            return Ok(());
        }
        if said.streamed {
            self.spoke = true;
            self.turn
                .stop(Reply {
                    text: said.text,
                    reasoning: said.reasoning,
                    ..Reply::default()
                })
                .await?;
        } else {
            self.turn.commentary(&said.text).await?;
        }
        Ok(())
    }

    async fn approve(
        &mut self,
        approval_id: String,
        command: String,
        description: Option<String>,
        choices: &[String],
    ) -> Result<(), Failure> {
        let ask = ApprovalAsk {
            title: "Run this command?".into(),
            command: Some(command),
            description,
            choices: offered(choices),
        };
        // Hermes stops waiting after its own `approvals.timeout`.
        let timeout = self.turn.approval_timeout().min(HERMES_APPROVAL_TIMEOUT);
        let choice = self.turn.ask_approval_within(ask, timeout).await?;
        let answer = match choice {
            Choice::Once => "once",
            Choice::Session => "session",
            Choice::Always => "always",
            _ => "deny",
        };
        self.link
            .send(&Command::Approve {
                chat_id: self.turn.channel_id().to_string(),
                approval_id,
                choice: answer.into(),
            })
            .map_err(Failure::Hermes)
    }

    /// Hermes is done: the open message is the answer.
    async fn finish(&mut self, outcome: &str, about: About) -> Result<(), Failure> {
        if outcome != "success" {
            self.close().await?;
            return Err(Failure::Hermes(match outcome {
                "cancelled" => "Hermes stopped the run before it finished.".into(),
                _ => "Hermes failed while answering (its log says why).".into(),
            }));
        }
        let said = self.open.take().filter(|s| !s.text.trim().is_empty());
        let (files, notes) = self.files.take();
        if said.is_none() && files.is_empty() && notes.is_empty() {
            if self.spoke {
                return Ok(());
            }
            return Err(Failure::Hermes("Hermes finished without an answer.".into()));
        }
        // Files Hermes sent after its last message go on a message of
        // their own (it has no text then).
        let said = said.unwrap_or(Said {
            message_id: String::new(),
            text: String::new(),
            reasoning: None,
            streamed: false,
        });
        let mut text = said.text;
        for note in notes {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&note);
        }
        let reply = Reply {
            text,
            // A streamed answer has no reasoning prefix: the model call's.
            reasoning: said.reasoning.or(about.reasoning),
            model: about.model,
            tokens: about.tokens,
            files,
        };
        self.turn.log_plan().await?;
        if said.streamed {
            self.turn.stop(reply).await?;
        } else {
            self.turn.message(reply).await?;
        }
        Ok(())
    }

    /// Shows a failed turn in the thread: calls still running end as
    /// failed, the open message keeps what Hermes said, then a commentary
    /// gives `reason`. Returns the error to end the turn with.
    pub async fn show_failure(&mut self, reason: &str) -> TurnError {
        let shown = async {
            for (_, tool) in self.tools.drain() {
                let outcome = ToolOutcome::failed("Hermes stopped before this call ended");
                self.turn.tool_end(tool, outcome).await?;
            }
            match self.close().await {
                Ok(()) | Err(Failure::Hermes(_)) => {}
                Err(Failure::Turn(e)) => return Err(e),
            }
            self.turn.log_plan().await?;
            self.turn.commentary(&format!("⚠️ {reason}")).await
        };
        match shown.await {
            Ok(()) => TurnError::Failed(reason.to_string()),
            Err(e) => e,
        }
    }
}

fn tool_call(name: String, args: Value, preview: String) -> ToolCall {
    ToolCall {
        name,
        emoji: None,
        preview,
        // §5: `args` is an object; anything else Hermes sent is dropped.
        args: if args.is_object() {
            args
        } else {
            Value::Object(Default::default())
        },
    }
}

/// The todo list as §14 plan items, at most [`MAX_PLAN_ITEMS`].
fn plan_items(items: Vec<wire::PlanItem>) -> Vec<PlanItem> {
    items
        .into_iter()
        .take(MAX_PLAN_ITEMS)
        .map(|item| PlanItem {
            id: item.id,
            text: item.text,
            status: serde_json::from_value(Value::String(item.status))
                .unwrap_or(PlanStatus::Unknown),
        })
        .collect()
}

/// The choices Hermes offers that the protocol knows, `deny` always last.
fn offered(choices: &[String]) -> Vec<Choice> {
    let mut offered: Vec<Choice> = choices
        .iter()
        .filter_map(|c| serde_json::from_value::<Choice>(Value::String(c.clone())).ok())
        .filter(|c| c.is_answer() && *c != Choice::Deny)
        .collect();
    offered.push(Choice::Deny);
    offered
}

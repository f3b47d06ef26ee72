//! One running turn as the agent sees it: the calls that emit its frames.

mod approval;
mod nested;
mod plan;
mod unanswered;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aria_protocol::{
    CommentaryItem, ErrorCode, ErrorFrame, HistoryItem, InChannel, MessageItem, MessageStart,
    MessageStop, MessageUpdate, Role, ServerFrame, ToolEnd, ToolItem, ToolProgress, Typing,
};
use tokio::sync::watch;

use crate::approvals::Approvals;
use crate::clock::now_ms;
use crate::ids;
use crate::outbox::Outbox;
use crate::store::{StoreError, TurnSlot};

pub use approval::ApprovalAsk;

/// Why a turn stopped before the agent finished it.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("the turn was cancelled")]
    Cancelled,
    #[error("the channel was deleted")]
    ChannelGone,
    #[error("{0}")]
    Failed(String),
}

impl From<StoreError> for TurnError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => TurnError::ChannelGone,
            other => TurnError::Failed(other.to_string()),
        }
    }
}

/// A final answer (streamed bubble's end or a one-shot message).
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub text: String,
    pub reasoning: Option<String>,
    pub model: Option<String>,
    pub tokens: Option<u64>,
}

/// A tool call as announced by `tool.start`.
#[derive(Debug, Clone)]
pub struct ToolCall {
    pub name: String,
    pub emoji: Option<String>,
    pub preview: String,
    pub args: serde_json::Value,
}

/// How a tool call ended.
#[derive(Debug, Clone)]
pub struct ToolOutcome {
    pub ok: bool,
    pub output_preview: String,
    pub output: Option<String>,
}

impl ToolOutcome {
    /// A call that failed or never ran, with `why` as its preview.
    pub fn failed(why: impl Into<String>) -> Self {
        Self {
            ok: false,
            output_preview: why.into(),
            output: None,
        }
    }
}

/// A tool call that has started; [`Turn::tool_end`] consumes it.
#[derive(Debug)]
#[must_use = "a started tool call should end with Turn::tool_end"]
pub struct ToolHandle(u32);

struct RunningTool {
    call: ToolCall,
    started: Instant,
    /// The index of the call this one runs under (§14).
    parent: Option<u32>,
}

struct Bubble {
    message_id: String,
    text: String,
}

/// Largest `output` kept on a tool item; more is cut (§5 allows a cap).
const MAX_TOOL_OUTPUT_BYTES: usize = 256 * 1024;

pub struct Turn {
    outbox: Arc<Outbox>,
    approvals: Arc<Approvals>,
    channel_id: String,
    turn_id: String,
    /// The turn the answered message follows on the path (§12).
    follows: Option<String>,
    cancel: watch::Receiver<bool>,
    bubble: Option<Bubble>,
    tools: BTreeMap<u32, RunningTool>,
    last_index: u32,
    /// Approval requests of this turn not known to be resolved.
    waiting: Vec<String>,
}

impl Turn {
    /// Starts a turn: announces `typing {on:true}`.
    pub(crate) fn begin(
        outbox: Arc<Outbox>,
        approvals: Arc<Approvals>,
        channel_id: String,
        slot: &TurnSlot,
        cancel: watch::Receiver<bool>,
    ) -> Self {
        outbox.hub().publish(&ServerFrame::Typing(Typing {
            channel_id: channel_id.clone(),
            on: true,
        }));
        Self {
            outbox,
            approvals,
            channel_id,
            turn_id: slot.turn_id.clone(),
            follows: slot.follows.clone(),
            cancel,
            bubble: None,
            tools: BTreeMap::new(),
            last_index: 0,
            waiting: Vec::new(),
        }
    }

    /// The channel this turn answers in.
    pub fn channel_id(&self) -> &str {
        &self.channel_id
    }

    /// The agent turn that the answered message follows on the thread's
    /// active path (`None` at the thread's start). An agent that keeps a
    /// session of its own compares it with the last turn that session
    /// saw: when they differ, the thread branched (§12), and the session
    /// must be rewound or forked to this point first.
    pub fn follows(&self) -> Option<&str> {
        self.follows.as_deref()
    }

    /// The context LLM back ends send along: the active path up to and with
    /// the message being answered, in tree order (each user message
    /// followed by its turn), at most `limit` items, oldest first. Never
    /// an item of another branch.
    pub async fn history(&self, limit: u32) -> Result<Vec<HistoryItem>, TurnError> {
        let channel_id = self.channel_id.clone();
        let turn_id = self.turn_id.clone();
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let items = self
            .outbox
            .run(move |store, _| store.context(&channel_id, &turn_id, limit))
            .await?;
        Ok(items)
    }

    fn check(&self) -> Result<(), TurnError> {
        if *self.cancel.borrow() {
            Err(TurnError::Cancelled)
        } else {
            Ok(())
        }
    }

    fn publish(&self, frame: ServerFrame) {
        self.outbox.hub().publish(&frame);
    }

    /// Waits, or stops early with [`TurnError::Cancelled`].
    pub async fn pause(&mut self, duration: Duration) -> Result<(), TurnError> {
        self.check()?;
        tokio::select! {
            () = tokio::time::sleep(duration) => Ok(()),
            // An error means the gateway dropped the turn: stop as well.
            _ = self.cancel.wait_for(|cancelled| *cancelled) => Err(TurnError::Cancelled),
        }
    }

    /// Opens a streaming bubble (`message.start`).
    pub fn start_message(&mut self) -> Result<(), TurnError> {
        self.check()?;
        let message_id = ids::message_id();
        self.publish(ServerFrame::MessageStart(MessageStart {
            channel_id: self.channel_id.clone(),
            turn_id: Some(self.turn_id.clone()),
            message_id: message_id.clone(),
            role: Role::Assistant,
            ts: now_ms(),
        }));
        self.bubble = Some(Bubble {
            message_id,
            text: String::new(),
        });
        Ok(())
    }

    /// Sends the bubble's full text so far (`message.update`), opening the
    /// bubble first if needed.
    pub fn update(&mut self, text: &str) -> Result<(), TurnError> {
        if self.bubble.is_none() {
            self.start_message()?;
        }
        self.check()?;
        if let Some(bubble) = &mut self.bubble {
            bubble.text.clear();
            bubble.text.push_str(text);
            self.outbox
                .hub()
                .publish(&ServerFrame::MessageUpdate(MessageUpdate {
                    channel_id: self.channel_id.clone(),
                    turn_id: Some(self.turn_id.clone()),
                    message_id: bubble.message_id.clone(),
                    text: text.to_string(),
                }));
        }
        Ok(())
    }

    /// Ends the streaming bubble (`message.stop`), logging the final message.
    pub async fn stop(&mut self, reply: Reply) -> Result<(), TurnError> {
        self.check()?;
        self.log_stop(reply).await
    }

    /// Sends a final, not streamed assistant `message`.
    pub async fn message(&mut self, reply: Reply) -> Result<(), TurnError> {
        self.check()?;
        self.log_message(reply).await
    }

    /// Logs an assistant `message` and sends it to every device.
    async fn log_message(&mut self, reply: Reply) -> Result<(), TurnError> {
        let item = self.assistant_item(ids::message_id(), reply);
        let channel_id = self.channel_id.clone();
        self.outbox
            .run(move |store, hub| {
                let item = store.append(&channel_id, item)?;
                hub.publish(&ServerFrame::Message(InChannel { channel_id, item }));
                Ok(())
            })
            .await?;
        Ok(())
    }

    /// Sends an interim beat of the agent (`commentary`), logged.
    pub async fn commentary(&mut self, text: &str) -> Result<(), TurnError> {
        self.check()?;
        let item = CommentaryItem {
            seq: 0,
            message_id: ids::message_id(),
            text: text.to_string(),
            ts: now_ms(),
            turn_id: Some(self.turn_id.clone()),
            branch: None,
        };
        let channel_id = self.channel_id.clone();
        self.outbox
            .run(move |store, hub| {
                let item = store.append(&channel_id, item)?;
                hub.publish(&ServerFrame::Commentary(InChannel { channel_id, item }));
                Ok(())
            })
            .await?;
        Ok(())
    }

    /// Announces a tool call (`tool.start`) with the next index of the turn.
    pub fn tool_start(&mut self, call: ToolCall) -> Result<ToolHandle, TurnError> {
        self.tool_start_under(call, None)
    }

    /// A progress note of a running tool (`tool.progress`), not logged.
    pub fn tool_progress(&mut self, tool: &ToolHandle, note: &str) -> Result<(), TurnError> {
        self.check()?;
        let name = self
            .tools
            .get(&tool.0)
            .map(|t| t.call.name.clone())
            .unwrap_or_default();
        self.publish(ServerFrame::ToolProgress(ToolProgress {
            channel_id: self.channel_id.clone(),
            turn_id: Some(self.turn_id.clone()),
            index: tool.0,
            name,
            note: note.to_string(),
        }));
        Ok(())
    }

    /// Ends a tool call (`tool.end`), logging it as a `tool` item.
    pub async fn tool_end(
        &mut self,
        tool: ToolHandle,
        outcome: ToolOutcome,
    ) -> Result<(), TurnError> {
        self.check()?;
        self.log_tool_end(tool.0, outcome, None).await
    }

    /// [`Turn::tool_end`] with the duration the back end measured itself.
    pub async fn tool_end_after(
        &mut self,
        tool: ToolHandle,
        outcome: ToolOutcome,
        duration: Duration,
    ) -> Result<(), TurnError> {
        self.check()?;
        self.log_tool_end(tool.0, outcome, Some(duration)).await
    }

    async fn log_tool_end(
        &mut self,
        index: u32,
        mut outcome: ToolOutcome,
        duration: Option<Duration>,
    ) -> Result<(), TurnError> {
        let Some(running) = self.tools.remove(&index) else {
            return Err(TurnError::Failed(format!(
                "tool call {index} is not running"
            )));
        };
        if let Some(output) = &mut outcome.output {
            cap_output(output);
        }
        let item = ToolItem {
            seq: 0,
            turn_id: Some(self.turn_id.clone()),
            index,
            name: running.call.name,
            emoji: running.call.emoji,
            preview: running.call.preview,
            args: running.call.args,
            ok: outcome.ok,
            duration: duration
                .unwrap_or_else(|| running.started.elapsed())
                .as_secs_f64(),
            output_preview: outcome.output_preview,
            output: outcome.output,
            ts: now_ms(),
            branch: None,
        };
        let channel_id = self.channel_id.clone();
        self.outbox
            .run(move |store, hub| {
                let item = store.append(&channel_id, item)?;
                hub.publish(&ServerFrame::ToolEnd(ToolEnd {
                    channel_id,
                    turn_id: item.turn_id.clone(),
                    index: item.index,
                    seq: item.seq,
                    name: item.name,
                    ok: item.ok,
                    duration: item.duration,
                    output_preview: item.output_preview,
                    output: item.output,
                    parent_index: running.parent,
                    branch: item.branch,
                }));
                Ok(())
            })
            .await?;
        Ok(())
    }

    fn assistant_item(&self, message_id: String, reply: Reply) -> MessageItem {
        MessageItem {
            seq: 0,
            message_id,
            role: Role::Assistant,
            text: reply.text,
            reasoning: reply.reasoning,
            model: reply.model,
            tokens: reply.tokens,
            ts: now_ms(),
            turn_id: Some(self.turn_id.clone()),
            client_msg_id: None,
            branch: None,
        }
    }

    /// Logs the bubble's final message and sends `message.stop`. Without an
    /// open bubble the stop gets a fresh id (clients show it as final).
    async fn log_stop(&mut self, reply: Reply) -> Result<(), TurnError> {
        let message_id = match self.bubble.take() {
            Some(bubble) => bubble.message_id,
            None => ids::message_id(),
        };
        let item = self.assistant_item(message_id, reply);
        let channel_id = self.channel_id.clone();
        self.outbox
            .run(move |store, hub| {
                let item = store.append(&channel_id, item)?;
                hub.publish(&ServerFrame::MessageStop(MessageStop {
                    channel_id,
                    turn_id: item.turn_id,
                    message_id: item.message_id,
                    seq: item.seq,
                    final_text: item.text,
                    reasoning: item.reasoning,
                    model: item.model,
                    tokens: item.tokens,
                    ts: item.ts,
                    branch: item.branch,
                }));
                Ok(())
            })
            .await?;
        Ok(())
    }

    /// Ends the turn after the agent returned; the caller sends the
    /// `typing {on:false}` it returns once it knows whether a turn follows.
    pub(crate) async fn finish(mut self, outcome: Result<(), TurnError>) -> TypingOff {
        self.cancel_waiting().await;
        match self.wrap_up(&outcome).await {
            Ok(()) | Err(TurnError::ChannelGone) => {}
            Err(e) => tracing::warn!(channel = %self.channel_id, "cannot wrap up the turn: {e}"),
        }
        if let Err(TurnError::Failed(reason)) = &outcome {
            tracing::error!(channel = %self.channel_id, "turn failed: {reason}");
            self.publish(ServerFrame::Error(ErrorFrame {
                code: ErrorCode::Internal,
                message: format!("The agent failed: {reason}"),
                channel_id: Some(self.channel_id.clone()),
                client_msg_id: None,
                request_id: None,
                query: None,
            }));
        }
        TypingOff {
            outbox: self.outbox,
            channel_id: self.channel_id,
        }
    }

    /// A streaming bubble is stopped with the text it has. If the turn was
    /// cut short, tools still running end as failed; a turn that simply
    /// finished leaves them to the clients' "unknown outcome" (§5).
    async fn wrap_up(&mut self, outcome: &Result<(), TurnError>) -> Result<(), TurnError> {
        if let Err(TurnError::ChannelGone) = outcome {
            return Ok(());
        }
        if let Some(bubble) = &self.bubble {
            let reply = Reply {
                text: bubble.text.clone(),
                ..Reply::default()
            };
            self.log_stop(reply).await?;
        }
        if let Err(reason) = outcome {
            let open: Vec<u32> = self.tools.keys().copied().collect();
            for index in open {
                let failed = ToolOutcome::failed(reason.to_string());
                self.log_tool_end(index, failed, None).await?;
            }
        }
        self.log_if_unanswered(outcome).await
    }
}

/// The `typing {on:false}` that announces an ended turn. Sent only after
/// the channel's queue has been looked at, so a device that sees it and
/// at once edits, regenerates or switches (§12) finds no turn running.
#[must_use = "the end of a turn is announced by TypingOff::send"]
pub(crate) struct TypingOff {
    outbox: Arc<Outbox>,
    channel_id: String,
}

impl TypingOff {
    pub(crate) fn send(self) {
        self.outbox.hub().publish(&ServerFrame::Typing(Typing {
            channel_id: self.channel_id,
            on: false,
        }));
    }
}

/// Cuts `output` to at most [`MAX_TOOL_OUTPUT_BYTES`] on a char boundary.
fn cap_output(output: &mut String) {
    if output.len() > MAX_TOOL_OUTPUT_BYTES {
        let mut end = MAX_TOOL_OUTPUT_BYTES;
        while !output.is_char_boundary(end) {
            end -= 1;
        }
        output.truncate(end);
        output.push_str("\n[output cut at 256 KiB]");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_output_is_capped_on_a_char_boundary() {
        let mut output = "é".repeat(MAX_TOOL_OUTPUT_BYTES);
        cap_output(&mut output);
        assert!(output.len() <= MAX_TOOL_OUTPUT_BYTES + 32);
        assert!(output.ends_with("[output cut at 256 KiB]"));
        let mut small = "ok".to_string();
        cap_output(&mut small);
        assert_eq!(small, "ok");
    }
}

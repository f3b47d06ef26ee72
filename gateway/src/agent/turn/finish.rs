//! The end of a turn: the bubble stopped, tools still running ended, a
//! failure said, and the `typing {on:false}` handed to the caller.

use std::sync::Arc;

use aria_protocol::{ErrorCode, ErrorFrame, ServerFrame, Typing};

use super::{Reply, ToolOutcome, Turn, TurnError};
use crate::outbox::Outbox;

impl Turn {
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
                upload_id: None,
            }));
        }
        TypingOff {
            outbox: self.outbox,
            channel_id: self.channel_id,
        }
    }

    /// A plan not logged yet is logged, and a streaming bubble is stopped
    /// with the text it has. If the turn was cut short, tools still running
    /// end as failed; a turn that simply finished leaves them to the
    /// clients' "unknown outcome" (§5).
    async fn wrap_up(&mut self, outcome: &Result<(), TurnError>) -> Result<(), TurnError> {
        if let Err(TurnError::ChannelGone) = outcome {
            return Ok(());
        }
        self.log_plan().await?;
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

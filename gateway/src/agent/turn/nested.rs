//! Tool calls that run under another call of the turn (§14): a sub-agent's
//! calls under the delegation that started it.

use std::time::Instant;

use aria_protocol::{ServerFrame, ToolStart};

use super::{RunningTool, ToolCall, ToolHandle, Turn, TurnError};

impl Turn {
    /// Announces a tool call (`tool.start`) with the next index of the
    /// turn, nested under `parent` (a call of this turn) when given; its
    /// `tool.end` says the same parent.
    pub fn tool_start_under(
        &mut self,
        call: ToolCall,
        parent: Option<&ToolHandle>,
    ) -> Result<ToolHandle, TurnError> {
        self.check()?;
        self.last_index += 1;
        let index = self.last_index;
        let parent = parent.map(|p| p.0);
        self.publish(ServerFrame::ToolStart(ToolStart {
            channel_id: self.channel_id.clone(),
            turn_id: Some(self.turn_id.clone()),
            index,
            name: call.name.clone(),
            emoji: call.emoji.clone(),
            preview: call.preview.clone(),
            args: call.args.clone(),
            parent_index: parent,
        }));
        self.tools.insert(
            index,
            RunningTool {
                call,
                started: Instant::now(),
                parent,
            },
        );
        Ok(ToolHandle(index))
    }
}

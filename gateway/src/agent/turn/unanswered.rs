//! A turn that ends having logged nothing still leaves one item (§12):
//! an assistant message saying how it ended, so its node exists in the
//! thread's tree, can be regenerated and is shown to every device.

use aria_protocol::{InChannel, ServerFrame};

use super::{Reply, Turn, TurnError};
use crate::ids;

impl Turn {
    /// Logs and sends the note of a turn that logged nothing, if it did not.
    pub(super) async fn log_if_unanswered(
        &mut self,
        outcome: &Result<(), TurnError>,
    ) -> Result<(), TurnError> {
        let (channel_id, turn_id) = (self.channel_id.clone(), self.turn_id.clone());
        let logged = self
            .outbox
            .run(move |store, _| store.turn_logged(&channel_id, &turn_id))
            .await?;
        if logged {
            return Ok(());
        }
        let text = match outcome {
            Ok(()) => "The agent ended its turn without an answer.",
            Err(TurnError::Cancelled) => "Stopped before an answer.",
            Err(_) => "The agent failed before answering.",
        };
        let item = self.assistant_item(
            ids::message_id(),
            Reply {
                text: text.to_string(),
                ..Reply::default()
            },
        );
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
}

//! A turn that ends having logged nothing still leaves one item (§12):
//! an assistant message saying how it ended, so its node exists in the
//! thread's tree, can be regenerated and is shown to every device.

use super::{Reply, Turn, TurnError};

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
        self.log_message(Reply {
            text: text.to_string(),
            ..Reply::default()
        })
        .await
    }
}

//! Sending a message, with stored files (§13) or without.

use super::{Effect, PendingSend, Store};
use crate::protocol::FileRef;

impl Store {
    /// Sends a message to `channel` (`None`: auto-threads from the new
    /// thread pane) with files already stored, and shows it at once as a
    /// pending bubble. `text` may be empty when there are files.
    pub fn send_with_files(
        &mut self,
        channel: Option<String>,
        text: &str,
        files: Vec<FileRef>,
        client_msg_id: String,
        now_ms: f64,
    ) -> Vec<Effect> {
        let text = text.trim();
        if text.is_empty() && files.is_empty() {
            return Vec::new();
        }
        let entry = PendingSend {
            client_msg_id,
            channel_id: channel.clone(),
            text: text.to_string(),
            created_ms: now_ms,
            failed: None,
            channel_title: channel
                .as_deref()
                .and_then(|id| self.channels.get(id))
                .map(|c| c.meta.title.clone()),
            files,
        };
        // A message is written at the end of the thread: go there.
        let mut effects = match channel.filter(|c| self.active.as_ref() == Some(c)) {
            Some(id) => self.jump_to_latest(&id),
            None => Vec::new(),
        };
        self.show_pending(&entry);
        effects.extend(self.send_entry(&entry));
        self.pending_sends.push(entry);
        effects.push(Effect::PersistPendingSends);
        effects
    }
}

impl Store {
    /// The `file_id`s of a logged user message, in order.
    pub(super) fn files_of(&self, channel: &str, message_id: &str) -> Vec<String> {
        match self.user_row(channel, message_id).map(|r| &r.body) {
            Some(super::RowBody::User(u)) => u.files.iter().map(|f| f.file_id.clone()).collect(),
            _ => Vec::new(),
        }
    }
}

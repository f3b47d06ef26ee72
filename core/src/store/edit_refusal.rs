//! An edit (§12 `message.edit`) the gateway refused gives its text back:
//! the edit box opens again on the message with what was typed (and the
//! files taken off) and why it was refused, instead of the typing being
//! lost with the closed box.

use super::{Change, Row, RowBody, Store};

/// An edit sent and not yet answered by a switch or a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SentEdit {
    client_msg_id: String,
    channel_id: String,
    message_id: String,
    text: String,
    removed: Vec<String>,
}

/// A refused edit, to open again in its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedEdit {
    pub channel_id: String,
    /// The user message that was being edited.
    pub message_id: String,
    /// What the user had typed.
    pub text: String,
    /// The message's files the user had taken off.
    pub removed: Vec<String>,
    /// The gateway's reason, as shown to the user.
    pub why: String,
}

impl Store {
    /// Keeps the text of the edit just sent until the gateway answers it.
    pub(super) fn edit_sent(
        &mut self,
        channel: &str,
        message_id: &str,
        text: &str,
        removed: &[String],
        id: &str,
    ) {
        self.sent_edit = Some(SentEdit {
            client_msg_id: id.to_string(),
            channel_id: channel.to_string(),
            message_id: message_id.to_string(),
            text: text.to_string(),
            removed: removed.to_vec(),
        });
    }

    /// A switch made by an edit in the edit's thread answered it.
    pub(super) fn edit_settled(&mut self, channel: &str) {
        if self
            .sent_edit
            .as_ref()
            .is_some_and(|e| e.channel_id == channel)
        {
            self.sent_edit = None;
        }
    }

    /// An `error` for `client_msg_id`: when it answers the edit sent, the
    /// edit comes back to be reopened with `why`.
    pub(super) fn edit_refused(&mut self, client_msg_id: &str, why: &str) {
        let Some(sent) = self.sent_edit.take_if(|e| e.client_msg_id == client_msg_id) else {
            return;
        };
        self.refused_edit = Some(RefusedEdit {
            channel_id: sent.channel_id,
            message_id: sent.message_id,
            text: sent.text,
            removed: sent.removed,
            why: why.to_string(),
        });
        self.changes.push(Change::Channels);
    }

    /// The refused edit waiting to be reopened, if any.
    pub fn refused_edit(&self) -> Option<&RefusedEdit> {
        self.refused_edit.as_ref()
    }

    /// The edit box it reopened was sent again or left.
    pub fn forget_refused_edit(&mut self) {
        if self.refused_edit.take().is_some() {
            self.changes.push(Change::Channels);
        }
    }

    /// The row of the user message `message_id` in `channel`'s timeline.
    pub fn user_row(&self, channel: &str, message_id: &str) -> Option<&Row> {
        self.timeline(channel)?.rows().find(
            |r| matches!(&r.body, RowBody::User(u) if u.message_id.as_deref() == Some(message_id)),
        )
    }
}

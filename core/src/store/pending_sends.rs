//! Sends the gateway has not echoed yet. Kept in localStorage by the app so
//! they survive a reload; resent on every connect (the gateway is idempotent
//! on `client_msg_id`, so a resend never runs twice).

use serde::{Deserialize, Serialize};

use crate::protocol::FileRef;

use super::row::{Row, RowBody, SendState, UserMessage};
use super::row_key::RowKey;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingSend {
    pub client_msg_id: String,
    /// `None`: sent from the new thread pane, auto-threaded by the gateway.
    pub channel_id: Option<String>,
    pub text: String,
    pub created_ms: f64,
    /// Why the gateway rejected it, if it did.
    #[serde(default)]
    pub failed: Option<String>,
    /// The thread's title when it was sent: lets the app show the thread
    /// and its pending bubble after a reload, before the gateway lists it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_title: Option<String>,
    /// Stored files it carries (§13): a message is sent only once its
    /// files are stored, so a resend needs only their references.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileRef>,
}

impl PendingSend {
    /// The optimistic bubble shown until the echo replaces it.
    pub fn pending_row(&self) -> Row {
        Row {
            key: RowKey::send(&self.client_msg_id),
            seq: None,
            turn: None,
            ts: self.created_ms as i64,
            body: RowBody::User(UserMessage {
                text: self.text.clone(),
                message_id: None,
                client_msg_id: Some(self.client_msg_id.clone()),
                send: match &self.failed {
                    Some(why) => SendState::Failed(why.clone()),
                    None => SendState::Pending,
                },
                files: self.files.clone().into_boxed_slice(),
            }),
        }
    }
}

//! The end of a turn, announced once the channel's queue is known.

use std::sync::Arc;

use aria_protocol::{ServerFrame, Typing};

use crate::outbox::Outbox;

/// The `typing {on:false}` that announces an ended turn. Sent only after
/// the channel's queue has been looked at, so a device that sees it and
/// at once edits, regenerates or switches (§12) finds no turn running.
#[must_use = "the end of a turn is announced by TypingOff::send"]
pub(crate) struct TypingOff {
    pub(super) outbox: Arc<Outbox>,
    pub(super) channel_id: String,
}

impl TypingOff {
    pub(crate) fn send(self) {
        self.outbox.hub().publish(&ServerFrame::Typing(Typing {
            channel_id: self.channel_id,
            on: false,
        }));
    }
}

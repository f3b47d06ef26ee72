//! Test-only builders of protocol items that the host tests of several
//! modules share.

use crate::protocol::{CommentaryItem, HistoryItem};

/// A logged commentary item at `seq`, with an id and a text made from it.
pub fn commentary(seq: u64) -> HistoryItem {
    HistoryItem::Commentary(CommentaryItem {
        seq,
        message_id: format!("m{seq}"),
        text: format!("note {seq}"),
        ts: 1,
        turn_id: None,
        parent_index: None,
        branch: None,
    })
}

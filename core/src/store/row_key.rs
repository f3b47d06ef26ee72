//! The identity of a timeline row: one constructor per kind of row, so a
//! key is never spelled by hand. The view writes it into the DOM
//! (`data-key`) through [`RowKey::as_str`] and finds rows again by that
//! string (`Borrow<str>`), never by taking one apart.

use std::borrow::Borrow;
use std::fmt;

/// Stable identity of a row, kept when a pending bubble becomes the echo or a
/// streaming bubble becomes final, so the view never re-creates the row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowKey(String);

const MESSAGE: &str = "m:";

impl RowKey {
    /// A logged message (user, assistant or commentary) by its `message_id`.
    pub fn message(message_id: &str) -> Self {
        RowKey(format!("{MESSAGE}{message_id}"))
    }

    /// One of this client's sends by its `client_msg_id`: the pending
    /// bubble and, once echoed, the message it became.
    pub fn send(client_msg_id: &str) -> Self {
        RowKey(format!("u:{client_msg_id}"))
    }

    /// A tool call by its turn and its index in the turn.
    pub fn tool(turn: &str, index: u32) -> Self {
        RowKey(format!("t:{turn}:{index}"))
    }

    /// A logged tool call's key: by its turn, or without one by its seq,
    /// which keeps keys unique.
    pub fn logged_tool(turn: Option<&str>, index: u32, seq: u64) -> Self {
        match turn {
            Some(turn) => RowKey::tool(turn, index),
            None => RowKey(format!("t:?:{seq}")),
        }
    }

    /// The plan of a turn (§14): its live checklist and the state logged
    /// at the turn's end share it, so the turn shows one.
    pub fn plan(turn: &str) -> Self {
        RowKey(format!("p:{turn}"))
    }

    /// A logged plan's key: by its turn, or without one by its seq.
    pub fn logged_plan(turn: Option<&str>, seq: u64) -> Self {
        match turn {
            Some(turn) => RowKey::plan(turn),
            None => RowKey(format!("p:?:{seq}")),
        }
    }

    /// One key for an approval request and its resolution, so it is shown
    /// once.
    pub fn approval(request_id: &str) -> Self {
        RowKey(format!("a:{request_id}"))
    }

    /// The `message_id` a [`RowKey::message`] key was made from.
    pub fn message_id(&self) -> Option<&str> {
        self.0.strip_prefix(MESSAGE)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Hashes and compares as its string (derived from `String`'s), so maps
/// keyed by `RowKey` are looked up by a `data-key` read from the DOM.
impl Borrow<str> for RowKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn each_kind_of_row_has_its_own_key() {
        let keys = [
            RowKey::message("x1"),
            RowKey::send("x1"),
            RowKey::tool("x1", 1),
            RowKey::logged_tool(None, 1, 1),
            RowKey::approval("x1"),
            RowKey::plan("x1"),
            RowKey::logged_plan(None, 1),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn a_logged_tool_with_a_turn_is_that_turns_tool() {
        assert_eq!(
            RowKey::logged_tool(Some("turn_1"), 2, 9),
            RowKey::tool("turn_1", 2)
        );
        assert_ne!(
            RowKey::logged_tool(None, 2, 9),
            RowKey::logged_tool(None, 2, 10)
        );
    }

    #[test]
    fn only_a_message_key_gives_its_message_id() {
        assert_eq!(RowKey::message("m:7").message_id(), Some("m:7"));
        assert_eq!(RowKey::send("k1").message_id(), None);
        assert_eq!(RowKey::approval("r1").message_id(), None);
        assert_eq!(RowKey::tool("m", 1).message_id(), None);
    }

    #[test]
    fn a_map_keyed_by_row_key_is_found_by_its_dom_string() {
        let key = RowKey::tool("turn_1", 3);
        let dom = key.to_string();
        assert_eq!(dom, key.as_str());
        let map = HashMap::from([(key.clone(), 1)]);
        assert_eq!(map.get(dom.as_str()), Some(&1));
        assert_eq!(map.get("t:turn_1:4"), None);
    }
}

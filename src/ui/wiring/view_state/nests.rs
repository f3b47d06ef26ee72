//! The open thread's nested calls (§14), as the cards read them: each
//! call's calls, drawn inside its card, and the set of calls drawn so,
//! which the timeline does not draw again as rows of their own. Pure.

use std::collections::{HashMap, HashSet};

use crate::store::{RowKey, Timeline};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nests {
    children: HashMap<RowKey, Vec<RowKey>>,
    inside: HashSet<RowKey>,
}

impl Nests {
    pub fn of(timeline: &Timeline) -> Nests {
        let children: HashMap<RowKey, Vec<RowKey>> = timeline.nests().into_iter().collect();
        let inside = children.values().flatten().cloned().collect();
        Nests { children, inside }
    }

    /// The calls drawn inside `key`'s card, in the order they started.
    pub fn children(&self, key: &RowKey) -> &[RowKey] {
        self.children.get(key).map_or(&[], Vec::as_slice)
    }

    /// Whether `key` is drawn inside another call's card.
    pub fn is_inside(&self, key: &RowKey) -> bool {
        self.inside.contains(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Row, RowBody, ToolCall};

    fn call(index: u32, parent: Option<u32>) -> Row {
        Row {
            key: RowKey::tool("t1", index),
            seq: None,
            turn: Some("t1".into()),
            ts: 0,
            body: RowBody::Tool(ToolCall {
                parent,
                ..ToolCall::running(index, "terminal".into())
            }),
        }
    }

    #[test]
    fn calls_under_a_shown_call_are_drawn_inside_it() {
        let mut timeline = Timeline::default();
        for row in [
            call(1, None),
            call(2, Some(1)),
            call(3, Some(1)),
            call(5, Some(4)),
        ] {
            timeline.upsert(row);
        }
        let nests = Nests::of(&timeline);
        let key = |i| RowKey::tool("t1", i);
        assert_eq!(nests.children(&key(1)), [key(2), key(3)]);
        assert!(nests.is_inside(&key(2)) && nests.is_inside(&key(3)));
        // Its parent is not in the timeline: 5 stands on its own.
        assert!(!nests.is_inside(&key(5)) && !nests.is_inside(&key(1)));
        timeline.remove(&key(1));
        assert_eq!(Nests::of(&timeline), Nests::default());
    }
}

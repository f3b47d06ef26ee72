//! Each turn's work rows (tool calls and commentary), counted for the
//! "N tool calls" expander at the turn's first work row. Pure: one counter,
//! fed the rows appended at the end, or all rows again after anything else.

use std::collections::HashMap;

use crate::store::{Row, RowBody, RowKey};

/// A turn's tool and commentary rows, for the "N tool calls" expander.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnWork {
    pub turn: String,
    pub tools: usize,
}

/// The counts, by the key of each turn's first work row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkCount {
    /// Each turn's first work row.
    first: HashMap<String, RowKey>,
    counts: HashMap<RowKey, TurnWork>,
}

impl WorkCount {
    /// Counts `rows` from nothing.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> WorkCount {
        let mut count = WorkCount::default();
        count.add(rows);
        count
    }

    /// Rows after every row counted so far: their turns' tool counts grow,
    /// and a turn seen for the first time starts at its first work row.
    /// True when a count changed.
    pub fn add<'a>(&mut self, rows: impl IntoIterator<Item = &'a Row>) -> bool {
        let mut changed = false;
        for row in rows {
            let Some((turn, tool)) = work_of(row) else {
                continue;
            };
            let key = self
                .first
                .entry(turn.to_string())
                .or_insert_with(|| row.key.clone());
            self.counts
                .entry(key.clone())
                .or_insert_with(|| TurnWork {
                    turn: turn.to_string(),
                    tools: 0,
                })
                .tools += usize::from(tool);
            changed = true;
        }
        changed
    }

    /// The turn and its tool count, when `key` is a turn's first work row.
    pub fn get(&self, key: &RowKey) -> Option<&TurnWork> {
        self.counts.get(key)
    }
}

/// The turn of a work row (tool call or commentary) and whether it is a tool.
fn work_of(row: &Row) -> Option<(&str, bool)> {
    match (&row.turn, &row.body) {
        (Some(turn), RowBody::Tool(_)) => Some((turn, true)),
        (Some(turn), RowBody::Commentary(_)) => Some((turn, false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Answer, ToolCall, ToolState};

    fn row(key: &str, turn: Option<&str>, body: RowBody) -> Row {
        Row {
            key: RowKey::message(key),
            seq: None,
            turn: turn.map(str::to_string),
            ts: 0,
            body,
        }
    }

    fn tool(key: &str, turn: &str) -> Row {
        row(
            key,
            Some(turn),
            RowBody::Tool(ToolCall {
                index: 0,
                name: "read_file".into(),
                emoji: None,
                preview: String::new(),
                args: serde_json::Value::Null,
                state: ToolState::Ok,
                duration: None,
                notes: Vec::new(),
                output_preview: String::new(),
                output: None,
            }),
        )
    }

    fn rows() -> Vec<Row> {
        vec![
            row("a1", Some("t1"), RowBody::Assistant(Answer::default())),
            row("c1", Some("t1"), RowBody::Commentary("thinking".into())),
            tool("x1", "t1"),
            tool("x2", "t1"),
            tool("y1", "t2"),
            // A tool without a turn belongs to no expander.
            row("z", None, RowBody::Commentary("loose".into())),
        ]
    }

    #[test]
    fn a_turn_counts_its_tools_at_its_first_work_row() {
        let count = WorkCount::of(&rows());
        assert_eq!(
            count.get(&RowKey::message("c1")),
            Some(&TurnWork {
                turn: "t1".into(),
                tools: 2
            })
        );
        assert_eq!(
            count.get(&RowKey::message("y1")),
            Some(&TurnWork {
                turn: "t2".into(),
                tools: 1
            })
        );
        assert_eq!(count.get(&RowKey::message("x1")), None);
        assert_eq!(count.get(&RowKey::message("z")), None);
    }

    #[test]
    fn appending_in_parts_counts_what_counting_at_once_does() {
        let all = rows();
        for cut in 0..=all.len() {
            let mut count = WorkCount::of(&all[..cut]);
            let changed = count.add(&all[cut..]);
            assert_eq!(count, WorkCount::of(&all), "cut at {cut}");
            assert_eq!(changed, all[cut..].iter().any(|r| work_of(r).is_some()));
        }
    }
}

//! Where the view puts the steering controls of a thread (§12): one
//! "‹ 2/3 ›" navigator per node that has siblings (on a user message; on
//! an agent turn's last answer, or its last item when it has none), and
//! the targets of the keyboard shortcuts (the last own message to edit,
//! the last answer to regenerate).

use std::collections::HashMap;

use super::row::{Row, RowBody, SendState};
use super::row_key::RowKey;
use super::Store;
use crate::protocol::Branch;

/// What kind of node a navigator switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A user message: its siblings are its edits.
    Message,
    /// An agent turn: its siblings are its regenerations.
    Answer,
}

/// One navigator: the node's item it switches from and the node's place
/// among its siblings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Navigator {
    pub kind: NodeKind,
    /// A logged item of the node (what `switch_branch` takes).
    pub seq: u64,
    pub branch: Branch,
}

impl Navigator {
    /// The position shown, "2/3".
    pub fn position(&self) -> String {
        format!("{}/{}", self.branch.index + 1, self.branch.siblings.len())
    }

    /// The accessible name of the group: "Answer 2 of 3".
    pub fn label(&self) -> String {
        let what = match self.kind {
            NodeKind::Message => "Message",
            NodeKind::Answer => "Answer",
        };
        format!(
            "{what} {} of {}",
            self.branch.index + 1,
            self.branch.siblings.len()
        )
    }

    pub fn has_previous(&self) -> bool {
        self.branch.neighbour(-1).is_some()
    }

    pub fn has_next(&self) -> bool {
        self.branch.neighbour(1).is_some()
    }
}

/// A user message of this thread that can be edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editable {
    pub key: RowKey,
    pub message_id: String,
    pub text: String,
}

impl Store {
    /// The navigators of a thread's loaded rows, by the row that shows
    /// each one.
    pub fn navigators(&self, channel: &str) -> HashMap<RowKey, Navigator> {
        let mut out = HashMap::new();
        let Some(c) = self.channels.get(channel) else {
            return out;
        };
        // Per turn: the row that shows it, and whether that is an answer.
        // Only items that have siblings are looked at, in seq order: the
        // work is the forks', not the thread's.
        let mut turns: HashMap<&str, (&Row, bool)> = HashMap::new();
        for (&seq, branch) in &c.branches.at {
            let row = c.timeline.key_from(seq).and_then(|k| c.timeline.get(k));
            let Some(row) = row.filter(|r| r.seq == Some(seq)) else {
                continue;
            };
            match (&row.body, row.turn.as_deref()) {
                (RowBody::User(_), _) => {
                    out.insert(
                        row.key.clone(),
                        Navigator {
                            kind: NodeKind::Message,
                            seq,
                            branch: branch.clone(),
                        },
                    );
                }
                (body, Some(turn)) => {
                    let answer = is_answer(body);
                    let slot = turns.entry(turn).or_insert((row, answer));
                    // A later item wins, but never an item that is not an
                    // answer over one that is.
                    if answer || !slot.1 {
                        *slot = (row, answer);
                    }
                }
                // An agent item without a turn is a node of its own.
                (_, None) => {
                    out.insert(
                        row.key.clone(),
                        Navigator {
                            kind: NodeKind::Answer,
                            seq,
                            branch: branch.clone(),
                        },
                    );
                }
            }
        }
        for (row, _) in turns.into_values() {
            let Some(seq) = row.seq else { continue };
            if let Some(branch) = c.branches.at.get(&seq) {
                out.insert(
                    row.key.clone(),
                    Navigator {
                        kind: NodeKind::Answer,
                        seq,
                        branch: branch.clone(),
                    },
                );
            }
        }
        out
    }

    /// The thread's last user message that the gateway logged, to edit
    /// (Up arrow in an empty message box).
    pub fn last_editable(&self, channel: &str) -> Option<Editable> {
        let c = self.channels.get(channel)?;
        c.timeline.rows().rev().find_map(|row| match &row.body {
            RowBody::User(u) if u.send == SendState::Delivered && row.seq.is_some() => {
                Some(Editable {
                    key: row.key.clone(),
                    message_id: u.message_id.clone()?,
                    text: u.text.clone(),
                })
            }
            _ => None,
        })
    }

    /// The turn of the thread's last answer, to regenerate. Only an answer
    /// that follows the last user message: a message still waiting for its
    /// answer has nothing to regenerate.
    pub fn last_answer_turn(&self, channel: &str) -> Option<String> {
        let c = self.channels.get(channel)?;
        for row in c.timeline.rows().rev() {
            match &row.body {
                RowBody::User(_) => return None,
                body if row.seq.is_some() && is_answer(body) => return row.turn.clone(),
                _ => {}
            }
        }
        None
    }
}

/// An agent's answer (not another role's message).
fn is_answer(body: &RowBody) -> bool {
    matches!(body, RowBody::Assistant(a) if !a.other_role)
}

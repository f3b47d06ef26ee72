//! The thread's branching requests as store operations (§12): a sent
//! message continues the active path, an edit or a regeneration adds a
//! sibling and switches to it, a selection switches to a remembered
//! branch. Each checks its refusals in the contract's order and changes the
//! path in one transaction; publishing is the caller's.

use aria_protocol::{FileRef, HistoryItem, MessageItem, Role};
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::tree::{self, Kind, Node, Switch};
use super::{append_in, Store, StoreError};
use crate::ids;

/// Why a branching request is refused, in the order they are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The `message_id`, `turn_id` or `seq` is not in the channel.
    NotFound,
    /// A turn runs or waits in the channel.
    Busy,
    /// The node is not on the active path (edit, regenerate).
    OffPath,
    /// The `message_id` is not a user message's.
    NotUserMessage,
}

/// A turn to run: the one answering a sent or edited message, or a
/// regeneration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnSlot {
    pub turn_id: String,
    /// The text of the user message it answers.
    pub text: String,
    /// The files of that message (§13), sent to the model in full.
    pub files: Box<[FileRef]>,
    /// The agent turn that message follows on the path (`None` at the
    /// thread's start): where an agent keeping its own session must be.
    pub follows: Option<String>,
}

/// The text and files of the user message a turn answers.
type Question = (String, Box<[FileRef]>);

/// A user message logged at the end of the path, and its turn.
#[derive(Debug)]
pub struct Sent {
    pub echo: MessageItem,
    pub turn: TurnSlot,
    /// The path change of an edit, to announce before the echo.
    pub switch: Option<Switch>,
}

#[derive(Debug)]
pub enum Edited {
    /// A resend: the first echo, in its channel.
    Duplicate(String, MessageItem),
    Refused(Refusal),
    Done(Sent),
}

#[derive(Debug)]
pub enum Regenerated {
    /// A resend: nothing to do.
    Duplicate,
    Refused(Refusal),
    Done(Switch, TurnSlot),
}

#[derive(Debug)]
pub enum Selected {
    Refused(Refusal),
    /// The node was on the active path already.
    Unchanged,
    Done(Switch),
}

impl Store {
    /// Logs a user message at the end of the active path, with the turn
    /// that will answer it (§4: after the turns before it).
    pub fn send_user(&mut self, channel_id: &str, item: MessageItem) -> Result<Sent, StoreError> {
        let tx = self.conn.transaction()?;
        let echo = append_in(&tx, channel_id, item)?;
        let user = node(&tx, channel_id, &echo.message_id)?;
        let turn_id = ids::turn_id();
        tree::append_node(&tx, channel_id, Kind::Turn, &turn_id, None)?;
        let turn = slot(&tx, turn_id, &user, (echo.text.clone(), echo.files.clone()))?;
        tx.commit()?;
        Ok(Sent {
            echo,
            turn,
            switch: None,
        })
    }

    /// `message.edit`: `item` (a new user message) as a sibling of the user
    /// message `message_id`, at the end of a new active path.
    pub fn edit(
        &mut self,
        channel_id: &str,
        message_id: &str,
        item: MessageItem,
        busy: bool,
    ) -> Result<Edited, StoreError> {
        if let Some(key) = &item.client_msg_id {
            if let Some((channel, echo)) = self.find_client_msg(key)? {
                return Ok(Edited::Duplicate(channel, echo));
            }
        }
        let tx = self.conn.transaction()?;
        tree::leaf(&tx, channel_id)?;
        let old = match tree::find(&tx, channel_id, message_id)? {
            Some(node) if node.kind == Kind::User => Some(node),
            _ if !has_message(&tx, channel_id, message_id)? => {
                return Ok(Edited::Refused(Refusal::NotFound))
            }
            _ => None,
        };
        if busy {
            return Ok(Edited::Refused(Refusal::Busy));
        }
        let old = match old {
            Some(old) if old.on_path => old,
            Some(_) => return Ok(Edited::Refused(Refusal::OffPath)),
            None => return Ok(Edited::Refused(Refusal::NotUserMessage)),
        };
        let user = tree::add_child(
            &tx,
            channel_id,
            old.parent,
            Kind::User,
            &item.message_id,
            None,
        )?;
        let turn_id = ids::turn_id();
        let turn = tree::add_child(&tx, channel_id, user, Kind::Turn, &turn_id, None)?;
        tx.execute(
            "UPDATE nodes SET chosen = ?2 WHERE node = ?1",
            params![user, turn],
        )?;
        let switch = tree::switch(&tx, channel_id, old.parent, user)?;
        let echo = append_in(&tx, channel_id, item)?;
        let user = tree::get(&tx, user)?;
        let turn = slot(&tx, turn_id, &user, (echo.text.clone(), echo.files.clone()))?;
        tx.commit()?;
        Ok(Edited::Done(Sent { echo, turn, switch }))
    }

    /// `turn.regenerate`: a new turn answering what `turn_id` answered, as
    /// its sibling at the end of a new active path.
    pub fn regenerate(
        &mut self,
        channel_id: &str,
        turn_id: &str,
        client_msg_id: &str,
        busy: bool,
    ) -> Result<Regenerated, StoreError> {
        if tree::regenerated_with(&self.conn, client_msg_id)?
            || self.find_client_msg(client_msg_id)?.is_some()
        {
            return Ok(Regenerated::Duplicate);
        }
        let tx = self.conn.transaction()?;
        tree::leaf(&tx, channel_id)?;
        let Some(old) = tree::find(&tx, channel_id, turn_id)?.filter(|n| n.kind == Kind::Turn)
        else {
            return Ok(Regenerated::Refused(Refusal::NotFound));
        };
        if busy {
            return Ok(Regenerated::Refused(Refusal::Busy));
        }
        if !old.on_path {
            return Ok(Regenerated::Refused(Refusal::OffPath));
        }
        // The message answered: the turn's parent, or in a log written
        // before branches (one chain in logged order) the nearest user
        // message above it.
        let Some(question) = tree::ancestors(&tx, old.parent)?
            .into_iter()
            .find(|n| n.kind == Kind::User)
        else {
            return Ok(Regenerated::Refused(Refusal::NotUserMessage));
        };
        let Some(message) = first_message(&tx, &question)? else {
            return Ok(Regenerated::Refused(Refusal::NotUserMessage));
        };
        let new_id = ids::turn_id();
        let new = tree::add_child(
            &tx,
            channel_id,
            old.parent,
            Kind::Turn,
            &new_id,
            Some(client_msg_id),
        )?;
        let Some(switch) = tree::switch(&tx, channel_id, old.parent, new)? else {
            return Err(StoreError::Corrupt("a new turn was on the path".into()));
        };
        refresh_preview(&tx, channel_id)?;
        let turn = slot(&tx, new_id, &question, message)?;
        tx.commit()?;
        Ok(Regenerated::Done(switch, turn))
    }

    /// `branch.select`: the active path through the node of item `seq`.
    pub fn select(
        &mut self,
        channel_id: &str,
        seq: u64,
        busy: bool,
    ) -> Result<Selected, StoreError> {
        let tx = self.conn.transaction()?;
        tree::leaf(&tx, channel_id)?;
        let Some(node) = tree::node_of_seq(&tx, channel_id, seq)? else {
            return Ok(Selected::Refused(Refusal::NotFound));
        };
        if busy {
            return Ok(Selected::Refused(Refusal::Busy));
        }
        if tree::get(&tx, node)?.on_path {
            return Ok(Selected::Unchanged);
        }
        let (fork, child) = tree::remember_way_to(&tx, node)?;
        let Some(switch) = tree::switch(&tx, channel_id, fork, child)? else {
            return Ok(Selected::Unchanged);
        };
        refresh_preview(&tx, channel_id)?;
        tx.commit()?;
        Ok(Selected::Done(switch))
    }

    /// Adds `items` (a user message, then its turn's items) as another
    /// version of the user message `seq`, off the active path: seeding a
    /// thread with forks, as editing would leave them.
    pub fn graft(
        &mut self,
        channel_id: &str,
        seq: u64,
        items: Vec<HistoryItem>,
    ) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        let Some(of) = tree::node_of_seq(&tx, channel_id, seq)? else {
            return Err(StoreError::NotFound);
        };
        let parent = tree::get(&tx, of)?.parent;
        let mut below = parent;
        for item in items {
            let next = super::last_seq(&tx, channel_id)? + 1;
            let (kind, key) = super::tree_schema::node_key(&item, next);
            if tree::find(&tx, channel_id, &key)?.is_none() {
                below = tree::add_child(&tx, channel_id, below, kind, &key, None)?;
            }
            append_in(&tx, channel_id, item)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Whether the turn `turn_id` has logged an item.
    pub fn turn_logged(&self, channel_id: &str, turn_id: &str) -> Result<bool, StoreError> {
        let logged: Option<bool> = self
            .conn
            .query_row(
                "SELECT first_seq IS NOT NULL FROM nodes WHERE channel_id = ?1 AND key = ?2",
                params![channel_id, turn_id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(logged.unwrap_or(false))
    }

    /// The agent's context for the turn `turn_id`: the path up to and with
    /// the user message it answers, in tree order (each user message
    /// followed by its turn), at most `limit` items, the newest kept.
    pub fn context(
        &self,
        channel_id: &str,
        turn_id: &str,
        limit: usize,
    ) -> Result<Vec<HistoryItem>, StoreError> {
        let Some(turn) = tree::find(&self.conn, channel_id, turn_id)? else {
            return Err(StoreError::NotFound);
        };
        let mut stmt = self
            .conn
            .prepare_cached("SELECT item FROM log WHERE node = ?1 ORDER BY seq DESC")?;
        let mut items = Vec::new();
        for node in tree::ancestors(&self.conn, turn.parent)? {
            let rows = stmt.query_map([node.id], |r| r.get::<_, String>(0))?;
            for json in rows {
                if items.len() == limit {
                    break;
                }
                items.push(HistoryItem::decode(&json?)?);
            }
        }
        items.reverse();
        Ok(items)
    }
}

/// The node `key` of a channel, which must exist.
fn node(conn: &Connection, channel_id: &str, key: &str) -> Result<Node, StoreError> {
    tree::find(conn, channel_id, key)?
        .ok_or_else(|| StoreError::Corrupt(format!("node {key} was not created")))
}

/// The turn `turn_id` answering `question` (a user message's node).
fn slot(
    conn: &Connection,
    turn_id: String,
    question: &Node,
    (text, files): Question,
) -> Result<TurnSlot, StoreError> {
    let parent = tree::get(conn, question.parent)?;
    Ok(TurnSlot {
        turn_id,
        text,
        files,
        follows: (parent.kind == Kind::Turn).then_some(parent.key),
    })
}

/// Whether any logged item of the channel has the `message_id` (the
/// refusal path only: it reads the channel's log).
fn has_message(conn: &Connection, channel_id: &str, message_id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM log WHERE channel_id = ?1
             AND json_extract(item, '$.message_id') = ?2 LIMIT 1",
            params![channel_id, message_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// The text and files of a user message node's message.
fn first_message(conn: &Connection, node: &Node) -> Result<Option<Question>, StoreError> {
    if node.kind != Kind::User {
        return Ok(None);
    }
    let json: Option<String> = conn
        .query_row(
            "SELECT item FROM log WHERE node = ?1 ORDER BY seq LIMIT 1",
            [node.id],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match json.map(|j| HistoryItem::decode(&j)).transpose()? {
        Some(HistoryItem::Message(m)) if m.role == Role::User => Some((m.text, m.files)),
        _ => None,
    })
}

/// `Channel.preview` after a switch: the active path's last message.
fn refresh_preview(tx: &Transaction<'_>, channel_id: &str) -> Result<(), StoreError> {
    let json: Option<String> = tx
        .query_row(
            "SELECT item FROM log WHERE channel_id = ?1 AND on_path = 1
             AND json_extract(item, '$.type') = 'message' ORDER BY seq DESC LIMIT 1",
            [channel_id],
            |r| r.get(0),
        )
        .optional()?;
    let preview = match json.map(|j| HistoryItem::decode(&j)).transpose()? {
        Some(HistoryItem::Message(m)) => Some(aria_protocol::thread_preview(&m.text)),
        _ => None,
    };
    tx.execute(
        "UPDATE channels SET preview = ?2 WHERE channel_id = ?1",
        params![channel_id, preview],
    )?;
    Ok(())
}

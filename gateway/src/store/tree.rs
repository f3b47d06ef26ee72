//! The thread as a tree of nodes (§12), kept beside the log.
//!
//! A node is the thread's root, one user message, or one agent turn (every
//! logged item with its `turn_id`). Each log row names its node; each node
//! its parent and the child last on the active path (`chosen`, so going
//! back to a branch brings back everything below it). The active path is
//! marked on the nodes and on their log rows (`on_path`), so reading it is
//! an index range scan like reading the whole log was; a switch rewrites
//! the marks of the nodes that leave or join the path, and nothing else.
//! Node ids are the database's, never a client's.

use aria_protocol::Branch;
use rusqlite::{params, Connection, OptionalExtension};

use super::StoreError;

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Root = 0,
    User = 1,
    Turn = 2,
}

impl Kind {
    fn from_db(n: i64) -> Self {
        match n {
            1 => Kind::User,
            2 => Kind::Turn,
            _ => Kind::Root,
        }
    }
}

/// One node as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub id: i64,
    pub parent: i64,
    pub kind: Kind,
    /// The message id of a user message, the turn id of a turn.
    pub key: String,
    pub on_path: bool,
}

/// A change of the active path, as `branch.switched` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    pub fork_seq: u64,
    pub branch_rev: u64,
}

const NODE_COLUMNS: &str = "node, parent, kind, key, on_path";

fn node_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Node> {
    Ok(Node {
        id: r.get(0)?,
        parent: r.get(1)?,
        kind: Kind::from_db(r.get(2)?),
        key: r.get(3)?,
        on_path: r.get(4)?,
    })
}

/// Creates the root of a new channel's tree; it is the whole active path.
pub fn create_root(conn: &Connection, channel_id: &str) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO nodes (channel_id, parent, kind, key, on_path) VALUES (?1, 0, 0, '', 1)",
        [channel_id],
    )?;
    let root = conn.last_insert_rowid();
    conn.execute(
        "UPDATE channels SET leaf = ?2 WHERE channel_id = ?1",
        params![channel_id, root],
    )?;
    Ok(root)
}

/// The node `key` of a channel.
pub fn find(conn: &Connection, channel_id: &str, key: &str) -> Result<Option<Node>, StoreError> {
    let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE channel_id = ?1 AND key = ?2");
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![channel_id, key], node_from_row)
        .optional()?)
}

pub fn get(conn: &Connection, node: i64) -> Result<Node, StoreError> {
    let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE node = ?1");
    conn.prepare_cached(&sql)?
        .query_row([node], node_from_row)
        .optional()?
        .ok_or_else(|| StoreError::Corrupt(format!("node {node} is missing")))
}

/// The node holding the logged item `seq` of a channel.
pub fn node_of_seq(
    conn: &Connection,
    channel_id: &str,
    seq: u64,
) -> Result<Option<i64>, StoreError> {
    let Ok(seq) = i64::try_from(seq) else {
        return Ok(None);
    };
    Ok(conn
        .prepare_cached("SELECT node FROM log WHERE channel_id = ?1 AND seq = ?2")?
        .query_row(params![channel_id, seq], |r| r.get(0))
        .optional()?)
}

/// The last node of the channel's active path.
pub fn leaf(conn: &Connection, channel_id: &str) -> Result<i64, StoreError> {
    conn.prepare_cached("SELECT leaf FROM channels WHERE channel_id = ?1")?
        .query_row([channel_id], |r| r.get(0))
        .optional()?
        .ok_or(StoreError::NotFound)
}

/// Adds a node below `parent`, off the active path until a switch or
/// [`extend_path`] puts it there.
pub fn add_child(
    conn: &Connection,
    channel_id: &str,
    parent: i64,
    kind: Kind,
    key: &str,
    client_msg_id: Option<&str>,
) -> Result<i64, StoreError> {
    conn.prepare_cached(
        "INSERT INTO nodes (channel_id, parent, kind, key, client_msg_id, on_path)
         VALUES (?1, ?2, ?3, ?4, ?5, 0)",
    )?
    .execute(params![channel_id, parent, kind as i64, key, client_msg_id])?;
    Ok(conn.last_insert_rowid())
}

/// Puts `node`, a child of the path's leaf, at the end of the active path.
pub fn extend_path(conn: &Connection, channel_id: &str, node: &Node) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE nodes SET chosen = ?2 WHERE node = ?1")?
        .execute(params![node.parent, node.id])?;
    conn.prepare_cached("UPDATE nodes SET on_path = 1 WHERE node = ?1")?
        .execute([node.id])?;
    conn.prepare_cached("UPDATE channels SET leaf = ?2 WHERE channel_id = ?1")?
        .execute(params![channel_id, node.id])?;
    Ok(())
}

/// A new node continuing the active path (a sent message, its turn).
pub fn append_node(
    conn: &Connection,
    channel_id: &str,
    kind: Kind,
    key: &str,
    client_msg_id: Option<&str>,
) -> Result<Node, StoreError> {
    let parent = leaf(conn, channel_id)?;
    let id = add_child(conn, channel_id, parent, kind, key, client_msg_id)?;
    let node = Node {
        id,
        parent,
        kind,
        key: key.to_string(),
        on_path: true,
    };
    extend_path(conn, channel_id, &node)?;
    Ok(node)
}

/// The node an item being logged belongs to: the one named by its key, or
/// (for items logged without a prepared node, such as seeded ones) a new
/// node continuing the active path.
pub fn node_for_item(
    conn: &Connection,
    channel_id: &str,
    kind: Kind,
    key: &str,
) -> Result<Node, StoreError> {
    match find(conn, channel_id, key)? {
        Some(node) => Ok(node),
        None => append_node(conn, channel_id, kind, key, None),
    }
}

/// Records `seq` as the node's first logged item, unless it has one.
pub fn note_item(conn: &Connection, node: i64, seq: u64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE nodes SET first_seq = ?2 WHERE node = ?1 AND first_seq IS NULL")?
        .execute(params![node, seq])?;
    Ok(())
}

/// The `branch` of the node's items: `None` unless it has siblings with
/// logged items.
pub fn branch_of(conn: &Connection, node: &Node) -> Result<Option<Branch>, StoreError> {
    if node.kind == Kind::Root {
        return Ok(None);
    }
    branch_below(conn, node.id, node.parent)
}

/// The `branch` of `node`, a child of `parent`.
pub fn branch_below(
    conn: &Connection,
    node: i64,
    parent: i64,
) -> Result<Option<Branch>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT node, first_seq FROM nodes
         WHERE parent = ?1 AND first_seq IS NOT NULL ORDER BY first_seq",
    )?;
    let rows = stmt.query_map([parent], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))?;
    let mut siblings = Vec::new();
    let mut index = None;
    for row in rows {
        let (id, first_seq) = row?;
        if id == node {
            index = u32::try_from(siblings.len()).ok();
        }
        siblings.push(first_seq);
    }
    Ok(match index {
        Some(index) if siblings.len() > 1 => Some(Branch { siblings, index }),
        _ => None,
    })
}

/// The node and its ancestors up to the root's child, nearest first.
pub fn ancestors(conn: &Connection, node: i64) -> Result<Vec<Node>, StoreError> {
    let mut chain = Vec::new();
    let mut at = get(conn, node)?;
    while at.kind != Kind::Root {
        let parent = at.parent;
        chain.push(at);
        at = get(conn, parent)?;
    }
    Ok(chain)
}

/// The nodes below `node` along each one's remembered child, `node` first.
fn remembered_line(conn: &Connection, node: i64) -> Result<Vec<i64>, StoreError> {
    let mut line = vec![node];
    let mut stmt = conn.prepare_cached("SELECT chosen FROM nodes WHERE node = ?1")?;
    let mut at = node;
    while let Some(next) = stmt
        .query_row([at], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .flatten()
    {
        if line.contains(&next) {
            return Err(StoreError::Corrupt(format!(
                "node {next} is its own descendant"
            )));
        }
        line.push(next);
        at = next;
    }
    Ok(line)
}

/// Makes the active path go through `child` below `fork` (an active path
/// node) and on along remembered children; returns the switch, or `None`
/// when `child` was already on it.
pub fn switch(
    conn: &Connection,
    channel_id: &str,
    fork: i64,
    child: i64,
) -> Result<Option<Switch>, StoreError> {
    let old_child: Option<i64> = conn
        .prepare_cached("SELECT chosen FROM nodes WHERE node = ?1")?
        .query_row([fork], |r| r.get(0))?;
    if old_child == Some(child) {
        return Ok(None);
    }
    let leaving = match old_child {
        Some(old) => remembered_line(conn, old)?,
        None => Vec::new(),
    };
    conn.prepare_cached("UPDATE nodes SET chosen = ?2 WHERE node = ?1")?
        .execute(params![fork, child])?;
    let joining = remembered_line(conn, child)?;
    for (nodes, on) in [(&leaving, false), (&joining, true)] {
        let mut mark_node = conn.prepare_cached("UPDATE nodes SET on_path = ?2 WHERE node = ?1")?;
        let mut mark_items = conn.prepare_cached("UPDATE log SET on_path = ?2 WHERE node = ?1")?;
        for node in nodes {
            mark_node.execute(params![node, on])?;
            mark_items.execute(params![node, on])?;
        }
    }
    let new_leaf = joining.last().copied().unwrap_or(child);
    conn.prepare_cached(
        "UPDATE channels SET leaf = ?2, branch_rev = branch_rev + 1 WHERE channel_id = ?1",
    )?
    .execute(params![channel_id, new_leaf])?;
    let changed = leaving.iter().chain(&joining);
    let fork_seq = fork_seq(conn, channel_id, changed.copied())?;
    let branch_rev = conn
        .prepare_cached("SELECT branch_rev FROM channels WHERE channel_id = ?1")?
        .query_row([channel_id], |r| r.get(0))?;
    Ok(Some(Switch {
        fork_seq,
        branch_rev,
    }))
}

/// The `seq` ending the longest common prefix of the old and the new path
/// (§12), read after the switch: the first item that differs is the
/// smallest first `seq` of the nodes that left or joined, and every item of
/// the new path before it is on both.
fn fork_seq(
    conn: &Connection,
    channel_id: &str,
    changed: impl Iterator<Item = i64>,
) -> Result<u64, StoreError> {
    let mut first_seq = conn.prepare_cached("SELECT first_seq FROM nodes WHERE node = ?1")?;
    let mut differs = i64::MAX;
    for node in changed {
        let seq: Option<i64> = first_seq.query_row([node], |r| r.get(0))?;
        if let Some(seq) = seq {
            differs = differs.min(seq);
        }
    }
    let seq: Option<u64> = conn
        .prepare_cached(
            "SELECT MAX(seq) FROM log WHERE channel_id = ?1 AND on_path = 1 AND seq < ?2",
        )?
        .query_row(params![channel_id, differs], |r| r.get(0))?;
    Ok(seq.unwrap_or(0))
}

/// Sets the remembered child of every ancestor of `node` up to the first
/// one on the active path, and returns that one and its child towards
/// `node` (the fork a selection switches).
pub fn remember_way_to(conn: &Connection, node: i64) -> Result<(i64, i64), StoreError> {
    let mut child = get(conn, node)?;
    loop {
        let parent = get(conn, child.parent)?;
        if parent.on_path {
            return Ok((parent.id, child.id));
        }
        conn.prepare_cached("UPDATE nodes SET chosen = ?2 WHERE node = ?1")?
            .execute(params![parent.id, child.id])?;
        child = parent;
    }
}

/// Whether the client's request id was taken by a regeneration.
pub fn regenerated_with(conn: &Connection, client_msg_id: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM nodes WHERE client_msg_id = ?1")?
        .query_row([client_msg_id], |_| Ok(()))
        .optional()?
        .is_some())
}

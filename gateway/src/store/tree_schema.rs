//! The tables of the thread tree (§12), and the step that adds them to a
//! log written before branches: every existing thread becomes one path,
//! its items in `seq` order, each node the child of the one before.

use aria_protocol::HistoryItem;
use rusqlite::{params, Connection};

use super::tree::{self, Kind};
use super::StoreError;

const TREE_SCHEMA: &str = "
ALTER TABLE channels ADD COLUMN branch_rev INTEGER NOT NULL DEFAULT 0;
ALTER TABLE channels ADD COLUMN leaf INTEGER NOT NULL DEFAULT 0;
ALTER TABLE log ADD COLUMN node INTEGER NOT NULL DEFAULT 0;
ALTER TABLE log ADD COLUMN on_path INTEGER NOT NULL DEFAULT 1;
CREATE TABLE nodes (
    node          INTEGER PRIMARY KEY,
    channel_id    TEXT NOT NULL,
    parent        INTEGER NOT NULL,
    kind          INTEGER NOT NULL,
    key           TEXT NOT NULL,
    first_seq     INTEGER,
    chosen        INTEGER,
    on_path       INTEGER NOT NULL DEFAULT 0,
    client_msg_id TEXT
);
CREATE UNIQUE INDEX nodes_key ON nodes (channel_id, key);
-- Siblings in `branch` order.
CREATE INDEX nodes_children ON nodes (parent, first_seq);
-- A regeneration's idempotency key.
CREATE UNIQUE INDEX nodes_request ON nodes (client_msg_id);
CREATE INDEX log_node ON log (node);
-- History reads the active path only: this index is that path, in seq order.
CREATE INDEX log_path ON log (channel_id, seq) WHERE on_path = 1;
";

/// Whether the tree tables exist yet.
pub fn present(conn: &Connection) -> Result<bool, StoreError> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'nodes'",
        [],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

/// Adds the tree to a log without one (inside the caller's transaction).
pub fn migrate(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(TREE_SCHEMA)?;
    let channels: Vec<String> = conn
        .prepare("SELECT channel_id FROM channels ORDER BY created_at")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut rows = conn.prepare("SELECT seq, item FROM log WHERE channel_id = ?1 ORDER BY seq")?;
    let mut set_node =
        conn.prepare("UPDATE log SET node = ?3 WHERE channel_id = ?1 AND seq = ?2")?;
    for channel_id in channels {
        tree::create_root(conn, &channel_id)?;
        let logged: Vec<(u64, String)> = rows
            .query_map([&channel_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (seq, json) in logged {
            // An item this gateway cannot read still gets a node of its own.
            let item = HistoryItem::decode(&json).unwrap_or(HistoryItem::Unknown);
            let (kind, key) = node_key(&item, seq);
            let node = tree::node_for_item(conn, &channel_id, kind, &key)?;
            tree::note_item(conn, node.id, seq)?;
            set_node.execute(params![channel_id, seq, node.id])?;
        }
    }
    Ok(())
}

/// The node an item belongs to: a user message is a node of its own; other
/// items belong to their turn (or, without a `turn_id`, stand alone).
pub fn node_key(item: &HistoryItem, seq: u64) -> (Kind, String) {
    use aria_protocol::Role;
    let turn = |turn_id: &Option<String>, own: &str| {
        (
            Kind::Turn,
            turn_id.clone().unwrap_or_else(|| own.to_string()),
        )
    };
    match item {
        HistoryItem::Message(m) if m.role == Role::User => (Kind::User, m.message_id.clone()),
        HistoryItem::Message(m) => turn(&m.turn_id, &m.message_id),
        HistoryItem::Commentary(c) => turn(&c.turn_id, &c.message_id),
        HistoryItem::Tool(t) => turn(&t.turn_id, &format!("tool_{seq}")),
        HistoryItem::Approval(a) => turn(&a.turn_id, &a.request_id),
        HistoryItem::Unknown => (Kind::Turn, format!("item_{seq}")),
    }
}

//! The tables of the thread tree (§12), as one step of the schema
//! (`schema.rs`), and the key that names an item's node. The step also
//! turns a log written before branches into trees: every existing thread
//! becomes one path, its nodes chained in the order each first appears in
//! the log, nothing lost. Keys there are those [`node_key`] gives.

use aria_protocol::HistoryItem;

use super::tree::Kind;

/// The tree's tables, and every logged thread as one path.
pub const MIGRATION: &str = "
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

-- Every thread logged so far becomes one path: its root, then one node per
-- key in the order each first appears, each the child of the one before.
INSERT INTO nodes (channel_id, parent, kind, key, on_path)
    SELECT channel_id, 0, 0, '', 1 FROM channels;
CREATE TEMP TABLE item_keys AS
SELECT channel_id, seq,
    CASE WHEN json_valid(item) AND json_extract(item, '$.type') = 'message'
              AND json_extract(item, '$.role') = 'user' THEN 1 ELSE 2 END AS kind,
    COALESCE(CASE
        WHEN NOT json_valid(item) THEN NULL
        WHEN json_extract(item, '$.type') = 'message' AND json_extract(item, '$.role') = 'user'
            THEN json_extract(item, '$.message_id')
        WHEN json_extract(item, '$.type') NOT IN ('message', 'commentary', 'tool', 'approval')
            THEN NULL
        WHEN json_extract(item, '$.turn_id') IS NOT NULL THEN json_extract(item, '$.turn_id')
        WHEN json_extract(item, '$.type') IN ('message', 'commentary')
            THEN json_extract(item, '$.message_id')
        WHEN json_extract(item, '$.type') = 'approval' THEN json_extract(item, '$.request_id')
        ELSE 'tool_' || seq
    END, 'item_' || seq) AS key
FROM log WHERE channel_id IN (SELECT channel_id FROM channels);
CREATE INDEX temp.item_keys_seq ON item_keys (channel_id, seq);
INSERT INTO nodes (channel_id, parent, kind, key, first_seq, on_path)
    SELECT channel_id, 0, MIN(kind), key, MIN(seq), 1 FROM item_keys
    GROUP BY channel_id, key ORDER BY channel_id, MIN(seq);
CREATE INDEX nodes_first ON nodes (channel_id, first_seq);
UPDATE nodes SET parent = COALESCE(
    (SELECT p.node FROM nodes p WHERE p.channel_id = nodes.channel_id
        AND p.first_seq < nodes.first_seq ORDER BY p.first_seq DESC LIMIT 1),
    (SELECT r.node FROM nodes r WHERE r.channel_id = nodes.channel_id AND r.kind = 0))
WHERE kind != 0;
UPDATE nodes SET chosen = (SELECT c.node FROM nodes c WHERE c.parent = nodes.node AND c.kind != 0);
UPDATE channels SET leaf = COALESCE(
    (SELECT n.node FROM nodes n WHERE n.channel_id = channels.channel_id AND n.kind != 0
        ORDER BY n.first_seq DESC LIMIT 1),
    (SELECT r.node FROM nodes r WHERE r.channel_id = channels.channel_id AND r.kind = 0));
UPDATE log SET node = COALESCE((SELECT n.node FROM item_keys k
    JOIN nodes n ON n.channel_id = k.channel_id AND n.key = k.key
    WHERE k.channel_id = log.channel_id AND k.seq = log.seq), 0);
DROP INDEX nodes_first;
DROP TABLE item_keys;
";

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
        HistoryItem::Plan(p) => turn(&p.turn_id, &format!("plan_{seq}")),
        HistoryItem::Unknown => (Kind::Turn, format!("item_{seq}")),
    }
}

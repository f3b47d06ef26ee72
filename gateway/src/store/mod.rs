//! The outbox log in SQLite: the channels and, per channel, an append-only log
//! of every final item sent live, each with the next per-channel `seq`.
//!
//! Synchronous on purpose: [`crate::outbox::Outbox`] runs it on the blocking
//! pool behind one mutex, which also orders `seq` assignment with broadcast.

use std::path::{Path, PathBuf};

mod branching;
mod files;
mod path_page;
pub mod tree;
mod tree_schema;

use aria_protocol::{thread_preview, ApprovalItem, Channel, HistoryItem, MessageItem};
use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::clock::now_ms;
use crate::history::{Page, PageQuery};
use crate::search::index;

mod log_item;
mod schema;
pub use crate::store_error::StoreError;
pub use branching::{Edited, Refusal, Regenerated, Selected, TurnSlot};
pub use log_item::LogItem;

/// File name of the database inside `--data-dir`.
pub const DB_FILE: &str = "aria.sqlite3";
/// Id of the channel used by `message.send` without `channel_id` and without
/// auto-threading. Fixed, so every device and every restart agree on it.
pub const DEFAULT_CHANNEL_ID: &str = "c_general";
pub const DEFAULT_CHANNEL_TITLE: &str = "General";

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) `aria.sqlite3` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir)?;
        let path = data_dir.join(DB_FILE);
        crate::startup_check::check_database(&path)?;
        let mut conn = Connection::open(&path)?;
        // WAL + NORMAL: a committed row survives a killed process (only an OS
        // crash can lose the last commits), without an fsync per item.
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Before anything writes to the file: a newer gateway's data stays
        // exactly as it was.
        schema::check_known(&conn)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        for step in schema::migrate(&mut conn)? {
            tracing::info!(step, "migrated the log's schema");
        }
        if let Some(items) = index::ensure(&mut conn)? {
            tracing::info!(items, "built the search index from the log");
        }
        Ok(Self { conn, path })
    }

    /// Caps the database at about `bytes` (whole pages); writes past it
    /// fail as on a full disk.
    pub fn limit_size(&self, bytes: u64) -> Result<(), StoreError> {
        let page_size: u64 = self
            .conn
            .pragma_query_value(None, "page_size", |r| r.get(0))?;
        let pages = (bytes / page_size.max(1)).max(1);
        self.conn.pragma_update(None, "max_page_count", pages)?;
        Ok(())
    }

    /// The database file (a search reads it through a connection of its
    /// own: `search/reader.rs`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// All channels, most recently active first.
    pub fn list_channels(&self) -> Result<Vec<Channel>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT channel_id, title, created_at, updated_at, auto, last_seq, preview, branch_rev
             FROM channels ORDER BY updated_at DESC, created_at DESC",
        )?;
        let rows = stmt.query_map([], channel_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn channel(&self, channel_id: &str) -> Result<Channel, StoreError> {
        channel(&self.conn, channel_id)
    }

    /// Creates a channel with an empty log.
    pub fn create_channel(
        &self,
        channel_id: &str,
        title: &str,
        auto: bool,
    ) -> Result<Channel, StoreError> {
        let now = now_ms();
        // `&self`: nothing else can use the connection meanwhile.
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO channels (channel_id, title, created_at, updated_at, auto)
             VALUES (?1, ?2, ?3, ?3, ?4)",
            params![channel_id, title, now, auto],
        )?;
        tree::create_root(&tx, channel_id)?;
        tx.commit()?;
        self.channel(channel_id)
    }

    /// The default channel, and whether this call created it.
    pub fn default_channel(&self) -> Result<(Channel, bool), StoreError> {
        match self.channel(DEFAULT_CHANNEL_ID) {
            Ok(channel) => Ok((channel, false)),
            Err(StoreError::NotFound) => {
                let channel =
                    self.create_channel(DEFAULT_CHANNEL_ID, DEFAULT_CHANNEL_TITLE, false)?;
                Ok((channel, true))
            }
            Err(e) => Err(e),
        }
    }

    pub fn rename_channel(&self, channel_id: &str, title: &str) -> Result<(), StoreError> {
        let changed = self.conn.execute(
            "UPDATE channels SET title = ?2, updated_at = ?3 WHERE channel_id = ?1",
            params![channel_id, title, now_ms()],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Renames only while the title is still `expected`, so a late automatic
    /// title never overwrites one a user chose meanwhile.
    pub fn rename_channel_if(
        &self,
        channel_id: &str,
        expected: &str,
        title: &str,
    ) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "UPDATE channels SET title = ?3 WHERE channel_id = ?1 AND title = ?2",
            params![channel_id, expected, title],
        )?;
        Ok(changed > 0)
    }

    pub fn delete_channel(&mut self, channel_id: &str) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        let changed = tx.execute("DELETE FROM channels WHERE channel_id = ?1", [channel_id])?;
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        tx.execute("DELETE FROM log WHERE channel_id = ?1", [channel_id])?;
        tx.execute("DELETE FROM approvals WHERE channel_id = ?1", [channel_id])?;
        tx.execute("DELETE FROM nodes WHERE channel_id = ?1", [channel_id])?;
        index::remove_channel(&tx, channel_id)?;
        tx.commit()?;
        Ok(())
    }

    /// Appends `item` with the channel's next `seq` and returns it with that seq.
    /// The item carries its node's `branch` when that node has siblings.
    pub fn append<T: LogItem>(&mut self, channel_id: &str, item: T) -> Result<T, StoreError> {
        let tx = self.conn.transaction()?;
        let item = append_in(&tx, channel_id, item)?;
        tx.commit()?;
        Ok(item)
    }

    /// Appends `items` in one transaction, each with the channel's next
    /// `seq` (their own is replaced). For seeding big channels quickly.
    pub fn append_all(
        &mut self,
        channel_id: &str,
        items: impl IntoIterator<Item = HistoryItem>,
    ) -> Result<u64, StoreError> {
        let tx = self.conn.transaction()?;
        let mut seq = last_seq(&tx, channel_id)?;
        let mut last_preview = None;
        // The node of the item before, and its key.
        let mut current: Option<(String, tree::Node)> = None;
        {
            let mut insert = tx.prepare(INSERT_ITEM)?;
            let mut index_approval = tx.prepare(INSERT_APPROVAL)?;
            for mut item in items {
                seq += 1;
                let client_msg_id = match &mut item {
                    HistoryItem::Message(m) => {
                        m.seq = seq;
                        last_preview = Some(m.text.clone());
                        m.client_msg_id.clone()
                    }
                    HistoryItem::Commentary(c) => {
                        c.seq = seq;
                        None
                    }
                    HistoryItem::Tool(t) => {
                        t.seq = seq;
                        None
                    }
                    HistoryItem::Approval(a) => {
                        a.seq = seq;
                        index_approval.execute(params![a.request_id, channel_id, seq])?;
                        None
                    }
                    HistoryItem::Plan(p) => {
                        p.seq = seq;
                        None
                    }
                    HistoryItem::Unknown => {
                        seq -= 1;
                        continue;
                    }
                };
                let (kind, key) = tree_schema::node_key(&item, seq);
                // Items of one node come together: look it up once.
                let node = match current.take() {
                    Some((k, n)) if k == key => n,
                    _ => {
                        let n = tree::node_for_item(&tx, channel_id, kind, &key)?;
                        tree::note_item(&tx, n.id, seq)?;
                        n
                    }
                };
                let json = serde_json::to_string(&item)?;
                insert.execute(params![
                    channel_id,
                    seq,
                    json,
                    client_msg_id,
                    node.id,
                    node.on_path
                ])?;
                index::add(&tx, channel_id, seq, &item)?;
                current = Some((key, node));
            }
        }
        advance_channel(
            &tx,
            channel_id,
            seq,
            last_preview.as_deref().map(thread_preview),
        )?;
        tx.commit()?;
        Ok(seq)
    }

    /// The channel and logged user message accepted with `client_msg_id`.
    pub fn find_client_msg(
        &self,
        client_msg_id: &str,
    ) -> Result<Option<(String, MessageItem)>, StoreError> {
        let found = self.find_row(
            "SELECT channel_id, item FROM log WHERE client_msg_id = ?1",
            client_msg_id,
        )?;
        match found {
            None => Ok(None),
            Some((channel_id, HistoryItem::Message(item))) => Ok(Some((channel_id, item))),
            Some(_) => Err(StoreError::Corrupt(format!(
                "log row of client_msg_id {client_msg_id} is not a message"
            ))),
        }
    }

    /// The channel and logged resolution of the approval `request_id`.
    pub fn find_approval(
        &self,
        request_id: &str,
    ) -> Result<Option<(String, ApprovalItem)>, StoreError> {
        let found = self.find_row(
            "SELECT log.channel_id, log.item FROM approvals
             JOIN log ON log.channel_id = approvals.channel_id AND log.seq = approvals.seq
             WHERE approvals.request_id = ?1",
            request_id,
        )?;
        match found {
            None => Ok(None),
            Some((channel_id, HistoryItem::Approval(item))) => Ok(Some((channel_id, item))),
            Some(_) => Err(StoreError::Corrupt(format!(
                "log row of approval {request_id} is not an approval"
            ))),
        }
    }

    /// The channel and item of the one log row `sql` selects by `key`.
    fn find_row(&self, sql: &str, key: &str) -> Result<Option<(String, HistoryItem)>, StoreError> {
        let row: Option<(String, String)> = self
            .conn
            .query_row(sql, [key], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        row.map(|(channel_id, json)| Ok((channel_id, HistoryItem::decode(&json)?)))
            .transpose()
    }

    /// One `history` page of a channel's active path (§6, §12), and the
    /// `branch_rev` it was read at.
    pub fn page(
        &self,
        channel_id: &str,
        query: &PageQuery,
    ) -> Result<(Page<HistoryItem>, u64), StoreError> {
        let channel = self.channel(channel_id)?;
        let page = path_page::read(&self.conn, channel_id, query)?;
        Ok((page, channel.branch_rev.unwrap_or(0)))
    }

    #[cfg(test)]
    pub fn conn(&self) -> &Connection {
        &self.conn
    }
}

/// The channel `channel_id`, read through `conn` (the store's or a reader's).
pub fn channel(conn: &Connection, channel_id: &str) -> Result<Channel, StoreError> {
    conn.query_row(
        "SELECT channel_id, title, created_at, updated_at, auto, last_seq, preview, branch_rev
         FROM channels WHERE channel_id = ?1",
        [channel_id],
        channel_from_row,
    )
    .optional()?
    .ok_or(StoreError::NotFound)
}

const INSERT_ITEM: &str = "INSERT INTO log (channel_id, seq, item, client_msg_id, node, on_path)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const INSERT_APPROVAL: &str =
    "INSERT INTO approvals (request_id, channel_id, seq) VALUES (?1, ?2, ?3)";

/// Logs `item` in its node (see [`tree_schema::node_key`]) with the
/// channel's next `seq`, inside the caller's transaction.
fn append_in<T: LogItem>(
    tx: &rusqlite::Transaction<'_>,
    channel_id: &str,
    mut item: T,
) -> Result<T, StoreError> {
    let seq = last_seq(tx, channel_id)? + 1;
    item.set_seq(seq);
    item.set_branch(None);
    let logged = item.history_item();
    let (kind, key) = tree_schema::node_key(&logged, seq);
    let node = tree::node_for_item(tx, channel_id, kind, &key)?;
    tree::note_item(tx, node.id, seq)?;
    let json = serde_json::to_string(&logged)?;
    tx.execute(
        INSERT_ITEM,
        params![
            channel_id,
            seq,
            json,
            item.client_msg_id(),
            node.id,
            node.on_path
        ],
    )?;
    if let Some(request_id) = item.request_id() {
        tx.execute(INSERT_APPROVAL, params![request_id, channel_id, seq])?;
    }
    index::add(tx, channel_id, seq, &logged)?;
    let preview = item.preview().filter(|_| node.on_path);
    advance_channel(tx, channel_id, seq, preview)?;
    item.set_branch(tree::branch_of(tx, &node)?);
    Ok(item)
}

/// The channel's highest `seq` so far.
fn last_seq(tx: &rusqlite::Transaction<'_>, channel_id: &str) -> Result<u64, StoreError> {
    tx.query_row(
        "SELECT last_seq FROM channels WHERE channel_id = ?1",
        [channel_id],
        |r| r.get(0),
    )
    .optional()?
    .ok_or(StoreError::NotFound)
}

/// Records the channel's new last `seq`, its activity time and (if given)
/// its preview.
fn advance_channel(
    tx: &rusqlite::Transaction<'_>,
    channel_id: &str,
    seq: u64,
    preview: Option<String>,
) -> Result<(), StoreError> {
    tx.execute(
        "UPDATE channels SET last_seq = ?2, updated_at = ?3, preview = COALESCE(?4, preview)
         WHERE channel_id = ?1",
        params![channel_id, seq, now_ms(), preview],
    )?;
    Ok(())
}

fn channel_from_row(r: &Row<'_>) -> rusqlite::Result<Channel> {
    Ok(Channel {
        channel_id: r.get(0)?,
        title: r.get(1)?,
        created_at: r.get(2)?,
        updated_at: r.get(3)?,
        auto: r.get(4)?,
        last_seq: r.get(5)?,
        preview: r.get(6)?,
        branch_rev: Some(r.get(7)?),
    })
}

#[cfg(test)]
mod branch_tests;

#[cfg(test)]
mod tests;

//! `search` (§10) reads through a read-only SQLite connection of its own,
//! not the outbox's: in WAL mode a reader sees the last committed log while
//! the writer appends, so a search never waits behind the outbox lock (an
//! append, a seeding transaction) and an append never waits for a search.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::search::index::{self, SearchPage, SearchQuery};
use crate::store::{self, StoreError};

pub struct SearchReader {
    path: PathBuf,
    /// Opened on the first search, again after a failed open.
    conn: Mutex<Option<Connection>>,
}

impl SearchReader {
    /// A reader of the log database at `path` (which the store has created).
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            conn: Mutex::new(None),
        }
    }

    /// One page of hits, on the blocking pool (SQLite calls block).
    pub async fn search(self: &Arc<Self>, query: SearchQuery) -> Result<SearchPage, StoreError> {
        let this = Arc::clone(self);
        tokio::task::spawn_blocking(move || this.page(&query))
            .await
            .map_err(|e| StoreError::Worker(e.to_string()))?
    }

    /// One page of hits of one channel (which must exist) or of all.
    pub fn page(&self, query: &SearchQuery) -> Result<SearchPage, StoreError> {
        let mut slot = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let conn = match slot.take() {
            Some(conn) => slot.insert(conn),
            None => slot.insert(self.open()?),
        };
        if let Some(channel_id) = &query.channel_id {
            store::channel(conn, channel_id)?;
        }
        index::search(conn, query)
    }

    fn open(&self) -> Result<Connection, StoreError> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // A WAL reader is only kept waiting in rare moments (the writer
        // restarting the WAL file); the same bound as the store's.
        conn.busy_timeout(Duration::from_secs(5))?;
        Ok(conn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::Outbox;
    use crate::search::query::Terms;
    use crate::store::Store;
    use aria_protocol::{CommentaryItem, HistoryItem};

    fn commentary(text: &str) -> HistoryItem {
        HistoryItem::Commentary(CommentaryItem {
            seq: 0,
            message_id: "m".into(),
            turn_id: None,
            text: text.into(),
            ts: 1,
            branch: None,
        })
    }

    fn query(text: &str, channel_id: Option<&str>) -> SearchQuery {
        SearchQuery {
            terms: Terms::parse(text),
            channel_id: channel_id.map(str::to_string),
            after: None,
            limit: 20,
        }
    }

    /// The outbox lock is held (as by an append) with a write transaction
    /// open on its connection: a search still answers, from the last commit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_search_does_not_wait_for_the_outbox_lock_or_an_open_write() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = Store::open(dir.path()).expect("open");
        store.create_channel("c", "c", false).expect("create");
        store
            .append_all("c", [commentary("wombat burrows")])
            .expect("append");
        let outbox = Arc::new(Outbox::new(store));
        let (held_tx, held_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let writer = tokio::spawn({
            let outbox = Arc::clone(&outbox);
            async move {
                outbox
                    .run(move |store, _| {
                        store.conn().execute_batch(
                            "BEGIN IMMEDIATE;
                             INSERT INTO channels (channel_id, title, created_at, updated_at)
                             VALUES ('c2', 'c2', 0, 0);",
                        )?;
                        held_tx.send(()).expect("signal");
                        release_rx.recv().ok();
                        store.conn().execute_batch("COMMIT")?;
                        Ok(())
                    })
                    .await
            }
        });
        tokio::task::spawn_blocking(move || held_rx.recv().expect("the lock is held"))
            .await
            .expect("join");
        let reader = outbox.search_reader();
        let page = tokio::time::timeout(
            Duration::from_secs(5),
            reader.search(query("wombat", Some("c"))),
        )
        .await
        .expect("the search answered while the outbox lock was held")
        .expect("search");
        assert_eq!(page.hits.len(), 1, "{page:?}");
        let uncommitted = reader.search(query("wombat", Some("c2"))).await;
        assert!(
            matches!(uncommitted, Err(StoreError::NotFound)),
            "an uncommitted channel is not seen: {uncommitted:?}"
        );
        release_tx.send(()).expect("release");
        writer.await.expect("join").expect("write");
        let committed = reader
            .search(query("wombat", Some("c2")))
            .await
            .expect("search");
        assert!(committed.hits.is_empty(), "{committed:?}");
    }
}

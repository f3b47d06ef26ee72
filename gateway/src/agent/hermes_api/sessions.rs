//! Which Hermes session each channel's runs are saved under (Hermes's
//! transcript, its terminal's working state), remembered in the gateway's
//! database so it survives restarts.
//!
//! The table belongs to the `hermes` agent alone, so it has its own
//! connection to `aria.sqlite3` (WAL mode lets it write beside the outbox's
//! connection) instead of widening the outbox store. A row counts only
//! while its channel exists with the same creation time: a deleted channel's
//! session is never reused, even by `c_general`, which is created again
//! under the same id.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};

use crate::store::DB_FILE;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS hermes_sessions (
    channel_id         TEXT PRIMARY KEY,
    channel_created_at INTEGER NOT NULL,
    session_id         TEXT NOT NULL
);
";

pub struct SessionStore {
    path: PathBuf,
    /// Opened on first use: the outbox creates the database first.
    conn: Arc<Mutex<Option<Connection>>>,
}

impl SessionStore {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(DB_FILE),
            conn: Arc::default(),
        }
    }

    /// The session of `channel_id`, if one was made for it.
    pub async fn get(&self, channel_id: &str) -> Result<Option<String>, String> {
        let channel_id = channel_id.to_string();
        self.with(move |conn| {
            conn.query_row(
                "SELECT s.session_id FROM hermes_sessions s
                 JOIN channels c ON c.channel_id = s.channel_id
                                AND c.created_at = s.channel_created_at
                 WHERE s.channel_id = ?1",
                [&channel_id],
                |r| r.get(0),
            )
            .optional()
        })
        .await
    }

    /// Remembers `session_id` for `channel_id` (nothing if the channel is gone).
    pub async fn put(&self, channel_id: &str, session_id: &str) -> Result<(), String> {
        let (channel_id, session_id) = (channel_id.to_string(), session_id.to_string());
        self.with(move |conn| {
            conn.execute(
                "INSERT INTO hermes_sessions (channel_id, channel_created_at, session_id)
                 SELECT channel_id, created_at, ?2 FROM channels WHERE channel_id = ?1
                 ON CONFLICT (channel_id) DO UPDATE SET
                     channel_created_at = excluded.channel_created_at,
                     session_id = excluded.session_id",
                params![channel_id, session_id],
            )
            .map(drop)
        })
        .await
    }

    /// Runs `f` on the blocking pool with the connection, opening it first.
    async fn with<T, F>(&self, f: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let (conn, path) = (Arc::clone(&self.conn), self.path.clone());
        let run = move || {
            let mut guard = conn.lock().unwrap_or_else(PoisonError::into_inner);
            let conn = match &mut *guard {
                Some(conn) => conn,
                empty => empty.insert(open(&path)?),
            };
            f(conn)
        };
        tokio::task::spawn_blocking(run)
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("cannot read or write Hermes sessions in the database: {e}"))
    }
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.execute_batch(SCHEMA)?;
    // Rows of channels deleted since the last start only take room.
    conn.execute(
        "DELETE FROM hermes_sessions
         WHERE channel_id NOT IN (SELECT channel_id FROM channels)",
        [],
    )?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[tokio::test]
    async fn sessions_follow_their_channel() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = Store::open(dir.path()).expect("store");
        store.create_channel("c1", "One", false).expect("create");
        let sessions = SessionStore::new(dir.path());

        assert_eq!(sessions.get("c1").await, Ok(None));
        sessions.put("c1", "s1").await.expect("put");
        sessions.put("c1", "s2").await.expect("put again");
        assert_eq!(sessions.get("c1").await, Ok(Some("s2".into())));
        sessions
            .put("gone", "s3")
            .await
            .expect("put for no channel");
        assert_eq!(sessions.get("gone").await, Ok(None));

        // Same id, new channel: the old session is not reused.
        store.delete_channel("c1").expect("delete");
        std::thread::sleep(Duration::from_millis(2));
        store
            .create_channel("c1", "One again", false)
            .expect("create");
        assert_eq!(sessions.get("c1").await, Ok(None));

        // Remembered across a restart.
        sessions.put("c1", "s4").await.expect("put");
        let reopened = SessionStore::new(dir.path());
        assert_eq!(reopened.get("c1").await, Ok(Some("s4".into())));
    }
}

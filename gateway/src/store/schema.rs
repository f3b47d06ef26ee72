//! The log's schema and its versions.
//!
//! `PRAGMA user_version` holds how many of [`MIGRATIONS`] a database has
//! had. At open, the missing ones run in order inside one transaction, which
//! also sets the new version, so a failed or interrupted start leaves the
//! file as it was. A database from a newer gateway (a version past the last
//! migration known here) is refused before anything is written to it.
//!
//! A new column or table is a new entry at the end of [`MIGRATIONS`]; an
//! entry that has shipped is never edited, since data dirs already carry it.

use rusqlite::Connection;

use super::StoreError;

/// One step of the schema.
pub struct Migration {
    /// What it adds, for the log line at start.
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every step, oldest first: the schema version is an index into this.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        name: "channels, log and approvals",
        // `IF NOT EXISTS`: data dirs written before the schema had a version
        // (user_version 0) already hold these tables and keep their rows.
        sql: "
CREATE TABLE IF NOT EXISTS channels (
    channel_id TEXT PRIMARY KEY,
    title      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    auto       INTEGER NOT NULL DEFAULT 0,
    last_seq   INTEGER NOT NULL DEFAULT 0,
    preview    TEXT
);
CREATE TABLE IF NOT EXISTS log (
    channel_id    TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    item          TEXT NOT NULL,
    client_msg_id TEXT UNIQUE,
    PRIMARY KEY (channel_id, seq)
);
-- Where each logged approval is, so a repeated answer finds its outcome.
CREATE TABLE IF NOT EXISTS approvals (
    request_id TEXT PRIMARY KEY,
    channel_id TEXT NOT NULL,
    seq        INTEGER NOT NULL
);
",
    },
    Migration {
        name: "thread trees (branches)",
        sql: super::tree_schema::MIGRATION,
    },
    Migration {
        name: "stored files",
        sql: super::files::MIGRATION,
    },
];

/// The version this gateway writes.
pub fn latest() -> u32 {
    MIGRATIONS.len() as u32
}

/// The schema version recorded in the database.
pub fn version(conn: &Connection) -> Result<u32, StoreError> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

/// Refuses a database that a newer gateway wrote. Reads only.
pub fn check_known(conn: &Connection) -> Result<u32, StoreError> {
    let found = version(conn)?;
    if found > latest() {
        return Err(StoreError::NewerSchema {
            found,
            known: latest(),
        });
    }
    Ok(found)
}

/// Brings the schema to [`latest`]; returns the names of the steps it ran.
pub fn migrate(conn: &mut Connection) -> Result<Vec<&'static str>, StoreError> {
    run(conn, MIGRATIONS)
}

fn run(conn: &mut Connection, steps: &[Migration]) -> Result<Vec<&'static str>, StoreError> {
    let found = version(conn)?;
    let known = steps.len() as u32;
    if found > known {
        return Err(StoreError::NewerSchema { found, known });
    }
    let pending = &steps[found as usize..];
    if pending.is_empty() {
        return Ok(Vec::new());
    }
    let tx = conn.transaction()?;
    for step in pending {
        tx.execute_batch(step.sql)?;
    }
    // A pragma takes no bound parameters; the value is our own count.
    tx.execute_batch(&format!("PRAGMA user_version = {known}"))?;
    tx.commit()?;
    Ok(pending.iter().map(|m| m.name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_gets_every_step_once() {
        let mut conn = Connection::open_in_memory().expect("open");
        assert_eq!(migrate(&mut conn).expect("migrate").len(), MIGRATIONS.len());
        assert_eq!(version(&conn).expect("version"), latest());
        assert!(migrate(&mut conn).expect("again").is_empty());
    }

    #[test]
    fn a_newer_database_is_refused_and_left_alone() {
        let mut conn = Connection::open_in_memory().expect("open");
        conn.execute_batch(&format!(
            "CREATE TABLE future (x); PRAGMA user_version = {}",
            latest() + 1
        ))
        .expect("future schema");
        let err = migrate(&mut conn).expect_err("refused");
        assert!(
            matches!(err, StoreError::NewerSchema { found, known } if found == latest() + 1 && known == latest()),
            "{err}"
        );
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(tables, 1, "nothing was created");
    }

    #[test]
    fn a_failing_step_rolls_back_every_step_of_the_start() {
        let steps = [
            Migration {
                name: "good",
                sql: "CREATE TABLE a (x)",
            },
            Migration {
                name: "broken",
                sql: "CREATE TABLE b (x); INSERT INTO nowhere VALUES (1)",
            },
        ];
        let mut conn = Connection::open_in_memory().expect("open");
        assert!(run(&mut conn, &steps).is_err());
        assert_eq!(version(&conn).expect("version"), 0);
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(tables, 0, "neither step's table is left");
        assert_eq!(run(&mut conn, &steps[..1]).expect("good alone"), ["good"]);
        assert_eq!(version(&conn).expect("version"), 1);
    }
}

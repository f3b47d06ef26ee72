//! Checks of the data dir before the log is opened: no other gateway uses
//! it (held by the running server), the database file is an intact SQLite database, and no other process
//! holds its write lock. A failed check refuses to start with one sentence
//! that says what is wrong, and leaves the file as it is for recovery:
//! opening a damaged or foreign file the normal way could let SQLite
//! re-create, checkpoint into or half-use it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::store_error::StoreError;

/// Held while a gateway uses a data dir (an advisory lock on this file).
pub const LOCK_FILE: &str = "aria.lock";
/// How long to wait for another process's write transaction to end.
const LOCK_WAIT: Duration = Duration::from_secs(2);
/// The first 16 bytes of every SQLite 3 database.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HEADER_BYTES: usize = 100;

/// Keeps the data dir's lock for as long as it lives.
#[derive(Debug)]
pub struct DataDirLock {
    _file: File,
}

/// Checks the database file `db` before the log opens it (absent is fine:
/// it is created).
pub fn check_database(db: &Path) -> Result<(), StoreError> {
    if db.exists() {
        check_header(db)?;
        check_with_sqlite(db)?;
    }
    Ok(())
}

/// Locks `data_dir` (created if missing) for this process, so a second
/// gateway on the same dir refuses to start instead of sharing the log
/// with a hub that would not see its frames.
pub fn lock_data_dir(data_dir: &Path) -> Result<DataDirLock, StoreError> {
    std::fs::create_dir_all(data_dir)?;
    let path = data_dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(DataDirLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(refused(format!(
            "another aria-gateway is using {} (it holds {}): stop it, or give this one \
             its own --data-dir",
            data_dir.display(),
            path.display()
        ))),
        Err(TryLockError::Error(e)) => Err(e.into()),
    }
}

/// The header alone: an empty file, a foreign file or one shorter than its
/// header says is refused before SQLite touches it.
fn check_header(db: &Path) -> Result<(), StoreError> {
    let len = std::fs::metadata(db)?.len();
    let keep = "it was left as it is: restore it from a backup, or move it away to \
                start with an empty log";
    if len == 0 {
        return Err(refused(format!(
            "{} is empty (0 bytes), so its log is gone; {keep}",
            db.display()
        )));
    }
    let mut header = Vec::with_capacity(HEADER_BYTES);
    File::open(db)?
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut header)?;
    if header.len() < HEADER_BYTES || !header.starts_with(MAGIC) {
        return Err(refused(format!(
            "{} is not an SQLite database (its header is not SQLite's); {keep}",
            db.display()
        )));
    }
    if let Some(expected) = size_in_header(&header) {
        if len < expected && !has_wal(db) {
            return Err(refused(format!(
                "{} is truncated: its header says {expected} bytes but it has {len}; {keep}",
                db.display()
            )));
        }
    }
    Ok(())
}

/// The database size the header records, when the header says that field
/// is current (its change counter matches "version valid for").
fn size_in_header(header: &[u8]) -> Option<u64> {
    let be16 = |at: usize| u16::from_be_bytes([header[at], header[at + 1]]);
    let be32 = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    if header.len() < HEADER_BYTES || be32(24) != be32(92) {
        return None;
    }
    // A stored page size of 1 means 65536.
    let page_size = match be16(16) {
        1 => 65_536,
        n => u64::from(n),
    };
    Some(page_size * u64::from(be32(28)))
}

/// Whether committed pages may still be in the write-ahead log only (after a
/// killed process), in which case the main file may legitimately be behind.
fn has_wal(db: &Path) -> bool {
    std::fs::metadata(wal_path(db)).is_ok_and(|m| m.len() > 0)
}

fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push("-wal");
    PathBuf::from(name)
}

/// Opens the file without creating it, runs SQLite's quick check and takes
/// the write lock for a moment.
fn check_with_sqlite(db: &Path) -> Result<(), StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags)?;
    // A refused file must stay as it is: no checkpoint of its log into it
    // when this connection closes.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    conn.busy_timeout(LOCK_WAIT)?;
    let verdict = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get::<_, String>(0))
        .map_err(|e| sqlite_refusal(db, e))?;
    if verdict != "ok" {
        return Err(refused(format!(
            "{} is corrupt (SQLite's quick check: {verdict}); it was left as it is: \
             restore it from a backup, or try `sqlite3 {} .recover`",
            db.display(),
            db.display()
        )));
    }
    conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
        .map_err(|e| sqlite_refusal(db, e))?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)?;
    Ok(())
}

/// A sentence for what SQLite said about the file.
fn sqlite_refusal(db: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => refused(format!(
            "{} is locked by another process (another gateway, or a tool holding a write \
             transaction) for over {} s: stop it and start again",
            db.display(),
            LOCK_WAIT.as_secs()
        )),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => refused(format!(
            "{} is corrupt ({e}); it was left as it is: restore it from a backup, or try \
             `sqlite3 {} .recover`",
            db.display(),
            db.display()
        )),
        _ => e.into(),
    }
}

fn refused(reason: String) -> StoreError {
    StoreError::Refused(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(page_size: u16, pages: u32, valid: bool) -> Vec<u8> {
        let mut h = vec![0u8; HEADER_BYTES];
        h[..16].copy_from_slice(MAGIC);
        h[16..18].copy_from_slice(&page_size.to_be_bytes());
        h[24..28].copy_from_slice(&7u32.to_be_bytes());
        h[28..32].copy_from_slice(&pages.to_be_bytes());
        let valid_for: u32 = if valid { 7 } else { 6 };
        h[92..96].copy_from_slice(&valid_for.to_be_bytes());
        h
    }

    #[test]
    fn header_size_is_read_only_when_current() {
        assert_eq!(size_in_header(&header(4096, 10, true)), Some(40_960));
        assert_eq!(size_in_header(&header(1, 2, true)), Some(131_072));
        assert_eq!(size_in_header(&header(4096, 10, false)), None);
        assert_eq!(size_in_header(&[0u8; 20]), None);
    }

    #[test]
    fn a_second_lock_on_the_same_dir_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = lock_data_dir(dir.path()).expect("first lock");
        let second = lock_data_dir(dir.path()).expect_err("second lock");
        assert!(
            second.to_string().contains("another aria-gateway"),
            "{second}"
        );
        drop(first);
        lock_data_dir(dir.path()).expect("lock again");
    }
}

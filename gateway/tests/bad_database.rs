//! A data dir the gateway must not use as it is: its database locked by
//! another process, already used by another gateway, corrupt, truncated,
//! not SQLite at all or empty. The real binary must refuse to start with
//! one clear sentence and exit code 1, and leave the file byte for byte as
//! it was, so it can be recovered (never silently re-created).

use std::path::{Path, PathBuf};

use crate::support::process::{Process, Refusal};
use crate::support::Client;

/// A data dir with a real log: three messages and their answers, written
/// by a gateway that was then killed, the log checkpointed into the main
/// file (no `-wal` left).
async fn data_dir_with_a_log() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let process = Process::start(dir.path(), 1, &[]);
    let mut client = Client::connect(&process.ws_url, None).await;
    for i in 0..3 {
        let id = format!("bad-db-{i}");
        client.send_default(&format!("message {i}"), &id).await;
        client.until_turn_ends().await;
    }
    process.sigkill();
    let conn = rusqlite::Connection::open(db_path(dir.path())).expect("open to checkpoint");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    drop(conn);
    let wal = std::fs::metadata(wal_path(dir.path())).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "checkpointed into the main file");
    dir
}

fn db_path(dir: &Path) -> PathBuf {
    dir.join("aria.sqlite3")
}

fn wal_path(dir: &Path) -> PathBuf {
    dir.join("aria.sqlite3-wal")
}

/// Runs the gateway on `dir`, expects a refusal saying `says`, and checks
/// the database file is exactly `before`.
fn assert_refused(dir: &Path, says: &str, before: &[u8]) -> Refusal {
    let refusal = Process::refusal(dir, &[]);
    assert_eq!(
        refusal.status.code(),
        Some(1),
        "exit status; stderr:\n{}",
        refusal.stderr
    );
    assert!(
        refusal.stderr.contains(says) && refusal.stderr.contains("aria.sqlite3"),
        "the refusal names the file and says {says:?}:\n{}",
        refusal.stderr
    );
    let after = std::fs::read(db_path(dir)).expect("the file is still there");
    assert!(after == before, "the database file was changed");
    refusal
}

#[tokio::test]
async fn a_database_locked_by_another_process_is_refused_then_used_once_free() {
    let dir = data_dir_with_a_log().await;
    let holder = rusqlite::Connection::open(db_path(dir.path())).expect("open");
    holder
        .execute_batch("BEGIN IMMEDIATE; UPDATE channels SET title = title;")
        .expect("hold the write lock");
    let before = std::fs::read(db_path(dir.path())).expect("read");
    let refusal = assert_refused(dir.path(), "is locked by another process", &before);
    assert!(refusal.stderr.contains("stop it"), "{}", refusal.stderr);

    holder.execute_batch("ROLLBACK").expect("release");
    drop(holder);
    let process = Process::start(dir.path(), 1, &[]);
    let mut client = Client::connect(&process.ws_url, None).await;
    let history = client
        .history(serde_json::json!({"channel_id": "c_general", "limit": 50}))
        .await;
    let users = history["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["role"] == "user")
        .count();
    assert_eq!(users, 3, "the log is intact once the lock is gone");
}

#[tokio::test]
async fn a_second_gateway_on_the_same_data_dir_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = Process::start(dir.path(), 1, &[]);
    let mut client = Client::connect(&first.ws_url, None).await;
    client.send_default("hello", "second-gw-1").await;
    let refusal = Process::refusal(dir.path(), &[]);
    assert_eq!(refusal.status.code(), Some(1), "{}", refusal.stderr);
    assert!(
        refusal.stderr.contains("another aria-gateway is using"),
        "{}",
        refusal.stderr
    );
    // The first one is unaffected.
    client.send_default("still here", "second-gw-2").await;
}

#[tokio::test]
async fn a_corrupt_database_is_refused_and_left_as_it_is() {
    let dir = data_dir_with_a_log().await;
    let mut bytes = std::fs::read(db_path(dir.path())).expect("read");
    let page = 4096;
    assert!(bytes.len() >= 4 * page, "a log of several pages");
    // Every page but the first (the header and schema) is garbage.
    for (i, b) in bytes[page..].iter_mut().enumerate() {
        *b = (i % 251) as u8 ^ 0x5a;
    }
    std::fs::write(db_path(dir.path()), &bytes).expect("corrupt");
    let refusal = assert_refused(dir.path(), "is corrupt", &bytes);
    assert!(
        refusal.stderr.contains("left as it is"),
        "{}",
        refusal.stderr
    );
}

#[tokio::test]
async fn a_truncated_database_is_refused_and_left_as_it_is() {
    let dir = data_dir_with_a_log().await;
    let bytes = std::fs::read(db_path(dir.path())).expect("read");
    let cut = bytes[..bytes.len() / 2].to_vec();
    std::fs::write(db_path(dir.path()), &cut).expect("truncate");
    assert_refused(dir.path(), "is truncated", &cut);
}

#[tokio::test]
async fn a_file_that_is_not_sqlite_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = b"these are my notes, not a database\n".repeat(200);
    std::fs::write(db_path(dir.path()), &text).expect("write");
    assert_refused(dir.path(), "is not an SQLite database", &text);
}

#[tokio::test]
async fn an_emptied_database_is_refused_not_re_created() {
    let dir = data_dir_with_a_log().await;
    std::fs::write(db_path(dir.path()), b"").expect("empty it");
    assert_refused(dir.path(), "is empty", b"");
}

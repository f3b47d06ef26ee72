//! Schema migrations on real data directories: one written by the gateway
//! before the schema had a version (`tests/fixtures/data-unversioned/`, made
//! at commit ceac84b by its demo agent: four threads with tool calls, reasoning,
//! commentary, an auto-named thread and an answered approval) is migrated at
//! start with every thread, item and approval intact; one from a newer
//! gateway is refused with a clear message and left byte for byte as it was.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{manifest_dir, Client};
use rusqlite::Connection;
use serde_json::{json, Value};

fn fixture() -> PathBuf {
    manifest_dir().join("tests/fixtures/data-unversioned")
}

/// A copy of the fixture in a temporary data dir.
fn copy_of_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(fixture()).expect("fixture dir") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
    }
    dir
}

fn db(dir: &Path) -> Connection {
    Connection::open(dir.join("aria.sqlite3")).expect("open the copy")
}

fn user_version(conn: &Connection) -> u32 {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("user_version")
}

/// Every logged item per channel, straight from the file, in `seq` order.
fn logged_items(conn: &Connection) -> Vec<(String, Vec<Value>)> {
    let mut channels = conn
        .prepare("SELECT channel_id FROM channels ORDER BY channel_id")
        .expect("channels");
    let ids: Vec<String> = channels
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("ids");
    ids.into_iter()
        .map(|id| {
            let mut items = conn
                .prepare("SELECT item FROM log WHERE channel_id = ?1 ORDER BY seq")
                .expect("log");
            let items: Vec<Value> = items
                .query_map([&id], |r| r.get::<_, String>(0))
                .expect("query")
                .map(|json| serde_json::from_str(&json.expect("row")).expect("json"))
                .collect();
            (id, items)
        })
        .collect()
}

#[tokio::test]
async fn an_unversioned_data_dir_is_migrated_with_everything_intact() {
    let dir = copy_of_fixture();
    let before = {
        let conn = db(dir.path());
        assert_eq!(user_version(&conn), 0, "the fixture predates versions");
        logged_items(&conn)
    };
    assert_eq!(before.len(), 4, "four threads in the fixture");
    let approvals: Vec<(&String, &Value)> = before
        .iter()
        .flat_map(|(channel, items)| items.iter().map(move |i| (channel, i)))
        .filter(|(_, i)| i["type"] == "approval")
        .collect();
    assert_eq!(approvals.len(), 1, "one answered approval in the fixture");

    let server = aria_gateway::serve(crate::support::config(dir.path(), 1))
        .await
        .expect("the gateway starts on the old data dir");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let mut listed: Vec<String> = client.ready["channels"]
        .as_array()
        .expect("channels")
        .iter()
        .map(|c| c["channel_id"].as_str().expect("id").to_string())
        .collect();
    listed.sort();
    let ids: Vec<String> = before.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(listed, ids, "every thread is listed");

    for (channel, items) in &before {
        let page = client
            .history(json!({"channel_id": channel, "limit": 200}))
            .await;
        assert_eq!(page["has_more"], false);
        assert_eq!(
            &page["items"].as_array().expect("items")[..],
            &items[..],
            "thread {channel} reads back exactly as it was logged"
        );
    }

    // The logged approval still answers a repeated response with its outcome.
    let (channel, approval) = approvals[0];
    client
        .send(json!({
            "type": "approval.respond",
            "channel_id": channel,
            "request_id": approval["request_id"],
            "choice": "deny",
        }))
        .await;
    let again = client.recv_type("approval.resolved").await;
    assert_eq!(again["seq"], approval["seq"]);
    assert_eq!(again["choice"], approval["choice"]);

    drop(client);
    server.shutdown().await.expect("shutdown");
    let conn = db(dir.path());
    assert!(user_version(&conn) >= 1, "the version is recorded");
    assert_eq!(logged_items(&conn), before, "no row changed");
}

#[test]
fn a_data_dir_from_a_newer_gateway_is_refused_and_left_untouched() {
    let dir = copy_of_fixture();
    db(dir.path())
        .execute_batch("PRAGMA user_version = 999")
        .expect("pretend a newer gateway wrote it");
    // The database's files; the gateway's own lock file is not data.
    let files = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("dir")
            .filter(|e| e.as_ref().map_or(true, |e| e.file_name() != "aria.lock"))
            .map(|e| {
                let e = e.expect("entry");
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).expect("read"),
                )
            })
            .collect();
        files.sort();
        files
    };
    let before = files(dir.path());

    let out = Command::new(env!("CARGO_BIN_EXE_aria-gateway"))
        .args(["--addr", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(dir.path())
        .arg("--static-dir")
        .arg(dir.path().join("no-client"))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run aria-gateway");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it refuses to start: {stderr}");
    assert!(
        stderr.contains("newer aria-gateway") && stderr.contains("999"),
        "the refusal says why: {stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("listening"),
        "it never listened"
    );
    assert_eq!(
        files(dir.path()),
        before,
        "the data dir is byte for byte as it was"
    );
}

#[tokio::test]
async fn a_migrated_data_dir_stores_files_and_keeps_them_across_a_restart() {
    let dir = copy_of_fixture();
    let server = aria_gateway::serve(crate::support::config(dir.path(), 1))
        .await
        .expect("the gateway starts on the old data dir");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let bytes = b"notes kept over a restart\n".repeat(50);
    let stored = client.upload("m1", "notes.txt", "text/plain", &bytes).await;
    assert_eq!(stored["type"], "file.stored", "{stored}");
    let file_id = stored["file"]["file_id"].as_str().expect("id").to_string();
    drop(client);
    server.shutdown().await.expect("shutdown");

    let conn = db(dir.path());
    assert_eq!(
        user_version(&conn),
        3,
        "every step ran, the files step last"
    );
    let rows: i64 = conn
        .query_row(
            "SELECT count(*) FROM files JOIN blobs USING (sha256)",
            [],
            |r| r.get(0),
        )
        .expect("files tables");
    assert_eq!(rows, 1);
    drop(conn);

    let server = aria_gateway::serve(crate::support::config(dir.path(), 1))
        .await
        .expect("restart");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let (read, _) = client.read_file(&file_id, None).await.expect("still there");
    assert_eq!(read, bytes);
    server.shutdown().await.expect("shutdown");
}

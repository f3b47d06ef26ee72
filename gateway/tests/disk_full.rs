//! A full disk under the log. The real binary runs on a small tmpfs the
//! test mounts (root only) and the test fills it; where mounting is refused
//! (a sandbox), the gateway's own size cap (`--max-log-mib`) is filled
//! instead, which fails the same way (SQLite's "database or disk is full").
//! Sends must get `error {code:"internal"}` saying the disk is full, nothing
//! accepted may be lost, the log must stay intact, and once there is room
//! again the same sends must be accepted without a restart.
//! `ARIA_TEST_NO_MOUNT=1` takes the size-cap path even where mounting works.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::process::Process;
use crate::support::Client;
use serde_json::{json, Value};

/// A 60 KB text: a few messages fill megabytes.
fn big_text(tag: &str) -> String {
    format!("{tag} {}", "lorem ipsum dolor sit amet ".repeat(2200))
}

/// Where the disk fills up, and how room comes back.
enum Disk {
    /// A tmpfs of its own; a ballast file takes the room left.
    Tmpfs { mount: PathBuf, ballast: PathBuf },
    /// The gateway's size cap; big messages in a ballast channel take it.
    Cap { ballast_channel: Option<String> },
}

impl Disk {
    /// Mounts a 6 MiB tmpfs at `mount` if this process may.
    fn new(mount: &Path) -> Disk {
        std::fs::create_dir_all(mount).expect("mount point");
        let mounted = std::env::var_os("ARIA_TEST_NO_MOUNT").is_none()
            && Command::new("mount")
                .args(["-t", "tmpfs", "-o", "size=6m", "aria-disk-full"])
                .arg(mount)
                .status()
                .is_ok_and(|s| s.success());
        if mounted {
            Disk::Tmpfs {
                mount: mount.to_path_buf(),
                ballast: mount.join("ballast"),
            }
        } else {
            eprintln!("cannot mount a tmpfs here: filling the gateway's --max-log-mib instead");
            Disk::Cap {
                ballast_channel: None,
            }
        }
    }

    fn gateway_flags(&self) -> &'static [&'static str] {
        match self {
            Disk::Tmpfs { .. } => &[],
            Disk::Cap { .. } => &["--max-log-mib", "2"],
        }
    }

    /// Takes all the room left.
    async fn fill(&mut self, client: &mut Client) {
        match self {
            Disk::Tmpfs { ballast, .. } => {
                let mut file = std::fs::File::create(&*ballast).expect("ballast");
                let chunk = vec![0x42u8; 64 * 1024];
                while file.write_all(&chunk).and_then(|()| file.flush()).is_ok() {}
                let _ = file.sync_all();
            }
            Disk::Cap { ballast_channel } => {
                let channel = client.create_channel("ballast").await;
                for i in 0..200 {
                    let id = format!("ballast-{i}");
                    let reply = send(client, &channel, &big_text(&id), &id).await;
                    if reply["type"] == "error" {
                        break;
                    }
                }
                *ballast_channel = Some(channel);
            }
        }
    }

    /// Gives the room back.
    async fn free(&mut self, client: &mut Client) {
        match self {
            Disk::Tmpfs { ballast, .. } => std::fs::remove_file(&*ballast).expect("free"),
            Disk::Cap { ballast_channel } => {
                let channel = ballast_channel.take().expect("filled first");
                client
                    .send(json!({"type": "channel.delete", "channel_id": channel}))
                    .await;
                client.recv_type("channel.deleted").await;
            }
        }
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        if let Disk::Tmpfs { mount, .. } = self {
            let _ = Command::new("umount").arg("-l").arg(&*mount).status();
        }
    }
}

/// Sends to `channel` and returns the echo or the error answering it.
async fn send(client: &mut Client, channel: &str, text: &str, id: &str) -> Value {
    client
        .send(json!({"type": "message.send", "channel_id": channel, "text": text, "client_msg_id": id}))
        .await;
    client
        .until(|f| (f["type"] == "message" || f["type"] == "error") && f["client_msg_id"] == id)
        .await
        .pop()
        .expect("reply")
}

/// Every user message's `client_msg_id` in `channel`, oldest first.
async fn logged_ids(client: &mut Client, channel: &str) -> Vec<String> {
    // Failing turns broadcast errors of their own meanwhile: wait for the page.
    client
        .send(json!({"type": "history.get", "channel_id": channel, "limit": 200}))
        .await;
    let page = client.recv_type("history").await;
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["role"] == "user")
        .map(|i| i["client_msg_id"].as_str().unwrap_or("").to_string())
        .collect()
}

#[tokio::test]
async fn a_full_disk_refuses_sends_clearly_and_recovers_without_a_restart() {
    let base = tempfile::tempdir().expect("temp dir");
    let mut disk = Disk::new(&base.path().join("disk"));
    let data_dir = match &disk {
        Disk::Tmpfs { mount, .. } => mount.join("data"),
        Disk::Cap { .. } => base.path().join("data"),
    };
    let process = Process::start(&data_dir, 1, disk.gateway_flags());
    let mut client = Client::connect(&process.ws_url, None).await;
    let channel = client.create_channel("kept").await;
    let mut accepted = Vec::new();
    for i in 0..3 {
        let id = format!("before-{i}");
        let echo = send(
            &mut client,
            &channel,
            &format!("before the disk fills {i}"),
            &id,
        )
        .await;
        assert_eq!(echo["type"], "message", "{echo}");
        accepted.push(id);
    }

    disk.fill(&mut client).await;
    // On a tmpfs the log's write-ahead file may still have room of its own
    // for a while: send until the disk is really full.
    let mut refused = None;
    for i in 0..200 {
        let id = format!("while-full-{i}");
        let reply = send(&mut client, &channel, &big_text(&id), &id).await;
        if reply["type"] == "error" {
            refused = Some((id, reply));
            break;
        }
        accepted.push(id);
    }
    let (refused_id, error) = refused.expect("a send failed once the disk was full");
    assert_eq!(error["code"], "internal", "{error}");
    assert_eq!(error["channel_id"], channel.as_str(), "{error}");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains("disk is full"), "names the cause: {error}");
    // Reads still work, and hold everything accepted.
    assert_eq!(logged_ids(&mut client, &channel).await, accepted);

    disk.free(&mut client).await;
    let echo = send(&mut client, &channel, "room again", &refused_id).await;
    assert_eq!(
        echo["type"], "message",
        "accepted once there is room: {echo}"
    );
    accepted.push(refused_id);
    let echo = send(&mut client, &channel, "and another", "after-0").await;
    assert_eq!(echo["type"], "message", "{echo}");
    accepted.push("after-0".to_string());
    assert_eq!(logged_ids(&mut client, &channel).await, accepted);
    drop(client);
    process.sigkill();

    let db = rusqlite::Connection::open(data_dir.join("aria.sqlite3")).expect("open the log");
    let verdict: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity check");
    assert_eq!(verdict, "ok", "the log is not corrupted");
    let logged: i64 = db
        .query_row(
            "SELECT count(*) FROM log WHERE channel_id = ?1 AND client_msg_id IS NOT NULL",
            [&channel],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(
        logged as usize,
        accepted.len(),
        "each accepted message once"
    );
}

//! The tree beside the log: migration of a log written before it, the
//! path of queued messages, `fork_seq`, and the agent's context.

use aria_protocol::{CommentaryItem, HistoryGet, HistoryItem, MessageItem, Role};
use rusqlite::Connection;

use super::*;

fn user(text: &str, key: &str) -> MessageItem {
    MessageItem {
        seq: 0,
        message_id: crate::ids::message_id(),
        role: Role::User,
        text: text.into(),
        reasoning: None,
        model: None,
        tokens: None,
        ts: 1,
        turn_id: None,
        client_msg_id: Some(key.into()),
        branch: None,
        files: Box::default(),
    }
}

fn beat(turn_id: &str, text: &str) -> CommentaryItem {
    CommentaryItem {
        seq: 0,
        message_id: crate::ids::message_id(),
        text: text.into(),
        ts: 1,
        turn_id: Some(turn_id.into()),
        parent_index: None,
        branch: None,
    }
}

fn path(store: &Store, channel_id: &str) -> Vec<u64> {
    let query = PageQuery::from_request(&HistoryGet {
        channel_id: channel_id.into(),
        before: None,
        after: None,
        around: None,
        limit: Some(200),
    })
    .expect("query");
    let (page, _) = store.page(channel_id, &query).expect("page");
    page.items.iter().filter_map(HistoryItem::seq).collect()
}

/// `b` is sent while the turn answering `a` waits: it follows that turn in
/// the tree although it is logged before the turn's items.
#[test]
fn a_queued_message_follows_the_turn_before_it_and_an_edit_forks_there() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = Store::open(dir.path()).expect("open");
    store.create_channel("c", "c", false).expect("create");
    let a = store.send_user("c", user("a", "k1")).expect("send a");
    let b = store.send_user("c", user("b", "k2")).expect("send b");
    assert_eq!(b.turn.follows.as_deref(), Some(a.turn.turn_id.as_str()));
    store.append("c", beat(&a.turn.turn_id, "A")).expect("A");
    store.append("c", beat(&b.turn.turn_id, "B")).expect("B");
    assert_eq!(path(&store, "c"), [1, 2, 3, 4]);
    let context: Vec<u64> = store
        .context("c", &b.turn.turn_id, 200)
        .expect("context")
        .iter()
        .filter_map(HistoryItem::seq)
        .collect();
    assert_eq!(context, [1, 3, 2], "tree order: a, its answer, then b");

    let Edited::Done(sent) = store
        .edit("c", &b.echo.message_id, user("b2", "k3"), false)
        .expect("edit")
    else {
        panic!("edit refused");
    };
    let switch = sent.switch.expect("a switch");
    assert_eq!((switch.fork_seq, switch.branch_rev), (1, 1));
    assert_eq!(sent.echo.seq, 5);
    assert_eq!(
        sent.echo.branch.as_ref().map(|b| &b.siblings[..]),
        Some(&[2, 5][..])
    );
    assert_eq!(path(&store, "c"), [1, 3, 5]);
    assert_eq!(
        store.channel("c").expect("channel").preview.as_deref(),
        Some("b2")
    );
    // A resend is the first echo, in its channel.
    let again = store
        .edit("c", &b.echo.message_id, user("b2", "k3"), false)
        .expect("resend");
    assert!(matches!(again, Edited::Duplicate(c, echo) if c == "c" && echo.seq == 5));
    // Back to the old branch, then an unknown and a busy request.
    assert!(
        matches!(store.select("c", 2, false).expect("select"), Selected::Done(s) if s.fork_seq == 1)
    );
    assert_eq!(path(&store, "c"), [1, 2, 3, 4]);
    assert!(matches!(
        store.select("c", 4, false).expect("select"),
        Selected::Unchanged
    ));
    assert!(matches!(
        store.select("c", 9, true).expect("select"),
        Selected::Refused(Refusal::NotFound)
    ));
    assert!(matches!(
        store.select("c", 5, true).expect("select"),
        Selected::Refused(Refusal::Busy)
    ));
}

const OLD_SCHEMA: &str = "
CREATE TABLE channels (channel_id TEXT PRIMARY KEY, title TEXT NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    auto INTEGER NOT NULL DEFAULT 0, last_seq INTEGER NOT NULL DEFAULT 0, preview TEXT);
CREATE TABLE log (channel_id TEXT NOT NULL, seq INTEGER NOT NULL, item TEXT NOT NULL,
    client_msg_id TEXT UNIQUE, PRIMARY KEY (channel_id, seq));
CREATE TABLE approvals (request_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL,
    seq INTEGER NOT NULL);
INSERT INTO channels VALUES ('old', 'Old', 1, 2, 0, 5, 'B');
INSERT INTO log VALUES
  ('old', 1, '{\"type\":\"message\",\"seq\":1,\"message_id\":\"m1\",\"role\":\"user\",\"text\":\"a\",\"ts\":1}', 'k1'),
  ('old', 2, '{\"type\":\"message\",\"seq\":2,\"message_id\":\"m2\",\"role\":\"user\",\"text\":\"b\",\"ts\":1}', 'k2'),
  ('old', 3, '{\"type\":\"commentary\",\"seq\":3,\"message_id\":\"m3\",\"text\":\"x\",\"turn_id\":\"t1\"}', NULL),
  ('old', 4, '{\"type\":\"message\",\"seq\":4,\"message_id\":\"m4\",\"role\":\"assistant\",\"text\":\"A\",\"turn_id\":\"t1\"}', NULL),
  ('old', 5, '{\"type\":\"message\",\"seq\":5,\"message_id\":\"m5\",\"role\":\"assistant\",\"text\":\"B\",\"turn_id\":\"t2\"}', NULL);
";

#[test]
fn a_log_from_before_branches_becomes_one_path_with_nothing_lost() {
    let dir = tempfile::tempdir().expect("temp dir");
    Connection::open(dir.path().join(DB_FILE))
        .and_then(|c| c.execute_batch(OLD_SCHEMA))
        .expect("old log");
    let mut store = Store::open(dir.path()).expect("open migrates");
    assert_eq!(path(&store, "old"), [1, 2, 3, 4, 5]);
    let channel = store.channel("old").expect("channel");
    assert_eq!((channel.branch_rev, channel.last_seq), (Some(0), 5));
    let nodes: i64 = store
        .conn()
        .query_row(
            "SELECT count(*) FROM nodes WHERE channel_id = 'old'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(nodes, 5, "the root, two messages, two turns");
    // The migrated thread branches like a new one.
    let Regenerated::Done(switch, turn) = store
        .regenerate("old", "t2", "k9", false)
        .expect("regenerate")
    else {
        panic!("regeneration refused");
    };
    assert_eq!(
        (switch.fork_seq, switch.branch_rev, turn.text.as_str()),
        (4, 1, "b")
    );
    assert_eq!(path(&store, "old"), [1, 2, 3, 4]);
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    assert_eq!(path(&store, "old"), [1, 2, 3, 4], "the path is kept");
}

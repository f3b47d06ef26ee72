//! The full-text index of the outbox log (§10), in the same SQLite file:
//! `search_docs` maps each indexed item's order key (see
//! [`crate::search::page`]) to its `(channel_id, seq)`, and the contentless
//! FTS5 table `search_fts` holds its words under that key. The text itself
//! stays only in the log; a hit's snippet is cut from the decoded item.
//!
//! The store calls [`add`] and [`remove_channel`] inside the transactions
//! that change the log, so the index never lags behind it.

use aria_protocol::{HistoryItem, Hit, HitKind};
use rusqlite::{params, Connection};

use crate::search::page::key_range;
use crate::search::query::Terms;
use crate::search::snippet::snippet;
use crate::store_error::StoreError;

const SCHEMA: &str = "
CREATE TABLE search_docs (
    key        INTEGER PRIMARY KEY,
    channel_id TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    UNIQUE (channel_id, seq)
);
CREATE VIRTUAL TABLE search_fts USING fts5(
    body,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0'
);
";

/// Candidates checked per request at most: a query whose tokens match far
/// more items than its words do (`a_b` finds every `a … b`) answers a page
/// with fewer hits and a cursor instead of scanning the whole index.
const MAX_CANDIDATES: usize = 500;

/// A validated `search`.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub terms: Terms,
    pub channel_id: Option<String>,
    /// Only keys after this one (from the cursor).
    pub after: Option<i64>,
    pub limit: u32,
}

/// One page of hits and the key the next page starts after.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchPage {
    pub hits: Vec<Hit>,
    pub next: Option<i64>,
}

/// Creates the index when the database has none (a data dir from before
/// search, or a first start) and fills it from the whole log, in one
/// transaction. Returns how many items were indexed, if it had to.
pub fn ensure(conn: &mut Connection) -> Result<Option<u64>, StoreError> {
    let tables: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name IN ('search_docs', 'search_fts')",
        [],
        |r| r.get(0),
    )?;
    if tables == 2 {
        return Ok(None);
    }
    let tx = conn.transaction()?;
    tx.execute_batch("DROP TABLE IF EXISTS search_fts; DROP TABLE IF EXISTS search_docs;")?;
    tx.execute_batch(SCHEMA)?;
    let mut indexed = 0;
    {
        let mut rows = tx.prepare("SELECT channel_id, seq, item FROM log ORDER BY rowid")?;
        let mut rows = rows.query([])?;
        while let Some(row) = rows.next()? {
            let (channel_id, seq, json): (String, u64, String) =
                (row.get(0)?, row.get(1)?, row.get(2)?);
            if add(&tx, &channel_id, seq, &HistoryItem::decode(&json)?)? {
                indexed += 1;
            }
        }
    }
    tx.commit()?;
    Ok(Some(indexed))
}

/// Indexes one logged item (approval items are not searched). Returns
/// whether it was indexed.
pub fn add(
    conn: &Connection,
    channel_id: &str,
    seq: u64,
    item: &HistoryItem,
) -> Result<bool, StoreError> {
    let Some((_, ts, body)) = searched(item) else {
        return Ok(false);
    };
    let (first, last) = key_range(ts);
    let key: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(MIN(key) - 1, ?2) FROM search_docs WHERE key BETWEEN ?1 AND ?2",
        )?
        .query_row(params![first, last], |r| r.get(0))?;
    if key < first {
        return Err(StoreError::Corrupt(format!(
            "more items than the search index orders in the millisecond {ts}"
        )));
    }
    conn.prepare_cached("INSERT INTO search_docs (key, channel_id, seq) VALUES (?1, ?2, ?3)")?
        .execute(params![key, channel_id, seq])?;
    conn.prepare_cached("INSERT INTO search_fts (rowid, body) VALUES (?1, ?2)")?
        .execute(params![key, body])?;
    Ok(true)
}

/// Drops a deleted channel's items from the index.
pub fn remove_channel(conn: &Connection, channel_id: &str) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM search_fts WHERE rowid IN (SELECT key FROM search_docs WHERE channel_id = ?1)",
        [channel_id],
    )?;
    conn.execute(
        "DELETE FROM search_docs WHERE channel_id = ?1",
        [channel_id],
    )?;
    Ok(())
}

/// Matches newest first: FTS5 yields them in key order (no sort), each is
/// checked against the words, and the scan stops one past a full page.
const SEARCH_SQL: &str = "
SELECT search_docs.key, search_docs.channel_id, log.item, log.on_path
FROM search_fts
JOIN search_docs ON search_docs.key = search_fts.rowid
JOIN log ON log.channel_id = search_docs.channel_id AND log.seq = search_docs.seq
WHERE search_fts MATCH ?1 AND search_fts.rowid > ?2
  AND (?3 IS NULL OR search_docs.channel_id = ?3)
ORDER BY search_fts.rowid";

/// One page of hits of `query`.
pub fn search(conn: &Connection, query: &SearchQuery) -> Result<SearchPage, StoreError> {
    let Some(expression) = query.terms.fts_expression() else {
        return Ok(SearchPage::default());
    };
    let limit = usize::try_from(query.limit).unwrap_or(usize::MAX);
    let mut stmt = conn.prepare_cached(SEARCH_SQL)?;
    let mut rows = stmt.query(params![
        expression,
        query.after.unwrap_or(-1),
        query.channel_id
    ])?;
    let mut page = SearchPage::default();
    let mut candidates = 0;
    // Every key up to this one has been looked at; a next page starts
    // after it.
    let mut seen_up_to = None;
    while let Some(row) = rows.next()? {
        if page.hits.len() == limit || candidates == MAX_CANDIDATES {
            // More candidates follow (the next page may still turn out
            // empty if none of them holds every word).
            page.next = seen_up_to;
            return Ok(page);
        }
        let key: i64 = row.get(0)?;
        let channel_id: String = row.get(1)?;
        let json: String = row.get(2)?;
        let item = HistoryItem::decode(&json)?;
        if let Some(mut hit) = hit(channel_id, &item, &query.terms) {
            hit.on_path = Some(row.get(3)?);
            page.hits.push(hit);
        }
        candidates += 1;
        seen_up_to = Some(key);
    }
    Ok(page)
}

/// The hit of an item that contains every word.
fn hit(channel_id: String, item: &HistoryItem, terms: &Terms) -> Option<Hit> {
    let (kind, ts, body) = searched(item)?;
    let at = terms.locate(&body)?;
    Some(Hit {
        channel_id,
        seq: item.seq()?,
        kind,
        role: match item {
            HistoryItem::Message(m) => Some(m.role),
            _ => None,
        },
        snippet: snippet(&body, at),
        ts,
        on_path: None,
    })
}

/// What of an item is searched: its kind, `ts` and text (message text and
/// reasoning; commentary; a tool's name, preview and output). `None` for
/// items that are not searched (approvals, unknown ones).
fn searched(item: &HistoryItem) -> Option<(HitKind, i64, String)> {
    match item {
        HistoryItem::Message(m) => {
            let mut body = m.text.clone();
            if let Some(reasoning) = m.reasoning.as_deref().filter(|r| !r.is_empty()) {
                body.push_str("\n\n");
                body.push_str(reasoning);
            }
            Some((HitKind::Message, m.ts, body))
        }
        HistoryItem::Commentary(c) => Some((HitKind::Commentary, c.ts, c.text.clone())),
        HistoryItem::Tool(t) => {
            let parts = [
                Some(t.name.as_str()),
                Some(t.preview.as_str()),
                Some(t.output_preview.as_str()),
                t.output.as_deref(),
            ];
            let body = parts
                .into_iter()
                .flatten()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            Some((HitKind::Tool, t.ts, body))
        }
        HistoryItem::Approval(_) | HistoryItem::Unknown => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, DB_FILE};
    use aria_protocol::{ApprovalItem, CommentaryItem, MessageItem, Role, ToolItem};

    fn message(text: &str, ts: i64) -> HistoryItem {
        HistoryItem::Message(MessageItem {
            seq: 0,
            message_id: "m".into(),
            role: Role::Assistant,
            text: text.into(),
            reasoning: Some("thinking about zebras".into()),
            model: None,
            tokens: None,
            ts,
            turn_id: None,
            client_msg_id: None,
            branch: None,
        })
    }

    fn tool(output: &str, ts: i64) -> HistoryItem {
        HistoryItem::Tool(ToolItem {
            seq: 0,
            turn_id: None,
            index: 1,
            name: "terminal".into(),
            emoji: None,
            preview: "ls -la".into(),
            args: serde_json::json!({"secret_arg": "hidden"}),
            ok: true,
            duration: 0.1,
            output_preview: "3 files".into(),
            output: Some(output.into()),
            ts,
            branch: None,
        })
    }

    fn store_with(items: &[(&str, HistoryItem)]) -> (Store, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut store = Store::open(dir.path()).expect("open");
        for (channel, item) in items {
            if store.channel(channel).is_err() {
                store
                    .create_channel(channel, channel, false)
                    .expect("create");
            }
            store.append_all(channel, [item.clone()]).expect("append");
        }
        (store, dir)
    }

    fn find(store: &Store, q: &str, channel: Option<&str>, limit: u32) -> SearchPage {
        search(
            store.conn(),
            &SearchQuery {
                terms: Terms::parse(q),
                channel_id: channel.map(str::to_string),
                after: None,
                limit,
            },
        )
        .expect("search")
    }

    fn found(page: &SearchPage) -> Vec<(String, u64)> {
        page.hits
            .iter()
            .map(|h| (h.channel_id.clone(), h.seq))
            .collect()
    }

    #[test]
    fn every_searched_field_is_found_and_args_are_not() {
        let approval: HistoryItem = HistoryItem::Approval(
            serde_json::from_value::<ApprovalItem>(serde_json::json!({
                "seq": 0, "request_id": "r", "title": "Run zebras?", "choice": "once", "ts": 5
            }))
            .expect("approval"),
        );
        let commentary = HistoryItem::Commentary(CommentaryItem {
            seq: 0,
            message_id: "c".into(),
            text: "Looking at giraffes".into(),
            ts: 3,
            turn_id: None,
            branch: None,
        });
        let (store, _dir) = store_with(&[
            ("c1", message("Hello world", 1)),
            ("c1", tool("drwx zebra.txt", 2)),
            ("c1", commentary),
            ("c1", approval),
        ]);
        let kinds = |q: &str| -> Vec<(u64, HitKind)> {
            find(&store, q, None, 20)
                .hits
                .iter()
                .map(|h| (h.seq, h.kind))
                .collect()
        };
        assert_eq!(kinds("WORLD"), [(1, HitKind::Message)]);
        // Reasoning of the message, output of the tool; not the approval.
        assert_eq!(kinds("zebra"), [(2, HitKind::Tool), (1, HitKind::Message)]);
        assert_eq!(kinds("terminal"), [(2, HitKind::Tool)]);
        assert_eq!(kinds("ls"), [(2, HitKind::Tool)]);
        assert_eq!(kinds("3 files"), [(2, HitKind::Tool)]);
        assert_eq!(kinds("giraffe"), [(3, HitKind::Commentary)]);
        assert!(kinds("secret_arg").is_empty());
        assert!(kinds("run").is_empty());
        let hit = &find(&store, "hello", None, 20).hits[0];
        assert_eq!(hit.role, Some(Role::Assistant));
        assert_eq!(hit.ts, 1);
        assert_eq!(hit.snippet, "Hello world thinking about zebras");
    }

    #[test]
    fn hits_come_newest_first_by_ts_whatever_the_logging_order() {
        let (store, _dir) = store_with(&[
            ("a", message("apple one", 300)),
            ("b", message("apple two", 100)),
            ("a", message("apple three", 200)),
            ("b", message("apple four", 300)),
        ]);
        let page = find(&store, "apple", None, 20);
        let s = |c: &str, n: u64| (c.to_string(), n);
        // Equal ts: the later logged first.
        assert_eq!(found(&page), [s("b", 2), s("a", 1), s("a", 2), s("b", 1)]);
        assert_eq!(page.next, None);
        let only_a = find(&store, "apple", Some("a"), 20);
        assert_eq!(found(&only_a), [s("a", 1), s("a", 2)]);
    }

    #[test]
    fn pages_follow_the_cursor_without_gaps_or_repeats() {
        let items: Vec<(&str, HistoryItem)> = (0..23)
            .map(|i| ("c", message(&format!("item {i} kiwi"), 1000 + i / 3)))
            .collect();
        let (store, _dir) = store_with(&items);
        let mut seen = Vec::new();
        let mut after = None;
        loop {
            let page = search(
                store.conn(),
                &SearchQuery {
                    terms: Terms::parse("kiwi"),
                    channel_id: None,
                    after,
                    limit: 5,
                },
            )
            .expect("search");
            assert!(page.hits.len() <= 5);
            seen.extend(page.hits.iter().map(|h| h.seq));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, (1..=23).rev().collect::<Vec<u64>>());
    }

    #[test]
    fn hostile_queries_are_words_not_syntax() {
        let (store, _dir) = store_with(&[
            ("c", message("NEAR the AND gate, col:x (a) \"q\" end*", 1)),
            ("c", message("plain text", 2)),
        ]);
        // The WebSocket test (tests/search.rs) tries many more.
        for q in [
            "NEAR(a b)",
            "a\"b",
            "body:x",
            "(",
            "^",
            "*",
            "\u{0}",
            "'; DROP TABLE log; --",
        ] {
            let page = find(&store, q, None, 20);
            // Short items: the snippet is the whole text.
            for hit in &page.hits {
                assert!(Terms::parse(q).locate(&hit.snippet).is_some(), "{q:?}");
            }
        }
        assert_eq!(found(&find(&store, "near and", None, 20)).len(), 1);
        assert_eq!(found(&find(&store, "col:x", None, 20)).len(), 1);
        assert_eq!(found(&find(&store, "\"q\"", None, 20)).len(), 1);
        assert_eq!(found(&find(&store, "end*", None, 20)).len(), 1);
        assert_eq!(found(&find(&store, "text", None, 20)).len(), 1);
        assert!(store.channel("c").is_ok(), "nothing was executed");
    }

    #[test]
    fn an_index_missing_from_an_old_data_dir_is_rebuilt_on_open() {
        let dir = tempfile::tempdir().expect("temp dir");
        {
            let mut store = Store::open(dir.path()).expect("open");
            store.create_channel("c", "c", false).expect("create");
            store
                .append_all("c", [message("old lychee", 1), message("old mango", 2)])
                .expect("append");
        }
        // What a data dir from before search looks like.
        let conn = Connection::open(dir.path().join(DB_FILE)).expect("raw open");
        conn.execute_batch("DROP TABLE search_fts; DROP TABLE search_docs;")
            .expect("drop");
        drop(conn);
        let mut store = Store::open(dir.path()).expect("reopen");
        assert_eq!(found(&find(&store, "lychee", None, 20)).len(), 1);
        assert_eq!(found(&find(&store, "old", None, 20)).len(), 2);
        // The rebuilt index keeps being maintained.
        store
            .append_all("c", [message("new lychee", 3)])
            .expect("append");
        assert_eq!(found(&find(&store, "lychee", None, 20)).len(), 2);
        let mut conn = Connection::open(dir.path().join(DB_FILE)).expect("raw open");
        assert_eq!(
            ensure(&mut conn).expect("ensure"),
            None,
            "not rebuilt twice"
        );
    }

    #[test]
    fn a_deleted_channel_leaves_the_index() {
        let (mut store, _dir) =
            store_with(&[("a", message("papaya", 1)), ("b", message("papaya", 2))]);
        store.delete_channel("a").expect("delete");
        assert_eq!(
            found(&find(&store, "papaya", None, 20)),
            [("b".to_string(), 1)]
        );
        let docs: i64 = store
            .conn()
            .query_row("SELECT count(*) FROM search_docs", [], |r| r.get(0))
            .expect("count");
        assert_eq!(docs, 1);
    }

    #[test]
    fn the_query_plan_walks_the_index_in_key_order_without_sorting() {
        let (store, _dir) = store_with(&[("c", message("x", 1))]);
        let mut stmt = store
            .conn()
            .prepare(&format!("EXPLAIN QUERY PLAN {SEARCH_SQL}"))
            .expect("explain");
        let plan: Vec<String> = stmt
            .query_map(params!["x", -1, None::<String>], |r| r.get(3))
            .expect("plan")
            .collect::<Result<_, _>>()
            .expect("rows");
        let plan = plan.join("\n");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        assert!(plan.contains("search_fts"), "{plan}");
    }
}

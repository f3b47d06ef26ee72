//! `history` pages of the active path (§6, §12): the same range scans as
//! over the whole log, on the index of the path's rows, with each item's
//! `branch` added for nodes that have siblings.

use std::collections::HashMap;

use aria_protocol::{Branch, HistoryItem};
use rusqlite::{params, Connection, OptionalExtension};

use super::tree;
use super::StoreError;
use crate::history::{Anchor, Page, PageQuery};

/// Path items with `seq < ?2`, newest first, each with its node, the
/// node's parent and how many children with items that parent has (the
/// count, read inside the scan, spares a query per node without forks).
const OLDER: &str = "SELECT log.node, log.item, n.parent,
       (SELECT count(*) FROM nodes s WHERE s.parent = n.parent AND s.first_seq IS NOT NULL)
     FROM log LEFT JOIN nodes n ON n.node = log.node
     WHERE log.channel_id = ?1 AND log.on_path = 1 AND log.seq < ?2
     ORDER BY log.seq DESC LIMIT ?3";
/// Path items with `seq >= ?2`, oldest first, as [`OLDER`].
const NEWER: &str = "SELECT log.node, log.item, n.parent,
       (SELECT count(*) FROM nodes s WHERE s.parent = n.parent AND s.first_seq IS NOT NULL)
     FROM log LEFT JOIN nodes n ON n.node = log.node
     WHERE log.channel_id = ?1 AND log.on_path = 1 AND log.seq >= ?2
     ORDER BY log.seq ASC LIMIT ?3";

/// A row of a page: the item, its node and (when it has siblings) the
/// node's parent.
struct Fetched {
    node: i64,
    forked_below: Option<i64>,
    item: HistoryItem,
}

/// One page of the channel's active path; `around` an item off the path is
/// [`StoreError::OffPath`].
pub fn read(
    conn: &Connection,
    channel_id: &str,
    query: &PageQuery,
) -> Result<Page<HistoryItem>, StoreError> {
    // SQLite integers are i64; a bound past that range means "no bound".
    let bound = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let (sql, anchor) = match query.anchor {
        Anchor::Newest => (OLDER, i64::MAX),
        Anchor::Before(n) => (OLDER, bound(n)),
        Anchor::After(n) => (NEWER, bound(n).saturating_add(1)),
        Anchor::Around(n) => {
            if on_path(conn, channel_id, bound(n))? == Some(false) {
                return Err(StoreError::OffPath);
            }
            let older = rows(conn, OLDER, channel_id, bound(n), query.older_fetch_count())?;
            let newer = rows(conn, NEWER, channel_id, bound(n), query.fetch_count())?;
            let page = query.finish_around(older, newer);
            return with_branches(conn, page);
        }
    };
    let page = query.finish(rows(conn, sql, channel_id, anchor, query.fetch_count())?);
    with_branches(conn, page)
}

/// Whether the item `seq` is on the path (`None`: there is no such item).
fn on_path(conn: &Connection, channel_id: &str, seq: i64) -> Result<Option<bool>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT on_path FROM log WHERE channel_id = ?1 AND seq = ?2")?
        .query_row(params![channel_id, seq], |r| r.get(0))
        .optional()?)
}

/// Up to `count` rows of `sql`.
fn rows(
    conn: &Connection,
    sql: &str,
    channel_id: &str,
    anchor: i64,
    count: u32,
) -> Result<Vec<Fetched>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params![channel_id, anchor, count], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<i64>>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut items = Vec::new();
    for row in rows {
        let (node, json, parent, children) = row?;
        items.push(Fetched {
            node,
            forked_below: parent.filter(|_| children > 1),
            item: HistoryItem::decode(&json)?,
        });
    }
    Ok(items)
}

/// The page's items, each with its node's `branch` (read once per node).
fn with_branches(conn: &Connection, page: Page<Fetched>) -> Result<Page<HistoryItem>, StoreError> {
    let mut branches: HashMap<i64, Option<Branch>> = HashMap::new();
    let mut items = Vec::with_capacity(page.items.len());
    for Fetched {
        node,
        forked_below,
        mut item,
    } in page.items
    {
        if let Some(parent) = forked_below {
            let branch = match branches.get(&node) {
                Some(branch) => branch.clone(),
                None => {
                    let branch = tree::branch_below(conn, node, parent)?;
                    branches.insert(node, branch.clone());
                    branch
                }
            };
            set_branch(&mut item, branch);
        }
        items.push(item);
    }
    Ok(Page {
        items,
        has_more: page.has_more,
        has_newer: page.has_newer,
    })
}

/// Sets the `branch` of any kind of item.
pub fn set_branch(item: &mut HistoryItem, branch: Option<Branch>) {
    match item {
        HistoryItem::Message(m) => m.branch = branch.map(Box::new),
        HistoryItem::Commentary(c) => c.branch = branch.map(Box::new),
        HistoryItem::Tool(t) => t.branch = branch.map(Box::new),
        HistoryItem::Approval(a) => a.branch = branch.map(Box::new),
        HistoryItem::Plan(p) => p.branch = branch.map(Box::new),
        HistoryItem::Unknown => {}
    }
}

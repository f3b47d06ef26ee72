//! `history.get` paging rules (§6), kept apart from SQL so they can be tested
//! on their own.

use aria_protocol::{HistoryGet, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT};

/// Which end of the log a page is anchored to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The newest items (initial open).
    Newest,
    /// The newest items with `seq < N` (scrolling up).
    Before(u64),
    /// The oldest items with `seq > N` (gap fill after a reconnect).
    After(u64),
    /// Up to `limit / 2` items with `seq < N`, then items from N on (jumping
    /// to a search hit or a deep link).
    Around(u64),
}

/// A validated `history.get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageQuery {
    pub anchor: Anchor,
    pub limit: u32,
}

/// One `history` page: ascending items and the flags of the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Older items exist before the page (for `after`: newer ones, §6).
    pub has_more: bool,
    /// Newer items exist after the page; only on `after` and `around` replies.
    pub has_newer: Option<bool>,
}

impl PageQuery {
    /// Checks `limit` (1..=200, default 50) and that at most one of
    /// `before`/`after`/`around` is given; the error is the `bad_request`
    /// message.
    pub fn from_request(req: &HistoryGet) -> Result<Self, String> {
        let limit = req.limit.unwrap_or(DEFAULT_HISTORY_LIMIT);
        if !(1..=MAX_HISTORY_LIMIT).contains(&limit) {
            return Err(format!(
                "limit must be 1..={MAX_HISTORY_LIMIT}, got {limit}"
            ));
        }
        let anchor = match (req.before, req.after, req.around) {
            (None, None, None) => Anchor::Newest,
            (Some(before), None, None) => Anchor::Before(before),
            (None, Some(after), None) => Anchor::After(after),
            (None, None, Some(around)) => Anchor::Around(around),
            _ => return Err("give one of `before`, `after` or `around`, not more".to_string()),
        };
        Ok(Self { anchor, limit })
    }

    /// How many rows to fetch: one more than the page, to learn `has_more`.
    /// For `around` this is the fetch of the newer side (`seq >= N`).
    pub fn fetch_count(&self) -> u32 {
        self.limit + 1
    }

    /// `around`: how many older rows (`seq < N`, newest first) to fetch:
    /// one more than the older half may hold, to learn `has_more`.
    pub fn older_fetch_count(&self) -> u32 {
        self.limit / 2 + 1
    }

    /// Whether rows come newest first from the query (then they are reversed).
    pub fn newest_first(&self) -> bool {
        matches!(self.anchor, Anchor::Newest | Anchor::Before(_))
    }

    /// Turns the rows fetched in query order (up to `fetch_count`) into the
    /// ascending page. Not for `around` (see [`PageQuery::finish_around`]).
    pub fn finish<T>(&self, mut rows: Vec<T>) -> Page<T> {
        let limit = to_usize(self.limit);
        let has_more = rows.len() > limit;
        rows.truncate(limit);
        if self.newest_first() {
            rows.reverse();
        }
        Page {
            items: rows,
            has_more,
            // On `after` the "more" are the newer ones (§6).
            has_newer: matches!(self.anchor, Anchor::After(_)).then_some(has_more),
        }
    }

    /// `around`: `older` are rows with `seq < N` newest first (up to
    /// `older_fetch_count`), `newer` rows with `seq >= N` oldest first (up to
    /// `fetch_count`). The page holds at most `limit / 2` older items and
    /// fills the rest with newer ones; when newer ones run out it does not
    /// take more older ones, because §6 caps those at `limit / 2` (the
    /// client pages on with `before`).
    pub fn finish_around<T>(&self, mut older: Vec<T>, mut newer: Vec<T>) -> Page<T> {
        let limit = to_usize(self.limit);
        let older_room = limit / 2;
        let has_more = older.len() > older_room;
        older.truncate(older_room);
        let newer_room = limit - older.len();
        let has_newer = newer.len() > newer_room;
        newer.truncate(newer_room);
        older.reverse();
        older.append(&mut newer);
        Page {
            items: older,
            has_more,
            has_newer: Some(has_newer),
        }
    }
}

fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(
        before: Option<u64>,
        after: Option<u64>,
        around: Option<u64>,
        limit: Option<u32>,
    ) -> HistoryGet {
        HistoryGet {
            channel_id: "c".into(),
            before,
            after,
            around,
            limit,
        }
    }

    /// What a store would return for a log of seqs `1..=n`.
    fn fetch(q: &PageQuery, n: u64) -> Vec<u64> {
        let take = q.fetch_count() as usize;
        match q.anchor {
            Anchor::Newest => (1..=n).rev().take(take).collect(),
            Anchor::Before(b) => (1..=n).rev().filter(|s| *s < b).take(take).collect(),
            Anchor::After(a) => (1..=n).filter(|s| *s > a).take(take).collect(),
            Anchor::Around(_) => unreachable!("around is fetched in two parts"),
        }
    }

    fn page(
        before: Option<u64>,
        after: Option<u64>,
        limit: Option<u32>,
        n: u64,
    ) -> (Vec<u64>, bool) {
        let q = PageQuery::from_request(&req(before, after, None, limit)).expect("valid query");
        let page = q.finish(fetch(&q, n));
        (page.items, page.has_more)
    }

    /// An `around` page of a log holding `log` (ascending seqs, maybe with
    /// holes): items, has_more, has_newer.
    fn around(at: u64, limit: u32, log: &[u64]) -> (Vec<u64>, bool, bool) {
        let q = PageQuery::from_request(&req(None, None, Some(at), Some(limit))).expect("valid");
        let older = log
            .iter()
            .rev()
            .filter(|s| **s < at)
            .take(q.older_fetch_count() as usize)
            .copied()
            .collect();
        let newer = log
            .iter()
            .filter(|s| **s >= at)
            .take(q.fetch_count() as usize)
            .copied()
            .collect();
        let page = q.finish_around(older, newer);
        (
            page.items,
            page.has_more,
            page.has_newer.expect("has_newer"),
        )
    }

    fn range(a: u64, b: u64) -> Vec<u64> {
        (a..=b).collect()
    }

    #[test]
    fn limit_defaults_to_50_and_must_be_1_to_200() {
        let q = PageQuery::from_request(&req(None, None, None, None)).expect("valid");
        assert_eq!(q.limit, 50);
        assert!(PageQuery::from_request(&req(None, None, None, Some(0))).is_err());
        assert!(PageQuery::from_request(&req(None, None, None, Some(201))).is_err());
        assert!(PageQuery::from_request(&req(None, None, None, Some(200))).is_ok());
        assert!(PageQuery::from_request(&req(None, None, Some(3), Some(0))).is_err());
    }

    #[test]
    fn only_one_anchor_may_be_given() {
        for (b, a, r) in [
            (Some(3), Some(1), None),
            (Some(3), None, Some(2)),
            (None, Some(1), Some(2)),
            (Some(3), Some(1), Some(2)),
        ] {
            assert!(PageQuery::from_request(&req(b, a, r, None)).is_err());
        }
        let q = PageQuery::from_request(&req(None, None, Some(7), None)).expect("valid");
        assert_eq!(q.anchor, Anchor::Around(7));
    }

    #[test]
    fn newest_page_is_ascending_with_has_more() {
        assert_eq!(page(None, None, Some(3), 10), (vec![8, 9, 10], true));
        assert_eq!(page(None, None, Some(10), 10), (range(1, 10), false));
        assert_eq!(page(None, None, None, 0), (vec![], false));
    }

    #[test]
    fn before_pages_backwards() {
        assert_eq!(page(Some(8), None, Some(3), 10), (vec![5, 6, 7], true));
        assert_eq!(page(Some(4), None, Some(3), 10), (vec![1, 2, 3], false));
        assert_eq!(page(Some(1), None, Some(3), 10), (vec![], false));
    }

    #[test]
    fn after_pages_forwards() {
        assert_eq!(page(None, Some(2), Some(3), 10), (vec![3, 4, 5], true));
        assert_eq!(page(None, Some(7), Some(3), 10), (vec![8, 9, 10], false));
        assert_eq!(page(None, Some(10), Some(3), 10), (vec![], false));
    }

    #[test]
    fn only_after_and_around_say_has_newer() {
        let flag = |b, a| {
            let q = PageQuery::from_request(&req(b, a, None, Some(3))).expect("valid");
            q.finish(fetch(&q, 10)).has_newer
        };
        assert_eq!(flag(None, None), None);
        assert_eq!(flag(Some(5), None), None);
        assert_eq!(flag(None, Some(2)), Some(true));
        assert_eq!(flag(None, Some(8)), Some(false));
    }

    #[test]
    fn around_centres_on_the_item() {
        let log = range(1, 100);
        // floor(10 / 2) = 5 older, then N and 4 newer.
        assert_eq!(around(50, 10, &log), (range(45, 54), true, true));
        // Odd limit: floor(7 / 2) = 3 older, N first of the rest.
        assert_eq!(around(50, 7, &log), (range(47, 53), true, true));
        // limit 1: N alone; older and newer exist.
        assert_eq!(around(50, 1, &log), (vec![50], true, true));
        assert_eq!(around(1, 1, &log), (vec![1], false, true));
    }

    #[test]
    fn around_fills_with_newer_when_older_run_out() {
        let log = range(1, 100);
        assert_eq!(around(3, 10, &log), (range(1, 10), false, true));
        assert_eq!(around(1, 10, &log), (range(1, 10), false, true));
        // Exactly the older half exists: none before it.
        assert_eq!(around(6, 10, &log), (range(1, 10), false, true));
        assert_eq!(around(7, 10, &log), (range(2, 11), true, true));
    }

    #[test]
    fn around_near_the_end_keeps_older_to_half() {
        let log = range(1, 100);
        assert_eq!(around(100, 10, &log), (range(95, 100), true, false));
        assert_eq!(around(96, 10, &log), (range(91, 100), true, false));
        assert_eq!(around(95, 10, &log), (range(90, 99), true, true));
        // Past the end: the newest half, nothing newer.
        assert_eq!(around(500, 10, &log), (range(96, 100), true, false));
        // Small logs fit whole.
        assert_eq!(around(2, 10, &range(1, 3)), (range(1, 3), false, false));
        assert_eq!(around(1, 10, &[]), (vec![], false, false));
    }

    #[test]
    fn around_a_missing_seq_starts_at_the_next_one() {
        let log = [1, 2, 3, 7, 8, 9];
        assert_eq!(around(5, 4, &log), (vec![2, 3, 7, 8], true, true));
        assert_eq!(around(0, 4, &log), (vec![1, 2, 3, 7], false, true));
    }
}

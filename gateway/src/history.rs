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
}

/// A validated `history.get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageQuery {
    pub anchor: Anchor,
    pub limit: u32,
}

impl PageQuery {
    /// Checks `limit` (1..=200, default 50) and that at most one of
    /// `before`/`after` is given; the error is the `bad_request` message.
    pub fn from_request(req: &HistoryGet) -> Result<Self, String> {
        let limit = req.limit.unwrap_or(DEFAULT_HISTORY_LIMIT);
        if !(1..=MAX_HISTORY_LIMIT).contains(&limit) {
            return Err(format!(
                "limit must be 1..={MAX_HISTORY_LIMIT}, got {limit}"
            ));
        }
        let anchor = match (req.before, req.after) {
            (None, None) => Anchor::Newest,
            (Some(before), None) => Anchor::Before(before),
            (None, Some(after)) => Anchor::After(after),
            (Some(_), Some(_)) => return Err("give `before` or `after`, not both".to_string()),
        };
        Ok(Self { anchor, limit })
    }

    /// How many rows to fetch: one more than the page, to learn `has_more`.
    pub fn fetch_count(&self) -> u32 {
        self.limit + 1
    }

    /// Whether rows come newest first from the query (then they are reversed).
    pub fn newest_first(&self) -> bool {
        !matches!(self.anchor, Anchor::After(_))
    }

    /// Turns the rows fetched in query order (up to `fetch_count`) into the
    /// ascending page and its `has_more` flag.
    pub fn finish<T>(&self, mut rows: Vec<T>) -> (Vec<T>, bool) {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let has_more = rows.len() > limit;
        rows.truncate(limit);
        if self.newest_first() {
            rows.reverse();
        }
        (rows, has_more)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(before: Option<u64>, after: Option<u64>, limit: Option<u32>) -> HistoryGet {
        HistoryGet {
            channel_id: "c".into(),
            before,
            after,
            around: None,
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
        }
    }

    fn page(
        before: Option<u64>,
        after: Option<u64>,
        limit: Option<u32>,
        n: u64,
    ) -> (Vec<u64>, bool) {
        let q = PageQuery::from_request(&req(before, after, limit)).expect("valid query");
        q.finish(fetch(&q, n))
    }

    #[test]
    fn limit_defaults_to_50_and_must_be_1_to_200() {
        let q = PageQuery::from_request(&req(None, None, None)).expect("valid");
        assert_eq!(q.limit, 50);
        assert!(PageQuery::from_request(&req(None, None, Some(0))).is_err());
        assert!(PageQuery::from_request(&req(None, None, Some(201))).is_err());
        assert!(PageQuery::from_request(&req(None, None, Some(200))).is_ok());
        assert!(PageQuery::from_request(&req(Some(3), Some(1), None)).is_err());
    }

    #[test]
    fn newest_page_is_ascending_with_has_more() {
        assert_eq!(page(None, None, Some(3), 10), (vec![8, 9, 10], true));
        assert_eq!(page(None, None, Some(10), 10), ((1..=10).collect(), false));
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
}

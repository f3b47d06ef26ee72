//! What the search field asks the gateway and what it shows. Typing is
//! debounced (the view waits [`DEBOUNCE_MS`] and fires only the newest
//! edit); a reply counts only if it echoes the query awaited, so a slow
//! reply to an older query never replaces newer results. A gateway that
//! answers `unsupported`, or not at all within [`TIMEOUT_MS`], has no
//! search.

use crate::protocol::{valid_query, ErrorCode, ErrorFrame, Hit, Search, SearchResults};

/// How long typing must pause before the query is sent.
pub const DEBOUNCE_MS: u32 = 200;
/// How long a reply may take before search counts as unavailable.
pub const TIMEOUT_MS: f64 = 10_000.0;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Status {
    /// Nothing asked (empty field).
    #[default]
    Idle,
    Searching,
    /// The hits of the query are shown.
    Done,
    /// This gateway has no search.
    Unavailable,
    /// The gateway refused the query (its sentence).
    Failed(String),
}

#[derive(Debug, Clone)]
struct Awaiting {
    query: String,
    /// A further page of the same query (its hits are appended).
    more: bool,
    since_ms: f64,
}

#[derive(Debug, Clone, Default)]
pub struct SearchState {
    typed: String,
    edits: u64,
    /// The query whose hits are shown or fetched.
    query: String,
    awaiting: Option<Awaiting>,
    hits: Vec<Hit>,
    cursor: Option<String>,
    status: Status,
}

impl SearchState {
    pub fn status(&self) -> &Status {
        &self.status
    }

    pub fn hits(&self) -> &[Hit] {
        &self.hits
    }

    /// The query the shown hits are for (what to highlight).
    pub fn query(&self) -> &str {
        &self.query
    }

    /// More hits can be asked for ("More results").
    pub fn has_more(&self) -> bool {
        self.cursor.is_some() && self.awaiting.is_none()
    }

    /// The field's text changed. Returns the edit to fire after the
    /// debounce, or `None` when there is nothing to search for.
    pub fn input(&mut self, text: &str) -> Option<u64> {
        self.typed = text.to_string();
        self.edits += 1;
        if valid_query(text).is_none() {
            self.reset();
            return None;
        }
        Some(self.edits)
    }

    /// The debounce of `edit` ran out: the query to send, if `edit` is
    /// still the newest and asks for something new.
    pub fn fire(&mut self, edit: u64, now_ms: f64) -> Option<Search> {
        if edit != self.edits || self.status == Status::Unavailable {
            return None;
        }
        let q = valid_query(&self.typed)?.to_string();
        let same =
            q == self.query && (self.awaiting.is_some() || matches!(self.status, Status::Done));
        if same {
            return None;
        }
        self.query = q.clone();
        self.hits.clear();
        self.cursor = None;
        self.status = Status::Searching;
        self.awaiting = Some(Awaiting {
            query: q.clone(),
            more: false,
            since_ms: now_ms,
        });
        Some(Search {
            query: q,
            channel_id: None,
            limit: None,
            cursor: None,
        })
    }

    /// The next page of the shown query.
    pub fn more(&mut self, now_ms: f64) -> Option<Search> {
        if self.awaiting.is_some() {
            return None;
        }
        let cursor = self.cursor.clone()?;
        self.awaiting = Some(Awaiting {
            query: self.query.clone(),
            more: true,
            since_ms: now_ms,
        });
        Some(Search {
            query: self.query.clone(),
            channel_id: None,
            limit: None,
            cursor: Some(cursor),
        })
    }

    /// A `search.results` frame; true if it changed what is shown.
    pub fn on_results(&mut self, r: SearchResults) -> bool {
        let Some(a) = self.awaiting.take_if(|a| a.query == r.query) else {
            return false;
        };
        if !a.more {
            self.hits.clear();
        }
        self.hits.extend(r.hits);
        self.cursor = r.cursor;
        self.status = Status::Done;
        true
    }

    /// An error frame; true if it was about the search awaited (it names
    /// the query, or it is an `unsupported` without one from a gateway
    /// that does not know search at all).
    pub fn on_error(&mut self, e: &ErrorFrame) -> bool {
        let ours = match (&self.awaiting, &e.query) {
            (Some(a), Some(q)) => a.query == *q,
            (Some(_), None) => e.code == ErrorCode::Unsupported,
            (None, _) => false,
        };
        if !ours {
            return false;
        }
        self.awaiting = None;
        self.status = if e.code == ErrorCode::Unsupported {
            Status::Unavailable
        } else if e.message.is_empty() {
            Status::Failed("The gateway could not search for that.".into())
        } else {
            Status::Failed(e.message.clone())
        };
        true
    }

    /// The clock moved: true if the reply took too long (no search here).
    pub fn tick(&mut self, now_ms: f64) -> bool {
        match &self.awaiting {
            Some(a) if now_ms - a.since_ms >= TIMEOUT_MS => {
                self.awaiting = None;
                self.status = Status::Unavailable;
                true
            }
            _ => false,
        }
    }

    /// The connection ended: replies in flight will not come.
    pub fn connection_lost(&mut self) {
        if self.awaiting.take().is_some() && self.status == Status::Searching {
            self.status = Status::Idle;
            self.query.clear();
        }
    }

    /// A (maybe another) gateway connected: it may have search.
    pub fn connected(&mut self) {
        if self.status == Status::Unavailable {
            self.status = Status::Idle;
        }
    }

    /// Escape: the field and the hits are cleared.
    pub fn clear(&mut self) {
        self.typed.clear();
        self.edits += 1;
        self.reset();
    }

    fn reset(&mut self) {
        self.query.clear();
        self.awaiting = None;
        self.hits.clear();
        self.cursor = None;
        if self.status != Status::Unavailable {
            self.status = Status::Idle;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::HitKind;

    fn results(query: &str, seqs: &[u64], cursor: Option<&str>) -> SearchResults {
        SearchResults {
            query: query.into(),
            channel_id: None,
            hits: seqs
                .iter()
                .map(|s| Hit {
                    channel_id: "c1".into(),
                    seq: *s,
                    kind: HitKind::Message,
                    role: None,
                    snippet: format!("hit {s}"),
                    ts: 0,
                    on_path: None,
                })
                .collect(),
            cursor: cursor.map(str::to_string),
        }
    }

    fn error(code: ErrorCode, query: Option<&str>) -> ErrorFrame {
        ErrorFrame {
            code,
            message: "no".into(),
            channel_id: None,
            client_msg_id: None,
            request_id: None,
            query: query.map(str::to_string),
            upload_id: None,
        }
    }

    fn seqs(s: &SearchState) -> Vec<u64> {
        s.hits().iter().map(|h| h.seq).collect()
    }

    #[test]
    fn only_the_newest_edit_fires_and_stale_replies_are_ignored() {
        let mut s = SearchState::default();
        let e1 = s.input("re").unwrap();
        let e2 = s.input("repo").unwrap();
        assert_eq!(s.fire(e1, 0.0), None, "superseded by a later edit");
        assert_eq!(s.fire(e2, 0.0).map(|q| q.query), Some("repo".into()));
        // Same text again (a key that changed nothing): not asked twice.
        let e3 = s.input(" repo ").unwrap();
        assert_eq!(s.fire(e3, 1.0), None);
        let e4 = s.input("repos").unwrap();
        assert!(s.fire(e4, 2.0).is_some());
        // The reply to "repo" comes late: ignored.
        assert!(!s.on_results(results("repo", &[1], None)));
        assert_eq!((s.status(), seqs(&s)), (&Status::Searching, vec![]));
        assert!(s.on_results(results("repos", &[9, 4], Some("c"))));
        assert_eq!((s.status(), seqs(&s)), (&Status::Done, vec![9, 4]));
        assert_eq!(s.query(), "repos");
    }

    #[test]
    fn more_results_page_with_the_cursor() {
        let mut s = SearchState::default();
        let e = s.input("x").unwrap();
        s.fire(e, 0.0);
        s.on_results(results("x", &[9, 8], Some("p2")));
        assert!(s.has_more());
        let next = s.more(1.0).unwrap();
        assert_eq!(
            (next.query.as_str(), next.cursor.as_deref()),
            ("x", Some("p2"))
        );
        assert_eq!(s.more(1.0), None, "one page at a time");
        s.on_results(results("x", &[7], None));
        assert_eq!(seqs(&s), vec![9, 8, 7]);
        assert!(!s.has_more());
    }

    #[test]
    fn unsupported_or_silence_means_unavailable() {
        let mut s = SearchState::default();
        let e = s.input("x").unwrap();
        s.fire(e, 0.0);
        // An error about another query, or about something else, is not ours.
        assert!(!s.on_error(&error(ErrorCode::BadRequest, Some("y"))));
        assert!(!s.on_error(&error(ErrorCode::BadRequest, None)));
        assert!(s.on_error(&error(ErrorCode::Unsupported, None)));
        assert_eq!(s.status(), &Status::Unavailable);
        let e = s.input("more").unwrap();
        assert_eq!(
            s.fire(e, 1.0),
            None,
            "nothing asked of a gateway without search"
        );

        let mut s = SearchState::default();
        let e = s.input("x").unwrap();
        s.fire(e, 0.0);
        assert!(!s.tick(TIMEOUT_MS - 1.0));
        assert!(s.tick(TIMEOUT_MS));
        assert_eq!(s.status(), &Status::Unavailable);
        s.connected();
        assert_eq!(s.status(), &Status::Idle);
    }

    #[test]
    fn a_refused_query_says_why_and_clear_forgets_everything() {
        let mut s = SearchState::default();
        let e = s.input("x").unwrap();
        s.fire(e, 0.0);
        assert!(s.on_error(&error(ErrorCode::BadRequest, Some("x"))));
        assert_eq!(s.status(), &Status::Failed("no".into()));
        let e = s.input("y").unwrap();
        s.fire(e, 0.0);
        s.clear();
        assert_eq!(s.status(), &Status::Idle);
        assert!(
            !s.on_results(results("y", &[1], None)),
            "cleared: nothing awaited"
        );
        assert_eq!(s.input("   "), None);
    }
}

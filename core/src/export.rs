//! Exporting a thread: fetching all of it page by page (`history.get
//! {before}`, 200 at a time, newest first) apart from what the timeline
//! shows, and building the file one page at a time.
//!
//! The store answers its own `history` replies in request order. An
//! export's replies are told apart by the echoed `before` (§6) and taken
//! out before the store sees them ([`Exporter::claims`]). Should the
//! timeline ask for the same `before` at the same time, either reply is
//! the same page of the log, so who gets which does not matter; each side
//! gets one. A cancelled export's reply still in flight is swallowed too.
//!
//! Each page's text is handed to the caller's [`Parts::keep`] as it
//! arrives (the browser turns it into a Blob at once), and every
//! [`GROUP_PAGES`] kept pages are joined into one part ([`Parts::join`]),
//! so the finished file is a few parts in order: nothing is formatted or
//! copied all at once, and the file is not made of a thousand parts (a
//! Blob of 500 page Blobs took one task of 70-100 ms to make and register).
//!
//! Pure: the clock, the time zone and the title come in as arguments.

use crate::protocol::{History, HistoryGet, HistoryItem, MAX_HISTORY_LIMIT};
use crate::render::export as fmt;

/// Pages asked for at once before pacing starts, and pages per second after:
/// well inside the reference gateway's budget (burst 60, 20 frames/s), so
/// the user's own frames still get through.
const BURST: f64 = 20.0;
const PAGES_PER_SEC: f64 = 12.0;

/// Kept pages joined into one part of the file.
pub const GROUP_PAGES: usize = 20;

/// How the caller keeps the file's parts (`Part`: a Blob in the browser).
pub trait Parts {
    type Part;
    /// One page's text, as it arrives.
    fn keep(&mut self, text: String) -> Self::Part;
    /// A run of kept parts, oldest first, as one part with `sep` between them.
    fn join(&mut self, run: Vec<Self::Part>, sep: &'static str) -> Self::Part;
}

/// The first page asks for everything older than this: the newest items,
/// whatever the client knows of the thread. 2^53 − 1, exact in JSON
/// numbers everywhere.
pub const NEWEST: u64 = (1 << 53) - 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Json => "json",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Markdown => "text/markdown;charset=utf-8",
            Format::Json => "application/json",
        }
    }
}

/// What the view shows while an export runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub channel_id: String,
    pub format: Format,
    pub done: u64,
    /// The thread's size as known (its last `seq`), at least `done`.
    pub total: u64,
}

impl Progress {
    /// `Exporting… 1,200 of 5,000 items`.
    pub fn label(&self) -> String {
        format!(
            "Exporting… {} of {} items",
            grouped(self.done),
            grouped(self.total.max(self.done))
        )
    }
}

/// A finished export: the file's name and type, and its text: `head`,
/// the kept pages oldest first with `sep` between them, then `tail`.
#[derive(Debug, Clone, PartialEq)]
pub struct File<P> {
    pub name: String,
    pub mime: &'static str,
    pub head: String,
    pub pages: Vec<P>,
    pub sep: &'static str,
    pub tail: &'static str,
}

/// What to do after a page arrived.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<P> {
    /// Call [`Exporter::resume`] for the next page after this many ms.
    Next(f64),
    Done(File<P>),
}

/// A token bucket over page requests.
#[derive(Debug, Clone, Copy)]
struct Pacer {
    tokens: f64,
    at_ms: f64,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            tokens: BURST,
            at_ms: f64::NEG_INFINITY,
        }
    }
}

impl Pacer {
    fn refill(&mut self, now_ms: f64) {
        let elapsed = (now_ms - self.at_ms).max(0.0);
        self.tokens = (self.tokens + elapsed * PAGES_PER_SEC / 1000.0).min(BURST);
        self.at_ms = now_ms;
    }

    /// How long until a request may go.
    fn wait_ms(&mut self, now_ms: f64) -> f64 {
        self.refill(now_ms);
        ((1.0 - self.tokens) * 1000.0 / PAGES_PER_SEC).max(0.0)
    }

    fn take(&mut self, now_ms: f64) {
        self.refill(now_ms);
        self.tokens -= 1.0;
    }
}

#[derive(Debug)]
struct Job<P> {
    channel_id: String,
    title: String,
    format: Format,
    exported_ms: i64,
    tz_offset_min: i32,
    /// The `before` of the request in flight; `None` while offline.
    awaiting: Option<u64>,
    /// Every item older than this is still to fetch.
    next_before: u64,
    /// Kept parts, newest first: joined runs of pages (each oldest first
    /// inside), then the pages not joined yet.
    pages: Vec<P>,
    /// How many of `pages`, at its end, are single pages.
    loose: usize,
    done: u64,
    total: u64,
    /// The `branch_rev` the pages were read at (§12): the file holds one
    /// path only.
    branch_rev: Option<u64>,
}

/// At most one export at a time, plus the replies it no longer wants.
/// `P` is what a page's text is kept as.
#[derive(Debug)]
pub struct Exporter<P> {
    job: Option<Job<P>>,
    /// `(channel, before)` of requests sent for a job that ended.
    orphans: Vec<(String, u64)>,
    pacer: Pacer,
}

impl<P> Default for Exporter<P> {
    fn default() -> Self {
        Exporter {
            job: None,
            orphans: Vec::new(),
            pacer: Pacer::default(),
        }
    }
}

impl<P> Exporter<P> {
    /// Starts exporting a thread whose last known `seq` is `total`; `None`
    /// (nothing to send) when an export runs already.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &mut self,
        channel_id: &str,
        title: &str,
        format: Format,
        total: u64,
        exported_ms: i64,
        tz_offset_min: i32,
        online: bool,
        now_ms: f64,
    ) -> Option<HistoryGet> {
        if self.job.is_some() {
            return None;
        }
        self.job = Some(Job {
            channel_id: channel_id.to_string(),
            title: title.to_string(),
            format,
            exported_ms,
            tz_offset_min,
            awaiting: None,
            next_before: NEWEST,
            pages: Vec::new(),
            loose: 0,
            done: 0,
            total,
            branch_rev: None,
        });
        if online {
            self.resume(now_ms)
        } else {
            None
        }
    }

    pub fn progress(&self) -> Option<Progress> {
        self.job.as_ref().map(|j| Progress {
            channel_id: j.channel_id.clone(),
            format: j.format,
            done: j.done,
            total: j.total,
        })
    }

    /// Whether this `history` reply answers an export's request.
    pub fn claims(&self, h: &History) -> bool {
        let Some(before) = h.before else {
            return false;
        };
        if h.after.is_some() || h.around.is_some() {
            return false;
        }
        let current = self
            .job
            .as_ref()
            .is_some_and(|j| j.channel_id == h.channel_id && j.awaiting == Some(before));
        current
            || self
                .orphans
                .iter()
                .any(|(c, b)| *c == h.channel_id && *b == before)
    }

    /// Takes a claimed reply, its text formatted and kept by `parts`: when
    /// to ask for the next page, the finished file, or nothing (a
    /// cancelled export's reply, or one not claimed).
    pub fn on_page(
        &mut self,
        h: History,
        now_ms: f64,
        parts: &mut impl Parts<Part = P>,
    ) -> Option<Step<P>> {
        let before = h.before?;
        let job = self
            .job
            .as_mut()
            .filter(|j| j.channel_id == h.channel_id && j.awaiting == Some(before));
        let Some(job) = job else {
            if let Some(i) = self
                .orphans
                .iter()
                .position(|(c, b)| *c == h.channel_id && *b == before)
            {
                self.orphans.remove(i);
            }
            return None;
        };
        job.awaiting = None;
        match (job.branch_rev, h.branch_rev) {
            (Some(held), Some(read)) if held != read => {
                // The active path changed under the export: pages of two
                // paths would mix, so it starts over from the newest.
                job.pages.clear();
                job.loose = 0;
                job.done = 0;
                job.next_before = NEWEST;
                job.branch_rev = None;
                return Some(Step::Next(self.pacer.wait_ms(now_ms)));
            }
            (None, read) => job.branch_rev = read,
            _ => {}
        }
        // Only what is older than asked, once each, in seq order: a gateway
        // that repeats or reorders cannot duplicate or loop.
        let mut items: Vec<HistoryItem> = h
            .items
            .into_iter()
            .filter(|i| i.seq().is_some_and(|s| s < job.next_before))
            .collect();
        items.sort_by_key(HistoryItem::seq);
        items.dedup_by_key(|i| i.seq());
        let oldest = items.first().and_then(HistoryItem::seq);
        job.done += items.len() as u64;
        if let Some(newest) = items.last().and_then(HistoryItem::seq) {
            job.total = job.total.max(newest);
        }
        let page = match job.format {
            Format::Markdown => fmt::markdown_items(&items, job.tz_offset_min),
            Format::Json => fmt::json_items(&items),
        };
        if !page.is_empty() {
            job.pages.push(parts.keep(page));
            job.loose += 1;
            if job.loose == GROUP_PAGES {
                let mut run = job.pages.split_off(job.pages.len() - GROUP_PAGES);
                run.reverse();
                job.pages.push(parts.join(run, separator(job.format)));
                job.loose = 0;
            }
        }
        match oldest {
            Some(oldest) if h.has_more && oldest > 1 => {
                job.next_before = oldest;
                Some(Step::Next(self.pacer.wait_ms(now_ms)))
            }
            _ => self.finish().map(Step::Done),
        }
    }

    /// Stops the export; a reply still in flight will be dropped.
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            if let Some(before) = job.awaiting {
                self.orphans.push((job.channel_id, before));
            }
        }
    }

    /// The socket closed: nothing in flight will be answered.
    pub fn connection_lost(&mut self) {
        self.orphans.clear();
        if let Some(job) = &mut self.job {
            job.awaiting = None;
        }
    }

    /// The request for the next page, unless one is in flight or there is
    /// no export (it was cancelled meanwhile).
    pub fn resume(&mut self, now_ms: f64) -> Option<HistoryGet> {
        let job = self.job.as_mut().filter(|j| j.awaiting.is_none())?;
        job.awaiting = Some(job.next_before);
        self.pacer.take(now_ms);
        Some(HistoryGet {
            channel_id: job.channel_id.clone(),
            before: Some(job.next_before),
            after: None,
            around: None,
            limit: Some(MAX_HISTORY_LIMIT),
        })
    }

    /// The exported thread is gone or the gateway refused: stop.
    pub fn abort(&mut self, channel_id: &str) -> bool {
        if self
            .job
            .as_ref()
            .is_some_and(|j| j.channel_id == channel_id)
        {
            self.cancel();
            return true;
        }
        false
    }

    fn finish(&mut self) -> Option<File<P>> {
        let mut job = self.job.take()?;
        let (head, tail) = match job.format {
            Format::Markdown => (
                fmt::markdown_head(
                    &job.title,
                    &job.channel_id,
                    job.exported_ms,
                    job.tz_offset_min,
                ),
                "",
            ),
            Format::Json => (
                fmt::json_head(&job.title, &job.channel_id, job.exported_ms),
                fmt::JSON_TAIL,
            ),
        };
        job.pages.reverse();
        Some(File {
            name: fmt::file_name(&job.title, job.format.extension()),
            mime: job.format.mime(),
            head,
            pages: job.pages,
            sep: separator(job.format),
            tail,
        })
    }
}

/// What goes between two pages' texts in the file.
fn separator(format: Format) -> &'static str {
    match format {
        Format::Markdown => "",
        Format::Json => ",",
    }
}

/// `5,000`: thousands grouped with commas.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[path = "export_branch_tests.rs"]
mod branch_tests;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_items::commentary;
    use serde_json::Value;

    /// The gateway's answer to `before` over a log of `n` items.
    fn page(channel: &str, n: u64, req: &HistoryGet) -> History {
        let before = req.before.unwrap_or(NEWEST);
        let limit = u64::from(req.limit.unwrap_or(50));
        let hi = before.min(n + 1);
        let lo = hi.saturating_sub(limit).max(1);
        History {
            channel_id: channel.into(),
            items: (lo..hi).map(commentary).collect(),
            has_more: lo > 1,
            has_newer: None,
            before: req.before,
            after: None,
            around: None,
            branch_rev: None,
        }
    }

    /// Parts kept as the text itself.
    pub(super) struct Texts;

    impl Parts for Texts {
        type Part = String;
        fn keep(&mut self, text: String) -> String {
            text
        }
        fn join(&mut self, run: Vec<String>, sep: &'static str) -> String {
            run.join(sep)
        }
    }

    /// The file's whole text.
    fn text(file: &File<String>) -> String {
        format!("{}{}{}", file.head, file.pages.join(file.sep), file.tail)
    }

    fn export(n: u64, format: Format) -> (Vec<HistoryGet>, File<String>) {
        let mut ex = Exporter::<String>::default();
        let mut req = ex
            .start("c1", "My thread", format, n, 1000, 0, true, 0.0)
            .expect("first request");
        let mut sent = vec![req.clone()];
        loop {
            let h = page("c1", n, &req);
            assert!(ex.claims(&h));
            match ex.on_page(h, 0.0, &mut Texts) {
                Some(Step::Next(_)) => {
                    let next = ex.resume(0.0).expect("the next request");
                    sent.push(next.clone());
                    req = next;
                }
                Some(Step::Done(file)) => return (sent, file),
                None => panic!("a claimed page led nowhere"),
            }
        }
    }

    #[test]
    fn fetches_every_page_once_newest_first() {
        let (sent, file) = export(450, Format::Json);
        let befores: Vec<_> = sent.iter().map(|r| r.before).collect();
        assert_eq!(befores, [Some(NEWEST), Some(251), Some(51)]);
        assert!(sent
            .iter()
            .all(|r| r.limit == Some(200) && r.after.is_none()));
        assert_eq!(file.name, "My-thread.json");
        let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
        let seqs: Vec<u64> = doc["items"]
            .as_array()
            .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
            .unwrap_or_default();
        assert_eq!(seqs, (1..=450).collect::<Vec<_>>());
        assert_eq!(doc["title"], "My thread");
    }

    /// Parts kept as numbers: page texts numbered from 1 as they come,
    /// joined runs from 1001; both recorded.
    #[derive(Default)]
    struct Numbered {
        kept: Vec<String>,
        joined: Vec<Vec<usize>>,
    }

    impl Parts for Numbered {
        type Part = usize;
        fn keep(&mut self, text: String) -> usize {
            self.kept.push(text);
            self.kept.len()
        }
        fn join(&mut self, run: Vec<usize>, sep: &'static str) -> usize {
            assert_eq!(sep, ",");
            self.joined.push(run);
            1000 + self.joined.len()
        }
    }

    /// A JSON export of `n` items with parts kept by `parts`.
    fn export_into(n: u64, parts: &mut Numbered) -> File<usize> {
        let mut ex = Exporter::default();
        let mut req = ex
            .start("c1", "T", Format::Json, n, 0, 0, true, 0.0)
            .expect("request");
        loop {
            match ex.on_page(page("c1", n, &req), 0.0, parts) {
                Some(Step::Next(_)) => req = ex.resume(0.0).expect("next"),
                Some(Step::Done(file)) => return file,
                None => panic!("a claimed page led nowhere"),
            }
        }
    }

    #[test]
    fn each_page_is_kept_as_it_arrives_and_the_file_is_those_parts() {
        let mut parts = Numbered::default();
        let file = export_into(450, &mut parts);
        let kept = &parts.kept;
        assert_eq!(kept.len(), 3, "one part per page, handed over at once");
        assert!(kept[0].contains("\"note 450\"") && kept[2].contains("\"note 1\""));
        assert!(parts.joined.is_empty());
        assert_eq!(file.pages, [3, 2, 1], "the parts oldest first");
        assert_eq!(
            (file.sep, file.tail),
            (",", crate::render::export::JSON_TAIL)
        );
    }

    #[test]
    fn every_run_of_pages_is_joined_into_one_part_in_order() {
        let pages = 2 * GROUP_PAGES + 5;
        let mut parts = Numbered::default();
        let file = export_into(200 * pages as u64, &mut parts);
        assert_eq!(parts.kept.len(), pages);
        // Pages come newest first; each run is joined oldest first.
        let run = |from: usize| (from..from + GROUP_PAGES).rev().collect::<Vec<_>>();
        assert_eq!(parts.joined, [run(1), run(GROUP_PAGES + 1)]);
        let loose = (2 * GROUP_PAGES + 1..=pages).rev();
        let want: Vec<usize> = loose.chain([1002, 1001]).collect();
        assert_eq!(file.pages, want, "the file: the parts oldest first");
    }

    #[test]
    fn a_long_export_is_the_same_file_with_its_pages_joined() {
        let (_, file) = export(200 * (GROUP_PAGES as u64 + 1) + 7, Format::Json);
        assert_eq!(file.pages.len(), 3, "one run, two loose pages");
        let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
        let seqs: Vec<u64> = doc["items"]
            .as_array()
            .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
            .unwrap_or_default();
        assert_eq!(
            seqs,
            (1..=200 * (GROUP_PAGES as u64 + 1) + 7).collect::<Vec<_>>()
        );
    }

    #[test]
    fn markdown_pages_join_in_order() {
        let (_, file) = export(401, Format::Markdown);
        let md = text(&file);
        assert!(md.starts_with("# My thread\n"));
        let pos: Vec<usize> = [1, 2, 201, 202, 401]
            .iter()
            .filter_map(|s| md.find(&format!("*note {s}*\n")))
            .collect();
        assert_eq!(pos.len(), 5);
        assert!(pos.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(md.matches("*note ").count(), 401);
    }

    #[test]
    fn empty_threads_export_too() {
        let (sent, file) = export(0, Format::Json);
        assert_eq!(sent.len(), 1);
        let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
        assert_eq!(doc["items"], Value::Array(vec![]));
    }

    #[test]
    fn only_its_own_replies_are_claimed() {
        let mut ex = Exporter::<String>::default();
        let req = ex
            .start("c1", "T", Format::Json, 10, 0, 0, true, 0.0)
            .expect("request");
        let mut h = page("c1", 10, &req);
        h.before = None;
        assert!(!ex.claims(&h), "the timeline's newest page");
        h.before = Some(5);
        assert!(!ex.claims(&h), "the timeline's older page");
        h.before = Some(NEWEST);
        h.channel_id = "c2".into();
        assert!(!ex.claims(&h), "another thread");
        h.channel_id = "c1".into();
        h.after = Some(3);
        assert!(!ex.claims(&h), "a gap fill");
        assert!(ex
            .start("c2", "T", Format::Json, 1, 0, 0, true, 0.0)
            .is_none());
    }

    #[test]
    fn cancel_stops_and_swallows_the_reply_in_flight() {
        let mut ex = Exporter::<String>::default();
        let req = ex
            .start("c1", "T", Format::Json, 450, 0, 0, true, 0.0)
            .expect("request");
        ex.cancel();
        assert_eq!(ex.progress(), None);
        let h = page("c1", 450, &req);
        assert!(ex.claims(&h), "the late reply is not the timeline's");
        assert_eq!(
            ex.on_page(h.clone(), 0.0, &mut Texts),
            None,
            "and leads to no request"
        );
        assert!(!ex.claims(&h), "only once");
    }

    #[test]
    fn a_lost_connection_resends_the_page() {
        let mut ex = Exporter::<String>::default();
        let first = ex
            .start("c1", "T", Format::Json, 450, 0, 0, true, 0.0)
            .expect("request");
        ex.connection_lost();
        assert!(!ex.claims(&page("c1", 450, &first)));
        assert_eq!(ex.resume(0.0), Some(first.clone()));
        assert_eq!(ex.resume(0.0), None, "one request in flight");
        let mut offline = Exporter::<String>::default();
        assert!(offline
            .start("c1", "T", Format::Json, 1, 0, 0, false, 0.0)
            .is_none());
        assert_eq!(offline.resume(0.0).map(|r| r.before), Some(Some(NEWEST)));
    }

    #[test]
    fn a_misbehaving_gateway_cannot_loop_or_duplicate() {
        let mut ex = Exporter::<String>::default();
        let req = ex
            .start("c1", "T", Format::Json, 10, 0, 0, true, 0.0)
            .expect("request");
        let mut h = page("c1", 10, &req);
        h.items = (6..=10).chain(8..=10).rev().map(commentary).collect();
        h.has_more = true;
        let Some(Step::Next(_)) = ex.on_page(h, 0.0, &mut Texts) else {
            panic!("expected a next page");
        };
        let next = ex.resume(0.0).expect("the next request");
        assert_eq!(next.before, Some(6), "asks below the oldest seen");
        // The same items again, claiming more: none is new, so it ends.
        let mut again = page("c1", 10, &req);
        again.items = (6..=10).map(commentary).collect();
        again.before = next.before;
        again.has_more = true;
        let Some(Step::Done(file)) = ex.on_page(again, 0.0, &mut Texts) else {
            panic!("expected the end");
        };
        let doc: Value = serde_json::from_str(&text(&file)).unwrap_or_default();
        let seqs: Vec<u64> = doc["items"]
            .as_array()
            .map(|a| a.iter().filter_map(|i| i["seq"].as_u64()).collect())
            .unwrap_or_default();
        assert_eq!(seqs, [6, 7, 8, 9, 10]);
    }

    #[test]
    fn pages_are_paced_after_a_burst() {
        let mut pacer = Pacer::default();
        for _ in 0..20 {
            assert_eq!(pacer.wait_ms(0.0), 0.0);
            pacer.take(0.0);
        }
        let wait = pacer.wait_ms(0.0);
        assert!((wait - 1000.0 / PAGES_PER_SEC).abs() < 1e-6, "{wait}");
        assert_eq!(pacer.wait_ms(wait), 0.0);
        pacer.take(wait);
        // A long pause refills the burst, no more.
        assert_eq!(pacer.wait_ms(1e9), 0.0);
        assert!(pacer.tokens <= BURST);
    }

    #[test]
    fn progress_reads_in_thousands() {
        let p = Progress {
            channel_id: "c".into(),
            format: Format::Markdown,
            done: 1200,
            total: 5000,
        };
        assert_eq!(p.label(), "Exporting… 1,200 of 5,000 items");
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(100_000), "100,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn aborts_only_its_thread() {
        let mut ex = Exporter::<String>::default();
        let _ = ex.start("c1", "T", Format::Json, 1, 0, 0, true, 0.0);
        assert!(!ex.abort("c2"));
        assert!(ex.progress().is_some());
        assert!(ex.abort("c1"));
        assert!(ex.progress().is_none());
    }
}

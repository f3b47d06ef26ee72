//! Exporting a thread: fetching all of it page by page (`history.get
//! {before}`, 200 at a time, newest first) apart from what the timeline
//! shows, and building the file one page at a time.
//!
//! The store answers its own `history` replies in request order. An
//! export's replies are told apart by the echoed `before` (§6) and taken
//! out before the store sees them ([`Exporter::route`]). Should the
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

mod frames;

pub use frames::Routed;

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
    fn claims(&self, h: &History) -> bool {
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
    fn abort(&mut self, channel_id: &str) -> bool {
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
mod tests;

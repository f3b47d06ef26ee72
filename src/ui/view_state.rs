//! The reactive side of the store: signals the components read. Updated from
//! the store's change list once per animation frame, so a burst of frames
//! costs one render, a streaming update touches one row's signal, and a new
//! item appends one key.
//!
//! Work per sync is proportional to what changed, not to the thread: an
//! order change compares keys once (no allocation) and then touches only
//! the rows that came, went or are still live.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;

use crate::net::Status;
use crate::store::{
    Change, ChannelState, Diagnostics, Notice, Row, RowBody, RowKey, Store, Timeline, Turn,
    WorkEvent, NEW_THREAD,
};

/// A thread as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChannelSummary {
    pub id: String,
    pub title: String,
    pub preview: String,
    pub unread: u32,
    pub busy: bool,
    /// Approval requests waiting for an answer.
    pub needs_you: u32,
    pub updated_at: i64,
}

/// One work event of the running turn, resolved for the progress draft.
#[derive(Debug, Clone, PartialEq)]
pub enum DraftEvent {
    Tool {
        key: RowKey,
        emoji: Option<String>,
        name: String,
        preview: String,
        args: serde_json::Value,
    },
    Note {
        emoji: Option<String>,
        name: String,
        note: String,
    },
    Commentary(String),
}

/// The open thread's running turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnView {
    pub id: String,
    pub typing: bool,
    pub started_ms: f64,
    pub work_count: u32,
    pub answered: bool,
    pub events: Vec<DraftEvent>,
    /// Requests waiting for an answer: key, title and command.
    pub waiting: Vec<(RowKey, String, Option<String>)>,
}

/// A turn's tool and commentary rows, for the "N tool calls" expander.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnWork {
    pub turn: String,
    pub tools: usize,
}

/// Paging state of the open thread.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PagingView {
    pub loaded: bool,
    pub has_older: bool,
    pub loading: bool,
    /// The window ends before the thread does (opened around an item).
    pub has_newer: bool,
    pub loading_newer: bool,
}

/// The search field's state, as the results list shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchView {
    pub status: crate::search::Status,
    pub query: String,
    pub hits: Vec<crate::protocol::Hit>,
    pub has_more: bool,
}

/// How the open thread's key list changed, for views that keep per-row
/// bookkeeping in step with it (the timeline's row heights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderEdit {
    /// The `removed` keys from index `at` on were replaced by `inserted`
    /// other keys; everything else kept its place.
    Splice {
        at: usize,
        removed: usize,
        inserted: usize,
    },
    /// Another thread: nothing carries over.
    Reset,
}

/// Edits kept for a consumer that fell behind before they collapse into a
/// `Reset` (the timeline takes them every sync, so this never fills).
const MAX_PENDING_EDITS: usize = 64;

#[derive(Clone, Copy)]
pub struct ViewState {
    pub status: RwSignal<Status>,
    pub channels: RwSignal<Vec<ChannelSummary>>,
    pub active: RwSignal<Option<String>>,
    /// Row keys of the open thread, in display order.
    pub order: RwSignal<Vec<RowKey>>,
    /// How `order` changed since the timeline last looked.
    order_edits: StoredValue<Vec<OrderEdit>>,
    rows: StoredValue<HashMap<RowKey, RwSignal<Row>>>,
    /// Keys of rows not logged yet (pending, streaming, running): the only
    /// rows the store can move and change with an order change alone.
    live: StoredValue<HashSet<RowKey>>,
    /// Signals of rows that left the thread, disposed one sync later, once
    /// their components are gone.
    retired: StoredValue<Vec<RwSignal<Row>>>,
    /// Each turn's first work row, the key `turn_work` is indexed by.
    first_work: StoredValue<HashMap<String, RowKey>>,
    pub turn: RwSignal<Option<TurnView>>,
    /// By the key of each turn's first work row: the turn and its tool count.
    pub turn_work: RwSignal<HashMap<RowKey, TurnWork>>,
    /// Turns whose work rows the reader unfolded (progress mode).
    pub expanded_turns: RwSignal<std::collections::HashSet<String>>,
    pub paging: RwSignal<PagingView>,
    /// The row to bring on screen and mark, with a count that tells one
    /// jump from the next to the same row.
    pub focus: RwSignal<Option<(RowKey, u64)>>,
    pub search: RwSignal<SearchView>,
    pub notices: RwSignal<Vec<Notice>>,
    pub diagnostics: RwSignal<Diagnostics>,
    pub outbox_len: RwSignal<usize>,
}

impl ViewState {
    pub fn new() -> ViewState {
        ViewState {
            status: RwSignal::new(Status::Connecting),
            channels: RwSignal::new(Vec::new()),
            active: RwSignal::new(None),
            order: RwSignal::new(Vec::new()),
            order_edits: StoredValue::new(Vec::new()),
            rows: StoredValue::new(HashMap::new()),
            live: StoredValue::new(HashSet::new()),
            retired: StoredValue::new(Vec::new()),
            first_work: StoredValue::new(HashMap::new()),
            turn: RwSignal::new(None),
            turn_work: RwSignal::new(HashMap::new()),
            expanded_turns: RwSignal::new(Default::default()),
            paging: RwSignal::new(PagingView::default()),
            focus: RwSignal::new(None),
            search: RwSignal::new(SearchView::default()),
            notices: RwSignal::new(Vec::new()),
            diagnostics: RwSignal::new(Diagnostics::default()),
            outbox_len: RwSignal::new(0),
        }
    }

    /// The signal of one row of the open thread.
    pub fn row(&self, key: &str) -> Option<RwSignal<Row>> {
        self.rows.with_value(|r| r.get(key).copied())
    }

    /// The edits of `order` since the last call (oldest first).
    pub fn take_order_edits(&self) -> Vec<OrderEdit> {
        self.order_edits
            .try_update_value(std::mem::take)
            .unwrap_or_default()
    }

    /// Brings the signals up to date with the store.
    pub fn sync(&self, store: &Store, changes: Vec<Change>) {
        self.dispose_retired();
        let active = store.active().unwrap_or(NEW_THREAD).to_string();
        let mut reset = false;
        let mut order = false;
        let mut turn = false;
        let mut channels = false;
        let mut focus = false;
        for change in dedup(changes) {
            match change {
                Change::Active => {
                    // Row signals are kept by key: a pending bubble that
                    // moves into its new auto-thread keeps its component.
                    self.active.set(store.active().map(str::to_string));
                    reset = true;
                    order = true;
                    turn = true;
                    channels = true;
                }
                Change::Window(c) if c == active => {
                    reset = true;
                    order = true;
                }
                Change::Focus(c) if c == active => focus = true,
                Change::Order(c) if c == active => order = true,
                Change::Row(c, key) if c == active => {
                    if let (Some(sig), Some(row)) = (self.row(&key), store.row(&c, &key)) {
                        self.track_live(row);
                        sig.set(row.clone());
                    }
                }
                Change::Turn(c) if c == active => turn = true,
                Change::Channels => channels = true,
                Change::Search => {
                    let s = store.search();
                    set_if_changed(
                        self.search,
                        SearchView {
                            status: s.status().clone(),
                            query: s.query().to_string(),
                            hits: s.hits().to_vec(),
                            has_more: s.has_more(),
                        },
                    );
                }
                Change::Notices => self.notices.set(store.notices().cloned().collect()),
                Change::Diagnostics => self.diagnostics.set(store.diagnostics().clone()),
                Change::Order(_)
                | Change::Row(..)
                | Change::Turn(_)
                | Change::Window(_)
                | Change::Focus(_) => {}
            }
        }
        if order {
            self.sync_order(store, &active, reset);
        }
        if focus {
            // After the order: the row is in it by now.
            if let Some(f) = store.focus().filter(|f| f.channel == active) {
                let n = self
                    .focus
                    .with_untracked(|f| f.as_ref().map_or(0, |(_, n)| n + 1));
                self.focus.set(Some((f.key.clone(), n)));
            }
        }
        if turn || order {
            let turn = store
                .channel(&active)
                .and_then(|c| c.turn.as_ref().map(|t| turn_view(c, t)));
            set_if_changed(self.turn, turn);
        }
        if channels {
            set_if_changed(self.channels, store.channels().map(summary).collect());
            let paging = store
                .channel(&active)
                .map(|c| PagingView {
                    loaded: c.loaded,
                    has_older: c.has_older,
                    loading: c.loading_older(),
                    has_newer: c.has_newer,
                    loading_newer: c.loading_newer(),
                })
                .unwrap_or_default();
            set_if_changed(self.paging, paging);
        }
        set_if_changed(self.outbox_len, store.outbox().len());
    }

    /// Brings `order`, the row signals and `turn_work` up to date after
    /// the open thread's rows were added, removed or moved.
    fn sync_order(&self, store: &Store, active: &str, reset: bool) {
        let empty = Timeline::default();
        let timeline = store.timeline(active).unwrap_or(&empty);
        let (at, removed, inserted) = self.order.with_untracked(|old| diff(old, timeline));
        let appended = !reset && removed == 0 && at == self.order.with_untracked(Vec::len);
        let gone: Vec<RowKey> = if removed == 0 && inserted.is_empty() {
            Vec::new()
        } else {
            let mut gone = Vec::new();
            self.order.update(|o| {
                gone = o
                    .splice(at..at + removed, inserted.iter().cloned())
                    .collect();
            });
            gone
        };
        self.push_edit(if reset {
            OrderEdit::Reset
        } else {
            OrderEdit::Splice {
                at,
                removed,
                inserted: inserted.len(),
            }
        });
        self.update_signals(timeline, &inserted, &gone);
        if appended {
            self.count_work(timeline, &inserted);
        } else if removed > 0 || !inserted.is_empty() {
            self.recount_work(timeline);
        }
    }

    /// Signals for rows that arrived, retires those of rows that left, and
    /// refreshes live rows (a live row that got logged may have moved).
    fn update_signals(&self, timeline: &Timeline, inserted: &[RowKey], gone: &[RowKey]) {
        let staying: HashSet<&RowKey> = inserted.iter().collect();
        let mut retired = Vec::new();
        self.rows.update_value(|signals| {
            for key in gone.iter().filter(|k| !staying.contains(k)) {
                if let Some(sig) = signals.remove(key) {
                    retired.push(sig);
                }
                self.live.update_value(|l| {
                    l.remove(key);
                });
            }
            for key in inserted {
                let Some(row) = timeline.get(key) else {
                    continue;
                };
                self.track_live(row);
                match signals.get(key) {
                    Some(sig) => {
                        if sig.with_untracked(|r| r != row) {
                            sig.set(row.clone());
                        }
                    }
                    None => {
                        signals.insert(key.clone(), RwSignal::new(row.clone()));
                    }
                }
            }
        });
        self.retired.update_value(|r| r.extend(retired));
        let live: Vec<RowKey> = self.live.with_value(|l| l.iter().cloned().collect());
        for key in live {
            if let (Some(sig), Some(row)) = (self.row(&key), timeline.get(&key)) {
                if sig.with_untracked(|r| r != row) {
                    self.track_live(row);
                    sig.set(row.clone());
                }
            }
        }
    }

    fn track_live(&self, row: &Row) {
        self.live.update_value(|l| {
            if row.seq.is_none() {
                l.insert(row.key.clone());
            } else {
                l.remove(&row.key);
            }
        });
    }

    /// Rows appended at the end: their turns' tool counts grow, and a turn
    /// seen for the first time starts at its first work row.
    fn count_work(&self, timeline: &Timeline, appended: &[RowKey]) {
        let mut adds: Vec<(RowKey, String, bool)> = Vec::new();
        self.first_work.update_value(|first| {
            for row in appended.iter().filter_map(|k| timeline.get(k)) {
                if let Some((turn, tool)) = work_of(row) {
                    let key = first
                        .entry(turn.to_string())
                        .or_insert_with(|| row.key.clone());
                    adds.push((key.clone(), turn.to_string(), tool));
                }
            }
        });
        if adds.is_empty() {
            return;
        }
        self.turn_work.update(|counts| {
            for (key, turn, tool) in adds {
                counts
                    .entry(key)
                    .or_insert_with(|| TurnWork { turn, tools: 0 })
                    .tools += usize::from(tool);
            }
        });
    }

    /// Counts every turn's work rows again (after anything but an append).
    fn recount_work(&self, timeline: &Timeline) {
        let mut first: HashMap<String, RowKey> = HashMap::new();
        let mut counts: HashMap<RowKey, TurnWork> = HashMap::new();
        for row in timeline.rows() {
            let Some((turn, tool)) = work_of(row) else {
                continue;
            };
            let key = first
                .entry(turn.to_string())
                .or_insert_with(|| row.key.clone());
            counts
                .entry(key.clone())
                .or_insert_with(|| TurnWork {
                    turn: turn.to_string(),
                    tools: 0,
                })
                .tools += usize::from(tool);
        }
        self.first_work.set_value(first);
        if self.turn_work.with_untracked(|w| *w != counts) {
            self.turn_work.set(counts);
        }
    }

    fn push_edit(&self, edit: OrderEdit) {
        self.order_edits.update_value(|edits| {
            if edit == OrderEdit::Reset || edits.len() >= MAX_PENDING_EDITS {
                edits.clear();
                edits.push(OrderEdit::Reset);
            } else {
                edits.push(edit);
            }
        });
    }

    /// Frees the signals retired by the previous sync: the components that
    /// read them were unmounted since.
    fn dispose_retired(&self) {
        for sig in self
            .retired
            .try_update_value(std::mem::take)
            .unwrap_or_default()
        {
            sig.dispose();
        }
    }
}

/// Sets `signal` only when the value differs: a burst of frames that
/// changes nothing visible (a flood's per-item bookkeeping) then wakes no
/// component.
fn set_if_changed<T: PartialEq + Send + Sync + 'static>(signal: RwSignal<T>, value: T) {
    if signal.with_untracked(|old| *old != value) {
        signal.set(value);
    }
}

/// The turn of a work row (tool call or commentary) and whether it is a tool.
fn work_of(row: &Row) -> Option<(&str, bool)> {
    match (&row.turn, &row.body) {
        (Some(turn), RowBody::Tool(_)) => Some((turn, true)),
        (Some(turn), RowBody::Commentary(_)) => Some((turn, false)),
        _ => None,
    }
}

/// How to turn `old` into the timeline's keys with one splice: the length
/// of the common prefix, how many old keys follow it before the common
/// suffix, and the new keys that replace them. One pass of comparisons.
fn diff(old: &[RowKey], timeline: &Timeline) -> (usize, usize, Vec<RowKey>) {
    let new_len = timeline.len();
    let prefix = old
        .iter()
        .zip(timeline.keys())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = old
        .iter()
        .rev()
        .zip(timeline.keys().rev())
        .take(old.len().min(new_len) - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let inserted = timeline
        .keys()
        .skip(prefix)
        .take(new_len - prefix - suffix)
        .cloned()
        .collect();
    (prefix, old.len() - prefix - suffix, inserted)
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState::new()
    }
}

fn dedup(changes: Vec<Change>) -> Vec<Change> {
    let mut seen = std::collections::HashSet::new();
    changes
        .into_iter()
        .filter(|c| seen.insert(c.clone()))
        .collect()
}

fn summary(c: &ChannelState) -> ChannelSummary {
    ChannelSummary {
        id: c.meta.channel_id.clone(),
        title: c.meta.title.clone(),
        preview: c.meta.preview.clone().unwrap_or_default(),
        unread: c.unread,
        busy: c.is_busy(),
        needs_you: u32::try_from(c.waiting.len()).unwrap_or(u32::MAX),
        updated_at: c.meta.updated_at,
    }
}

fn turn_view(c: &ChannelState, t: &Turn) -> TurnView {
    let tool = |key: &str| match c.timeline.get(key).map(|r| &r.body) {
        Some(RowBody::Tool(call)) => Some(call.clone()),
        _ => None,
    };
    let events = t
        .events
        .iter()
        .filter_map(|e| match e {
            WorkEvent::Tool(key) => tool(key).map(|call| DraftEvent::Tool {
                key: key.clone(),
                emoji: call.emoji,
                name: call.name,
                preview: call.preview,
                args: call.args,
            }),
            WorkEvent::Note { tool: key, note } => tool(key).map(|call| DraftEvent::Note {
                emoji: call.emoji,
                name: call.name,
                note: note.clone(),
            }),
            WorkEvent::Commentary(text) => Some(DraftEvent::Commentary(text.clone())),
        })
        .collect();
    let waiting = c
        .waiting
        .iter()
        .filter_map(|key| match c.timeline.get(key).map(|r| &r.body) {
            Some(RowBody::Approval(a)) => Some((key.clone(), a.title.clone(), a.command.clone())),
            _ => None,
        })
        .collect();
    TurnView {
        id: t.id.clone(),
        typing: c.typing,
        started_ms: t.started_ms,
        work_count: t.work_count,
        answered: t.answered,
        events,
        waiting,
    }
}

#[cfg(test)]
mod tests;

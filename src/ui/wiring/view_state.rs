//! The reactive side of the store: signals the components read. Updated from
//! the store's change list once per animation frame, so a burst of frames
//! costs one render, a streaming update touches one row's signal, and a new
//! item appends one key.
//!
//! Work per sync is proportional to what changed, not to the thread: an
//! order change compares keys once (no allocation) and then touches only
//! the rows that came, went or are still live. The jobs live apart: what
//! the components show of the store (`projection`, pure), the row signals
//! (`row_signals`), the order's splices (`ui::order_edits`, pure), the
//! turns' work counts (`turn_work`, pure) and the nested calls (`nests`,
//! pure).

mod nests;
mod projection;
mod row_signals;
mod steering;
mod turn_work;

use leptos::prelude::*;

pub use nests::Nests;
pub use projection::{ChannelSummary, DraftEvent, PagingView, SearchView, TurnView};
pub use steering::SteeringView;
pub use turn_work::WorkCount;

use crate::net::Status;
use crate::store::{Change, Diagnostics, Notice, Row, RowKey, Store, Timeline, NEW_THREAD};
use crate::ui::wiring::order_edits::{self, EditLog, OrderEdit};
use row_signals::RowSignals;

#[derive(Clone, Copy)]
pub struct ViewState {
    pub status: RwSignal<Status>,
    pub channels: RwSignal<Vec<ChannelSummary>>,
    pub active: RwSignal<Option<String>>,
    /// Row keys of the open thread, in display order.
    pub order: RwSignal<Vec<RowKey>>,
    /// How `order` changed since the timeline last looked.
    order_edits: StoredValue<EditLog>,
    rows: RowSignals,
    pub turn: RwSignal<Option<TurnView>>,
    /// The id of `turn`, apart: rows ask only whether their turn runs, and
    /// must not wake up on every work event of a burst.
    running: RwSignal<Option<String>>,
    /// By the key of each turn's first work row: the turn and its tool count.
    pub turn_work: RwSignal<WorkCount>,
    /// The calls drawn inside other calls' cards (§14).
    pub nests: RwSignal<Nests>,
    pub paging: RwSignal<PagingView>,
    /// The row to bring on screen and mark, with a count that tells one
    /// jump from the next to the same row.
    pub focus: RwSignal<Option<(RowKey, u64)>>,
    pub search: RwSignal<SearchView>,
    pub notices: RwSignal<Vec<Notice>>,
    pub diagnostics: RwSignal<Diagnostics>,
    pub pending_sends_len: RwSignal<usize>,
    /// Edit, regenerate and the branch navigators of the open thread.
    pub steering: SteeringView,
}

impl ViewState {
    pub fn new() -> ViewState {
        ViewState {
            status: RwSignal::new(Status::Connecting),
            channels: RwSignal::new(Vec::new()),
            active: RwSignal::new(None),
            order: RwSignal::new(Vec::new()),
            order_edits: StoredValue::new(EditLog::default()),
            rows: RowSignals::new(),
            turn: RwSignal::new(None),
            running: RwSignal::new(None),
            turn_work: RwSignal::new(WorkCount::default()),
            nests: RwSignal::new(Nests::default()),
            paging: RwSignal::new(PagingView::default()),
            focus: RwSignal::new(None),
            search: RwSignal::new(SearchView::default()),
            notices: RwSignal::new(Vec::new()),
            diagnostics: RwSignal::new(Diagnostics::default()),
            pending_sends_len: RwSignal::new(0),
            steering: SteeringView::new(),
        }
    }

    /// The signal of one row of the open thread.
    pub fn row(&self, key: &RowKey) -> Option<RwSignal<Row>> {
        self.rows.get(key)
    }

    /// Whether `turn` is the open thread's running turn (its work shows in
    /// the progress draft, not in the timeline).
    pub fn is_running(&self, turn: &str) -> bool {
        self.running.with(|r| r.as_deref() == Some(turn))
    }

    /// The edits of `order` since the last call (oldest first).
    pub fn take_order_edits(&self) -> Vec<OrderEdit> {
        self.order_edits
            .try_update_value(EditLog::take)
            .unwrap_or_default()
    }

    /// Brings the signals up to date with the store.
    pub fn sync(&self, store: &Store, changes: Vec<Change>) {
        self.rows.dispose_retired();
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
                    if let Some(row) = store.row(&c, &key) {
                        self.rows.set(row);
                    }
                }
                Change::Turn(c) if c == active => turn = true,
                Change::Channels => channels = true,
                Change::Search => set_if_changed(self.search, projection::search(store)),
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
        self.steering
            .sync(store, &active, reset, order, channels || turn);
        if turn || order {
            let turn = store
                .channel(&active)
                .and_then(|c| c.turn.as_ref().map(|t| projection::turn_view(c, t)));
            set_if_changed(self.running, turn.as_ref().map(|t| t.id.clone()));
            set_if_changed(self.turn, turn);
        }
        if channels {
            set_if_changed(
                self.channels,
                store.channels().map(projection::summary).collect(),
            );
            set_if_changed(self.paging, projection::paging(store.channel(&active)));
        }
        set_if_changed(self.pending_sends_len, store.pending_sends().len());
    }

    /// Brings `order`, the row signals, `turn_work` and `nests` up to date
    /// after the open thread's rows were added, removed or moved.
    fn sync_order(&self, store: &Store, active: &str, reset: bool) {
        let empty = Timeline::default();
        let timeline = store.timeline(active).unwrap_or(&empty);
        let (at, removed, inserted) = self
            .order
            .with_untracked(|old| order_edits::splice(old, || timeline.keys()));
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
        self.order_edits.update_value(|log| {
            log.push(if reset {
                OrderEdit::Reset
            } else {
                OrderEdit::Splice {
                    at,
                    removed,
                    inserted: inserted.len(),
                }
            })
        });
        self.rows.update(timeline, &inserted, &gone);
        if appended {
            let rows = inserted.iter().filter_map(|k| timeline.get(k));
            self.turn_work.maybe_update(|w| w.add(rows));
        } else if removed > 0 || !inserted.is_empty() {
            set_if_changed(self.turn_work, WorkCount::of(timeline.rows()));
        }
        set_if_changed(self.nests, Nests::of(timeline));
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

#[cfg(test)]
mod tests;

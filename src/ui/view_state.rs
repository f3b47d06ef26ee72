//! The reactive side of the store: signals the components read. Updated from
//! the store's change list once per animation frame, so a burst of frames
//! costs one render, a streaming update touches one row's signal, and a new
//! item appends one key.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::net::Status;
use crate::store::{
    Change, ChannelState, Diagnostics, Notice, Row, RowBody, RowKey, Store, Turn, WorkEvent,
    NEW_THREAD,
};

/// A thread as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChannelSummary {
    pub id: String,
    pub title: String,
    pub preview: String,
    pub unread: u32,
    pub busy: bool,
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
}

#[derive(Clone, Copy)]
pub struct ViewState {
    pub status: RwSignal<Status>,
    pub channels: RwSignal<Vec<ChannelSummary>>,
    pub active: RwSignal<Option<String>>,
    /// Row keys of the open thread, in display order.
    pub order: RwSignal<Vec<RowKey>>,
    rows: StoredValue<HashMap<RowKey, RwSignal<Row>>>,
    pub turn: RwSignal<Option<TurnView>>,
    /// By the key of each turn's first work row: the turn and its tool count.
    pub turn_work: RwSignal<HashMap<RowKey, TurnWork>>,
    /// Turns whose work rows the reader unfolded (progress mode).
    pub expanded_turns: RwSignal<std::collections::HashSet<String>>,
    pub paging: RwSignal<PagingView>,
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
            rows: StoredValue::new(HashMap::new()),
            turn: RwSignal::new(None),
            turn_work: RwSignal::new(HashMap::new()),
            expanded_turns: RwSignal::new(Default::default()),
            paging: RwSignal::new(PagingView::default()),
            notices: RwSignal::new(Vec::new()),
            diagnostics: RwSignal::new(Diagnostics::default()),
            outbox_len: RwSignal::new(0),
        }
    }

    /// The signal of one row of the open thread.
    pub fn row(&self, key: &str) -> Option<RwSignal<Row>> {
        self.rows.with_value(|r| r.get(key).copied())
    }

    /// Brings the signals up to date with the store.
    pub fn sync(&self, store: &Store, changes: Vec<Change>) {
        let active = store.active().unwrap_or(NEW_THREAD).to_string();
        let mut order = false;
        let mut turn = false;
        let mut channels = false;
        for change in dedup(changes) {
            match change {
                Change::Active => {
                    self.active.set(store.active().map(str::to_string));
                    self.rows.update_value(|r| r.clear());
                    order = true;
                    turn = true;
                    channels = true;
                }
                Change::Order(c) if c == active => order = true,
                Change::Row(c, key) if c == active => {
                    if let (Some(sig), Some(row)) = (self.row(&key), store.row(&c, &key)) {
                        sig.set(row.clone());
                    }
                }
                Change::Turn(c) if c == active => turn = true,
                Change::Channels => channels = true,
                Change::Notices => self.notices.set(store.notices().cloned().collect()),
                Change::Diagnostics => self.diagnostics.set(store.diagnostics().clone()),
                Change::Order(_) | Change::Row(..) | Change::Turn(_) => {}
            }
        }
        if order {
            self.sync_order(store, &active);
        }
        if turn || order {
            self.turn.set(
                store
                    .channel(&active)
                    .and_then(|c| c.turn.as_ref().map(|t| turn_view(c, t))),
            );
        }
        if channels {
            self.channels.set(store.channels().map(summary).collect());
            self.paging.set(
                store
                    .channel(&active)
                    .map(|c| PagingView {
                        loaded: c.loaded,
                        has_older: c.has_older,
                        loading: c.loading_older(),
                    })
                    .unwrap_or_default(),
            );
        }
        self.outbox_len.set(store.outbox().len());
    }

    fn sync_order(&self, store: &Store, active: &str) {
        let Some(timeline) = store.timeline(active) else {
            self.order.set(Vec::new());
            return;
        };
        let mut keys = Vec::with_capacity(timeline.len());
        let mut work: HashMap<String, (RowKey, usize)> = HashMap::new();
        self.rows.update_value(|signals| {
            let mut fresh = HashMap::with_capacity(timeline.len());
            for row in timeline.rows() {
                let sig = match signals.remove(&row.key) {
                    Some(sig) => {
                        if sig.with_untracked(|r| r != row) {
                            sig.set(row.clone());
                        }
                        sig
                    }
                    None => RwSignal::new(row.clone()),
                };
                fresh.insert(row.key.clone(), sig);
                keys.push(row.key.clone());
                if let (Some(t), RowBody::Tool(_) | RowBody::Commentary(_)) = (&row.turn, &row.body)
                {
                    let w = work
                        .entry(t.clone())
                        .or_insert_with(|| (row.key.clone(), 0));
                    if matches!(row.body, RowBody::Tool(_)) {
                        w.1 += 1;
                    }
                }
            }
            // Signals of rows that left the thread are dropped with the map.
            *signals = fresh;
        });
        self.order.set(keys);
        self.turn_work.set(
            work.into_iter()
                .map(|(turn, (first, tools))| (first, TurnWork { turn, tools }))
                .collect(),
        );
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

fn summary(c: &ChannelState) -> ChannelSummary {
    ChannelSummary {
        id: c.meta.channel_id.clone(),
        title: c.meta.title.clone(),
        preview: c.meta.preview.clone().unwrap_or_default(),
        unread: c.unread,
        busy: c.is_busy(),
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
    TurnView {
        id: t.id.clone(),
        typing: c.typing,
        started_ms: t.started_ms,
        work_count: t.work_count,
        answered: t.answered,
        events,
    }
}

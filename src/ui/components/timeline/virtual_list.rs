//! The timeline's virtual list: which rows are mounted, how tall the rest
//! are, and keeping what the reader sees in place.
//!
//! Only a window of rows around the screen is mounted; two spacers stand in
//! for the rows above and below it, with their measured heights (or an
//! estimate until a row was seen). A ResizeObserver measures mounted rows;
//! its callback runs after layout and before paint, which is where the list
//! puts the scroll position back:
//! - following the end (the reader is at the bottom): pinned to the bottom;
//! - otherwise: the row that was at the top of the screen (the anchor) is
//!   put back exactly where it was, whatever changed above it (older pages,
//!   rows measured taller than estimated, a marker appearing).
//!
//! The browser's own scroll anchoring is off (`overflow-anchor: none`): it
//! does not apply at scroll offset 0, where older pages arrive.
//!
//! Layout is read only where it is clean (scroll events, the observer's
//! callback, animation frames), never right after a write, so the list
//! forces no extra layout.

use std::collections::HashMap;
use std::ops::Range;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, ResizeObserver, ResizeObserverEntry};

use super::heights::{self, Heights};
use super::metrics::Metrics;
use super::window::{self, Viewport};
use crate::store::RowKey;
use crate::ui::wiring::order_edits::OrderEdit;

/// The elements the list works with.
pub struct Dom {
    pub scroller: HtmlElement,
    pub top_spacer: HtmlElement,
    pub bottom_spacer: HtmlElement,
    /// The container of the spacers and the rows.
    pub rows: HtmlElement,
    pub observer: ResizeObserver,
}

/// A row at the top of the screen and its distance from the scroller's top.
struct Anchor {
    key: RowKey,
    offset: f64,
}

pub struct VirtualList {
    heights: Heights,
    /// Measured heights by key: survive rows leaving the window and the
    /// key list being rebuilt.
    measured: HashMap<RowKey, f64>,
    measured_sum: f64,
    window: Range<usize>,
    /// Keys of `window`, which the timeline's keyed rows render.
    pub window_keys: RwSignal<Vec<RowKey>>,
    /// Index in the thread of each row in the window, computed for a
    /// window starting at `index_base`.
    window_index: HashMap<RowKey, usize>,
    index_base: usize,
    /// Mounted rows' elements.
    elements: HashMap<RowKey, Element>,
    /// The reader is at the bottom: new output scrolls into view.
    pub following: bool,
    anchor: Option<Anchor>,
    metrics: Metrics,
    /// Spacer heights last written (above, below the window).
    spacers: (f64, f64),
    /// Where the list last scrolled to itself: its scroll event keeps the
    /// anchor, whose offset would otherwise take in the rounding error of
    /// each correction (scroll offsets are whole pixels) and drift.
    own_scroll: Option<f64>,
    /// The row jumped to, marked while mounted.
    focus: Option<RowKey>,
    dom: Option<Dom>,
}

/// What the timeline should do after the list handled an event.
#[derive(Debug, Default, Clone, Copy)]
pub struct After {
    /// Rows arrived at the end of the thread.
    pub appended: bool,
    /// The screen is near the top of what is loaded: ask for older rows.
    pub near_top: bool,
    /// Near the bottom of what is loaded: newer rows, if the window has more.
    pub near_bottom: bool,
    /// Rows changed size: check on the next frame that the mounted rows
    /// still cover the screen (rows cannot be mounted from the observer's
    /// callback: their first measurement would miss the frame).
    pub refresh: bool,
}

impl VirtualList {
    pub fn new() -> VirtualList {
        VirtualList {
            heights: Heights::default(),
            measured: HashMap::new(),
            measured_sum: 0.0,
            window: 0..0,
            window_keys: RwSignal::new(Vec::new()),
            window_index: HashMap::new(),
            index_base: 0,
            elements: HashMap::new(),
            following: true,
            anchor: None,
            metrics: Metrics::default(),
            spacers: (-1.0, -1.0),
            own_scroll: None,
            focus: None,
            dom: None,
        }
    }

    pub fn attach(&mut self, dom: Dom) {
        self.dom = Some(dom);
        self.read_metrics();
    }

    /// The timeline is going: its observer stops.
    pub fn detach(&mut self) {
        if let Some(dom) = self.dom.take() {
            dom.observer.disconnect();
        }
    }

    // ----- events -----

    /// The thread's key list changed (`edits`, oldest first).
    pub fn on_order(&mut self, edits: &[OrderEdit], order: &[RowKey]) -> After {
        let mut after = After::default();
        for edit in edits {
            match *edit {
                OrderEdit::Splice {
                    at,
                    removed: 0,
                    inserted,
                } if at == self.heights.len() => {
                    // Appended: O(k log n), the common case while a turn runs.
                    for key in &order[at..(at + inserted).min(order.len())] {
                        let h = self.height_of(key);
                        self.heights.push(h);
                    }
                    // Rows after others: news (the first rows are a page).
                    after.appended |= inserted > 0 && at > 0;
                }
                OrderEdit::Splice {
                    at,
                    removed,
                    inserted,
                } => {
                    // Rows that stay keep their heights (and estimates), so
                    // nothing moves but what the edit moved.
                    let fresh: Vec<f64> = order[at..(at + inserted).min(order.len())]
                        .iter()
                        .map(|k| self.height_of(k))
                        .collect();
                    self.heights.splice(at, removed, fresh);
                }
                OrderEdit::Reset => {
                    self.measured.clear();
                    self.measured_sum = 0.0;
                    self.following = true;
                    self.anchor = None;
                    self.rebuild(order);
                }
            }
            self.window = window::shift(self.window.clone(), *edit, order.len());
        }
        if self.heights.len() != order.len() {
            // Edits missed (cannot happen, but never render a wrong list).
            self.rebuild(order);
        }
        // Following: the newest rows. Otherwise the same rows as before: the
        // screen cannot be mapped to rows until layout catches up with the
        // new heights, and the resize callback puts the anchor back first.
        let range = if self.following {
            self.window_at_end()
        } else {
            self.window.clone()
        };
        // Whether older rows are wanted is asked once the new rows are laid
        // out (the resize callback): the metrics here are from before them,
        // and a thread just opened has not been scrolled to its end yet.
        self.set_window(range, order);
        after
    }

    /// The reader scrolled (or the list moved the scroll position).
    pub fn on_scroll(&mut self, order: &[RowKey]) -> After {
        self.read_metrics();
        let m = self.metrics;
        let own = self.own_scroll.take() == Some(m.scroll_top);
        if !own {
            self.following = m.at_bottom();
            self.anchor = self.top_row();
        }
        if !window::covers(&self.heights, &self.window, m.viewport(), m.overscan()) {
            self.refresh_with(order, m);
        }
        After {
            near_top: m.near_top(),
            near_bottom: m.near_bottom(),
            ..After::default()
        }
    }

    /// Sizes changed (rows measured, content grown, scroller resized):
    /// record the new heights, then put the scroll position back.
    pub fn on_resize(&mut self, entries: &js_sys::Array) -> After {
        for entry in entries.iter() {
            let Ok(entry) = entry.dyn_into::<ResizeObserverEntry>() else {
                continue;
            };
            let target = entry.target();
            let Some(key) = target.get_attribute("data-key") else {
                continue;
            };
            let Some((key, &i)) = self.window_index.get_key_value(key.as_str()) else {
                continue;
            };
            let h = target.get_bounding_client_rect().height();
            self.heights.set(i, h);
            let old = self.measured.insert(key.clone(), h).unwrap_or(0.0);
            self.measured_sum += h - old;
        }
        self.set_spacers();
        // Clean unless the spacers just changed: then this is the one layout
        // the new spacers need anyway.
        self.read_metrics();
        self.restore();
        if self.anchor.is_none() && !self.following {
            // After a jump no mounted row was on screen to anchor to; the
            // rows mounted for the new place are.
            self.anchor = self.top_row();
        }
        let m = self.metrics;
        let wanted = if self.following {
            self.window_at_end()
        } else {
            window::wanted(&self.heights, m.viewport(), 0.0)
        };
        After {
            near_top: m.near_top(),
            near_bottom: m.near_bottom(),
            refresh: wanted.start < self.window.start || wanted.end > self.window.end,
            ..After::default()
        }
    }

    /// A row's element appeared (its component mounted).
    pub fn mounted(&mut self, key: &RowKey, el: Element) {
        if let Some(dom) = &self.dom {
            dom.observer.observe(&el);
        }
        if self.focus.as_ref() == Some(key) {
            mark(&el, true);
        }
        self.elements.insert(key.clone(), el);
    }

    pub fn unmounted(&mut self, key: &RowKey) {
        if let Some(el) = self.elements.remove(key) {
            if let Some(dom) = &self.dom {
                dom.observer.unobserve(&el);
            }
        }
    }

    /// Jumps to the newest row and follows from there.
    pub fn follow(&mut self, order: &[RowKey]) {
        self.following = true;
        self.anchor = None;
        let range = self.window_at_end();
        self.set_window(range, order);
        self.read_metrics();
        self.restore();
    }

    /// Brings the row `key` on screen, a third of the way down, and marks
    /// it. Mounted rows are placed at once; otherwise the resize callback
    /// places it once its rows are laid out.
    pub fn jump_to(&mut self, key: &RowKey, order: &[RowKey]) {
        let Some(i) = order.iter().position(|k| k == key) else {
            return;
        };
        if let Some(old) = self.focus.take().and_then(|k| self.elements.get(&k)) {
            mark(old, false);
        }
        self.focus = Some(key.clone());
        self.following = false;
        let m = self.metrics;
        let offset = (m.client_height / 3.0).round();
        self.anchor = Some(Anchor {
            key: key.clone(),
            offset,
        });
        let view = Viewport {
            top: self.heights.offset(i) - offset,
            height: m.client_height,
        };
        let range = window::wanted(&self.heights, view, m.overscan());
        self.set_window(range, order);
        if let Some(el) = self.elements.get(key) {
            mark(el, true);
            self.read_metrics();
            self.restore();
        }
    }

    /// Mounts the rows the screen needs, as of the last layout read (on the
    /// animation frame after the observer's callback asked for it; reading
    /// layout again there would force one, as other views changed the DOM).
    pub fn refresh(&mut self, order: &[RowKey]) {
        self.refresh_with(order, self.metrics);
    }

    // ----- the window -----

    fn refresh_with(&mut self, order: &[RowKey], m: Metrics) {
        let range = if self.following {
            self.window_at_end()
        } else {
            window::wanted(&self.heights, m.viewport(), m.overscan())
        };
        self.set_window(range, order);
    }

    fn window_at_end(&self) -> Range<usize> {
        let m = self.metrics;
        let margins = (m.overscan_at_end(), m.keep_at_end());
        window::following(&self.heights, m.client_height, margins, &self.window)
    }

    fn set_window(&mut self, range: Range<usize>, order: &[RowKey]) {
        let range = range.start.min(order.len())..range.end.min(order.len());
        let keys = &order[range.clone()];
        let changed = self
            .window_keys
            .with_untracked(|old| old.as_slice() != keys);
        if changed {
            self.window_keys.set(keys.to_vec());
        }
        if changed || self.index_base != range.start {
            self.window_index = keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), range.start + i))
                .collect();
            self.index_base = range.start;
        }
        self.window = range;
        self.set_spacers();
    }

    fn rebuild(&mut self, order: &[RowKey]) {
        let heights = order.iter().map(|k| self.height_of(k)).collect();
        self.heights = Heights::from_values(heights);
    }

    fn height_of(&self, key: &RowKey) -> f64 {
        match self.measured.get(key) {
            Some(h) => *h,
            None => heights::estimate(self.measured_sum, self.measured.len()),
        }
    }

    fn set_spacers(&mut self) {
        let Some(dom) = &self.dom else { return };
        let above = self.heights.offset(self.window.start);
        let below = self.heights.total() - self.heights.offset(self.window.end);
        // Unchanged heights are not written: no style work on those frames.
        if self.spacers != (above, below) {
            set_height(&dom.top_spacer, above);
            set_height(&dom.bottom_spacer, below);
            self.spacers = (above, below);
        }
    }

    // ----- the scroll position -----

    /// Reads where the scroller stands (only call with layout clean).
    fn read_metrics(&mut self) {
        let Some(dom) = &self.dom else { return };
        let s = &dom.scroller;
        self.metrics = Metrics {
            scroll_top: f64::from(s.scroll_top()),
            client_height: f64::from(s.client_height()),
            scroll_height: f64::from(s.scroll_height()),
            view_top: s.get_bounding_client_rect().top()
                - dom.rows.get_bounding_client_rect().top(),
        };
    }

    /// The first mounted row on screen (its bottom below the top of the
    /// screen, its top above the bottom); none after a jump past the rows.
    fn top_row(&self) -> Option<Anchor> {
        let dom = self.dom.as_ref()?;
        let screen = dom.scroller.get_bounding_client_rect();
        self.window_keys.with_untracked(|keys| {
            keys.iter().find_map(|key| {
                let rect = self.elements.get(key)?.get_bounding_client_rect();
                let on_screen = rect.bottom() > screen.top()
                    && rect.top() < screen.bottom()
                    && rect.height() > 0.0;
                on_screen.then(|| Anchor {
                    key: key.clone(),
                    offset: rect.top() - screen.top(),
                })
            })
        })
    }

    /// Pins to the bottom when following, else puts the anchor row back
    /// where the reader saw it. Needs fresh metrics, and keeps them fresh
    /// (so that they need not be read again, which could force a layout).
    fn restore(&mut self) {
        let m = self.metrics;
        let bottom = (m.scroll_height - m.client_height).max(0.0);
        let target = if self.following {
            bottom
        } else {
            let Some(drift) = self.anchor_drift() else {
                return;
            };
            m.scroll_top + drift
        };
        // Scroll offsets are whole pixels.
        let target = target.round().clamp(0.0, bottom);
        let Some(dom) = &self.dom else { return };
        if target == m.scroll_top {
            // Already there: no write, so layout need not run again.
            return;
        }
        dom.scroller.set_scroll_top(target as i32);
        let now = f64::from(dom.scroller.scroll_top());
        self.own_scroll = Some(now);
        self.metrics.view_top += now - m.scroll_top;
        self.metrics.scroll_top = now;
    }

    /// How far the anchor row moved from where the reader saw it.
    fn anchor_drift(&self) -> Option<f64> {
        let dom = self.dom.as_ref()?;
        let anchor = self.anchor.as_ref()?;
        let el = self.elements.get(&anchor.key)?;
        let top = dom.scroller.get_bounding_client_rect().top();
        Some(el.get_bounding_client_rect().top() - top - anchor.offset)
    }
}

/// Marks the row jumped to (a highlight that fades, and `aria-current`).
fn mark(el: &Element, on: bool) {
    if on {
        let _ = el.set_attribute("aria-current", "true");
        let _ = el.class_list().add_1("row-focus");
    } else {
        let _ = el.remove_attribute("aria-current");
        let _ = el.class_list().remove_1("row-focus");
    }
}

fn set_height(el: &HtmlElement, px: f64) {
    let _ = el.style().set_property("height", &crate::render::px(px));
}

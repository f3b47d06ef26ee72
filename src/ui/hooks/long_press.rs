//! `use_long_press`: a touch or pen resting on an element for a while (in
//! the leptos-use style: options in, a small struct out, the timer cleared
//! on cleanup). A timer that a move past the slop, a lift or a cancel
//! stops; when it fires, the click and the emulated mouse events that
//! follow the lift are swallowed. A mouse never long-presses.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use web_sys::{MouseEvent, PointerEvent, TouchEvent};

pub struct LongPressOptions {
    /// How long the press must rest.
    pub delay: Duration,
    /// How far (px) the pointer may move before the press counts as a scroll.
    pub slop: f64,
}

/// The handlers to put on the element.
#[derive(Clone, Copy)]
pub struct LongPress {
    state: StoredValue<Rc<PressState>, LocalStorage>,
    delay: Duration,
    slop: f64,
}

struct PressState {
    on_press: Box<dyn Fn(f64, f64)>,
    start: Cell<Option<(f64, f64)>>,
    fired: Cell<bool>,
    timer: Cell<Option<TimeoutHandle>>,
}

/// `on_press(x, y)` runs where the press rested, once the delay is over.
pub fn use_long_press(
    options: LongPressOptions,
    on_press: impl Fn(f64, f64) + 'static,
) -> LongPress {
    let press = LongPress {
        state: StoredValue::new_local(Rc::new(PressState {
            on_press: Box::new(on_press),
            start: Cell::new(None),
            fired: Cell::new(false),
            timer: Cell::new(None),
        })),
        delay: options.delay,
        slop: options.slop,
    };
    on_cleanup(move || press.cancel());
    press
}

impl LongPress {
    pub fn pointer_down(self, ev: &PointerEvent) {
        let Some(state) = self.state.try_get_value() else {
            return;
        };
        state.fired.set(false);
        if ev.pointer_type() == "mouse" {
            // A mouse click is never the tail of a long-press.
            return;
        }
        let (x, y) = (f64::from(ev.client_x()), f64::from(ev.client_y()));
        state.start.set(Some((x, y)));
        let timer_state = state.clone();
        let handle = set_timeout_with_handle(
            move || {
                if timer_state.start.take().is_some() {
                    timer_state.fired.set(true);
                    (timer_state.on_press)(x, y);
                }
            },
            self.delay,
        )
        .ok();
        if let Some(old) = state.timer.replace(handle) {
            old.clear();
        }
    }

    /// A move past the slop is a scroll, not a press.
    pub fn pointer_move(self, ev: &PointerEvent) {
        let Some(state) = self.state.try_get_value() else {
            return;
        };
        if let Some((x, y)) = state.start.get() {
            let (dx, dy) = (f64::from(ev.client_x()) - x, f64::from(ev.client_y()) - y);
            if dx.hypot(dy) > self.slop {
                self.cancel();
            }
        }
    }

    /// The pointer lifted or the browser took the gesture.
    pub fn cancel(self) {
        if let Some(state) = self.state.try_get_value() {
            state.start.set(None);
            if let Some(t) = state.timer.take() {
                t.clear();
            }
        }
    }

    /// The click that ends a long-press does nothing.
    pub fn click(self, ev: &MouseEvent) {
        if self.state.try_with_value(|s| s.fired.replace(false)) == Some(true) {
            ev.prevent_default();
        }
    }

    /// Lifting the finger after a long-press is no tap: no emulated
    /// mousedown (which would move the focus) and no click.
    pub fn touch_end(self, ev: &TouchEvent) {
        if self.state.try_with_value(|s| s.fired.get()) == Some(true) {
            ev.prevent_default();
        }
    }
}

//! `use_clock`: a signal of the time that ticks while its owner lives (in
//! the leptos-use style: options in, a small struct out, the interval
//! cleared on cleanup). For labels that count ("reconnecting in N s") or
//! rules that wait ("show the draft after 5 s").

use std::time::Duration;

use leptos::prelude::*;

use crate::ui::browser;

pub struct ClockOptions {
    /// How often `now` moves.
    pub every: Duration,
}

#[derive(Clone, Copy)]
pub struct Clock {
    /// `browser::now_ms()` as of the last tick.
    pub now: ReadSignal<f64>,
}

pub fn use_clock(options: ClockOptions) -> Clock {
    let (now, set_now) = signal(browser::now_ms());
    let tick = set_interval_with_handle(move || set_now.set(browser::now_ms()), options.every).ok();
    on_cleanup(move || {
        if let Some(t) = tick {
            t.clear();
        }
    });
    Clock { now }
}

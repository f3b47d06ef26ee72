//! Dropping files on the thread or the composer: a drop zone shows while
//! files (not text or links) are dragged over, and a drop attaches them.
//! `dragenter` and `dragleave` come for every child crossed, so a count of
//! them says when the drag has left.

use leptos::prelude::*;
use web_sys::DragEvent;

use crate::ui::browser::file_reader;
use crate::ui::wiring::runtime::Runtime;

#[derive(Clone, Copy)]
pub struct FileDrop {
    depth: StoredValue<u32>,
    pub shown: RwSignal<bool>,
}

impl FileDrop {
    pub fn new() -> Self {
        Self {
            depth: StoredValue::new(0),
            shown: RwSignal::new(false),
        }
    }

    pub fn enter(self, ev: DragEvent) {
        if !file_reader::carries_files(ev.data_transfer()) {
            return;
        }
        ev.prevent_default();
        self.depth.update_value(|d| *d += 1);
        self.shown.set(true);
    }

    /// Without `preventDefault` here the browser would not drop.
    pub fn over(self, ev: DragEvent) {
        if !file_reader::carries_files(ev.data_transfer()) {
            return;
        }
        ev.prevent_default();
        if let Some(d) = ev.data_transfer() {
            d.set_drop_effect("copy");
        }
    }

    pub fn leave(self, _: DragEvent) {
        self.depth.update_value(|d| *d = d.saturating_sub(1));
        if self.depth.get_value() == 0 {
            self.shown.set(false);
        }
    }

    pub fn dropped(self, rt: Runtime, ev: DragEvent) {
        self.depth.set_value(0);
        self.shown.set(false);
        let files = file_reader::transfer_files(ev.data_transfer());
        if files.is_empty() {
            return;
        }
        // The browser would open the file in place of the app.
        ev.prevent_default();
        rt.attach(files);
    }
}

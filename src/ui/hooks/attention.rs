//! The browser side of [`crate::attention`]: the page title, and the away
//! marker cleared when the tab is seen again (system notifications are in
//! `browser/notifications.rs`).

use leptos::prelude::*;

use crate::attention::page_title;
use crate::ui::browser::notifications::{document, is_hidden};
use crate::ui::wiring::runtime::Runtime;

/// The app's own title (index.html), after any count and marker.
const BASE_TITLE: &str = "aria";

/// Keeps the page title in step with waiting requests and the away marker,
/// and clears the marker when the user looks at the tab again.
pub fn install(rt: Runtime) {
    Effect::new(move |_| {
        let needs_you: u32 = rt
            .view
            .channels
            .with(|cs| cs.iter().map(|c| c.needs_you).sum());
        let title = page_title(BASE_TITLE, needs_you, rt.marked.get());
        if let Some(doc) = document() {
            if doc.title() != title {
                doc.set_title(&title);
            }
        }
    });
    // `visibilitychange` bubbles from the document to the window. Never
    // removed: the title lives as long as the page.
    let _ = window_event_listener_untyped("visibilitychange", move |_| {
        if !is_hidden() && rt.marked.get_untracked() {
            rt.marked.set(false);
        }
    });
}

//! The browser side of [`crate::attention`]: the page title, whether the
//! tab is hidden, and system notifications (asked for only when the user
//! turns them on in Settings).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Notification, NotificationOptions, NotificationPermission, VisibilityState};

use super::browser;
use super::runtime::Runtime;
use crate::attention::{page_title, react, SystemNotice};
use crate::store::Alert;

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

/// Reacts to an alert of the store: marker and maybe a notification.
pub fn alert(rt: Runtime, alert: &Alert) {
    let channel = match alert {
        Alert::Approval { channel, .. } | Alert::TurnEnded { channel } => channel,
    };
    let thread = rt
        .read(|s| s.channel(channel).map(|c| c.meta.title.clone()))
        .flatten()
        .unwrap_or_default();
    let allowed = rt.settings.with_untracked(|s| s.notifications)
        && Notification::permission() == NotificationPermission::Granted;
    let reaction = react(alert, is_hidden(), allowed, &thread);
    if reaction.mark && !rt.marked.get_untracked() {
        rt.marked.set(true);
    }
    if let Some(notice) = reaction.notify {
        show(&notice);
    }
}

/// Asks the browser for permission (on the user's click in Settings).
pub fn ask_permission() {
    if Notification::permission() == NotificationPermission::Default {
        // The answer is read from `Notification.permission` when needed.
        let _ = Notification::request_permission();
    }
}

fn show(notice: &SystemNotice) {
    let options = NotificationOptions::new();
    options.set_body(&notice.body);
    // One notification per thread: a newer one replaces the older.
    options.set_tag(&notice.channel);
    let Ok(n) = Notification::new_with_options(&notice.title, &options) else {
        return;
    };
    let href = browser::channel_href(Some(&notice.channel));
    let target = n.clone();
    let on_click = wasm_bindgen::closure::Closure::once_into_js(move || {
        if let Some(w) = web_sys::window() {
            let _ = w.focus();
            let _ = w.location().set_hash(&href);
        }
        target.close();
    });
    n.set_onclick(on_click.dyn_ref::<js_sys::Function>());
}

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

fn is_hidden() -> bool {
    document().is_some_and(|d| d.visibility_state() == VisibilityState::Hidden)
}

//! System notifications for the store's alerts (asked for only when the
//! user turns them on in Settings), and whether the tab is hidden.

use wasm_bindgen::JsCast;
use web_sys::{Notification, NotificationOptions, NotificationPermission, VisibilityState};

use crate::attention::{react, SystemNotice};
use crate::store::Alert;
use crate::ui::browser;

/// Reacts to an alert of the store about the thread titled `thread`: maybe
/// a notification (when `enabled` in Settings and permitted). True when the
/// page title should mark that something happened.
pub fn alert(alert: &Alert, thread: &str, enabled: bool) -> bool {
    let allowed = enabled && Notification::permission() == NotificationPermission::Granted;
    let reaction = react(alert, is_hidden(), allowed, thread);
    if let Some(notice) = reaction.notify {
        show(&notice);
    }
    reaction.mark
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

pub fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

pub fn is_hidden() -> bool {
    document().is_some_and(|d| d.visibility_state() == VisibilityState::Hidden)
}

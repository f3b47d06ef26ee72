//! Attention while the tab is hidden: the title's marker, and system
//! notifications once the user turned them on (permission granted through
//! chromedriver); a click on one opens its thread.

use serde_json::{json, Value};

use crate::support::approvals::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// Wraps `window.Notification` so the test sees what the app shows; the
/// real constructor still runs.
const RECORD_NOTIFICATIONS: &str = r#"
window.__notes = [];
const Real = window.Notification;
window.Notification = new Proxy(Real, {
  construct(target, args) {
    const n = Reflect.construct(target, args);
    window.__notes.push({ title: args[0], body: args[1] && args[1].body, n });
    return n;
  },
  get(target, prop) {
    const v = Reflect.get(target, prop);
    return typeof v === 'function' ? v.bind(target) : v;
  },
});
"#;

/// Makes the page report itself hidden or visible, as a switch of tabs
/// would, and fires `visibilitychange`.
async fn set_hidden(b: &Browser, hidden: bool) {
    b.js(
        "window.__hidden = arguments[0];
         if (!window.__visibilityPatched) {
           window.__visibilityPatched = true;
           Object.defineProperty(document, 'visibilityState', { configurable: true,
             get: () => window.__hidden ? 'hidden' : 'visible' });
           Object.defineProperty(document, 'hidden', { configurable: true,
             get: () => window.__hidden });
         }
         document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));",
        vec![json!(hidden)],
    )
    .await;
}

async fn notes(b: &Browser) -> Vec<Value> {
    let v = b
        .js(
            "return window.__notes.map(n => ({ title: n.title, body: n.body }));",
            vec![],
        )
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

async fn wait_notes(b: &Browser, n: usize) -> Vec<Value> {
    let what = format!("{n} notification(s)");
    b.poll(&what, secs(10), || async {
        let got = notes(b).await;
        (got.len() >= n).then_some(got)
    })
    .await
}

#[test]
fn a_hidden_tab_gets_the_marker_and_notifications_once_turned_on() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        b.set_permission("notifications", "granted").await;
        b.js(RECORD_NOTIFICATIONS, vec![]).await;
        // Absent, or saved as off when the app stores its settings' current form.
        let stored = stored_settings(b).await["notifications"].clone();
        assert!(
            stored.is_null() || stored == json!(false),
            "off until the user turns it on, stored {stored}"
        );

        // Visible: neither marker nor notification.
        ask(&fake, request("c2", "seen", &ALL_CHOICES));
        wait_title(b, "(1) needs you · aria").await;
        fake.resolve_approval("seen", "timeout");
        fake.push(json!({"type": "typing", "channel_id": "c2", "on": false}));
        wait_title(b, "aria").await;

        // Hidden, notifications off: the marker only, cleared on return.
        set_hidden(b, true).await;
        ask(&fake, request("c2", "r1", &ALL_CHOICES));
        wait_title(b, "● (1) needs you · aria").await;
        set_hidden(b, false).await;
        wait_title(b, "(1) needs you · aria").await;
        assert!(notes(b).await.is_empty(), "notifications are off");

        // Turned on in Settings: a notification per event while hidden.
        with_settings(b, |b| async move { check(b, "notifications", true).await }).await;
        assert_eq!(stored_settings(b).await["notifications"], json!(true));
        set_hidden(b, true).await;
        ask(&fake, request("c2", "r2", &ALL_CHOICES));
        let got = wait_notes(b, 1).await;
        assert_eq!(got[0]["title"], "Approval needed · Other");
        assert_eq!(got[0]["body"], TITLE);
        wait_title(b, "● (2) needs you · aria").await;

        // Its click opens the thread.
        b.js(
            "window.__notes[0].n.dispatchEvent(new Event('click'));",
            vec![],
        )
        .await;
        b.poll("the notification to open thread c2", secs(10), || async {
            (hash_channel(b).await.as_deref() == Some("c2")).then_some(())
        })
        .await;
        b.wait_for(&card("r2"), secs(10)).await;

        // A turn that ends while hidden notifies too.
        fake.resolve_approval("r1", "timeout");
        fake.resolve_approval("r2", "timeout");
        fake.push(json!({"type": "typing", "channel_id": "c2", "on": false}));
        let got = wait_notes(b, 2).await;
        assert_eq!(got[1]["title"], "The agent finished");
        assert_eq!(got[1]["body"], "Other");
        wait_title(b, "● aria").await;
        set_hidden(b, false).await;
        wait_title(b, "aria").await;
        page.finish().await;
    });
}

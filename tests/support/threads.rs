//! The thread list as a test sees it: where a thread is, its order and
//! title, its menu by mouse, touch and keyboard.

use std::time::Duration;

use fantoccini::actions::{
    Actions, InputSource, MouseActions, PointerAction, TouchActions, MOUSE_BUTTON_LEFT,
    MOUSE_BUTTON_RIGHT,
};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use serde_json::{json, Value};

use super::{secs, Browser};

pub const MENU: &str = "[data-testid=thread-menu][role=menu]";

/// The sidebar entry of a thread.
pub fn item(id: &str) -> String {
    format!(".thread-item[data-channel-id=\"{id}\"]")
}

/// The link of a thread's sidebar entry.
pub fn link(id: &str) -> String {
    format!("{} > a", item(id))
}

/// Thread ids in sidebar order.
pub async fn order(b: &Browser) -> Vec<String> {
    let v = b
        .js(
            "return Array.from(document.querySelectorAll('.thread-item'), e => e.getAttribute('data-channel-id'));",
            vec![],
        )
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

/// Waits until the sidebar lists exactly `ids`, in that order.
pub async fn wait_order(b: &Browser, ids: &[&str]) {
    let what = format!("the sidebar order {ids:?}");
    b.poll(&what, secs(10), || async {
        (order(b).await == ids).then_some(())
    })
    .await;
}

/// The sidebar title of a thread (without the pin mark).
pub async fn title_of(b: &Browser, id: &str) -> Option<String> {
    let v = b
        .js(
            "const t = document.querySelector(arguments[0]);
             if (!t) return null;
             const c = t.cloneNode(true); c.querySelectorAll('.pin').forEach(p => p.remove());
             return c.textContent.trim();",
            vec![json!(format!("{} .thread-title", item(id)))],
        )
        .await;
    v.as_str().map(str::to_string)
}

pub async fn chat_title(b: &Browser) -> String {
    b.text_of("[data-testid=chat-title]").await
}

/// The pointer onto `el` (its center).
fn onto(el: Element) -> PointerAction {
    PointerAction::MoveToElement {
        element: el,
        duration: None,
        x: 0.0,
        y: 0.0,
    }
}

/// Performs WebDriver `actions`, then releases them.
async fn perform(b: &Browser, actions: impl Into<Actions>, what: &str) {
    if let Err(e) = b.client().perform_actions(actions).await {
        b.fail(&format!("{what} failed: {e}")).await;
    }
    let _ = b.client().release_actions().await;
}

/// Right-clicks the thread's link with a real (WebDriver) mouse.
pub async fn right_click(b: &Browser, id: &str) {
    let el = b.wait_for(&link(id), secs(10)).await;
    let mouse = MouseActions::new("mouse".into())
        .then(onto(el))
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_RIGHT,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_RIGHT,
        });
    perform(b, mouse, "right-click").await;
}

/// Touches the thread's link for `hold`; with `drag`, the finger moves
/// 40 px down after 100 ms, which makes it a scroll, not a long-press.
pub async fn touch_hold(b: &Browser, id: &str, hold: Duration, drag: bool) {
    let el = b.wait_for(&link(id), secs(10)).await;
    let mut finger = TouchActions::new("finger".into())
        .then(onto(el))
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        });
    if drag {
        finger = finger
            .pause(Duration::from_millis(100))
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(50)),
                x: 0.0,
                y: 40.0,
            })
            .pause(hold);
    } else {
        finger = finger.pause(hold);
    }
    finger = finger.then(PointerAction::Up {
        button: MOUSE_BUTTON_LEFT,
    });
    perform(b, finger, "touch actions").await;
}

/// Focuses the thread's link and presses Shift+F10.
pub async fn shift_f10(b: &Browser, id: &str) {
    b.js(
        "document.querySelector(arguments[0]).focus();",
        vec![json!(link(id))],
    )
    .await;
    let el = b.wait_for(&link(id), secs(10)).await;
    let shift: char = Key::Shift.into();
    let f10: char = Key::F10.into();
    if let Err(e) = el.send_keys(&format!("{shift}{f10}")).await {
        b.fail(&format!("cannot press Shift+F10: {e}")).await;
    }
}

pub async fn menu_open(b: &Browser) -> bool {
    b.exists(MENU).await
}

/// Opens the thread's menu by right-click and clicks `action`.
pub async fn menu_action(b: &Browser, id: &str, action: &str) {
    right_click(b, id).await;
    b.wait_for(MENU, secs(5)).await;
    b.click(&format!("{MENU} button[data-action={action}]"))
        .await;
}

/// The menu's box and the viewport, for edge checks.
pub async fn menu_box(b: &Browser) -> Value {
    b.js(
        "const m = document.querySelector(arguments[0]);
         if (!m) return null;
         const r = m.getBoundingClientRect();
         return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height,
                  vw: window.innerWidth, vh: window.innerHeight };",
        vec![json!(MENU)],
    )
    .await
}

/// The element that has the focus: its `data-action`, or its tag.
pub async fn focused(b: &Browser) -> String {
    b.js(
        "const e = document.activeElement; return e ? (e.getAttribute('data-action') || e.tagName) : '';",
        vec![],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

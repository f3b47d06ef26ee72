//! The thread menu: right-click, long-press (touch), Shift+F10; a moving
//! finger is no long-press; Escape and outside clicks close it; it stays in
//! the viewport; Rename (inline) and Copy link.

use std::time::Duration;

use fantoccini::key::Key;
use serde_json::json;

use crate::support::threads::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

async fn menu_items(b: &Browser) -> Vec<String> {
    let v = b
        .js(
            "return Array.from(document.querySelectorAll(arguments[0] + ' [role=menuitem]'), e => e.getAttribute('data-action'));",
            vec![json!(MENU)],
        )
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

async fn expect_full_menu(b: &Browser, how: &str) {
    b.wait_for(MENU, secs(5)).await;
    let items = menu_items(b).await;
    if items
        != [
            "rename",
            "pin",
            "read",
            "copy-link",
            "export-md",
            "export-json",
            "delete",
        ]
    {
        b.fail(&format!("the menu opened by {how} has items {items:?}"))
            .await;
    }
    let what = format!("the menu opened by {how} to focus its first item");
    b.poll(&what, secs(5), || async {
        (focused(b).await == "rename").then_some(())
    })
    .await;
}

async fn escape_closes(b: &Browser) {
    let esc: char = Key::Escape.into();
    let el = b
        .wait_for(&format!("{MENU} [data-action=rename]"), secs(5))
        .await;
    if let Err(e) = el.send_keys(&esc.to_string()).await {
        b.fail(&format!("cannot press Escape in the menu: {e}"))
            .await;
    }
    b.wait_gone(MENU, secs(5)).await;
}

#[test]
fn the_menu_opens_by_right_click_long_press_and_keyboard() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        let id = new_thread_answered(b, "menu test thread").await;

        // Right-click; Escape closes.
        right_click(b, &id).await;
        expect_full_menu(b, "right-click").await;
        escape_closes(b).await;

        // Right-click; a click elsewhere closes.
        right_click(b, &id).await;
        expect_full_menu(b, "right-click").await;
        b.click("[data-testid=chat-title]").await;
        b.wait_gone(MENU, secs(5)).await;

        // Keyboard: Shift+F10 on the focused link; arrows move the focus.
        shift_f10(b, &id).await;
        expect_full_menu(b, "Shift+F10").await;
        let down: char = Key::Down.into();
        let el = b
            .wait_for(&format!("{MENU} [data-action=rename]"), secs(5))
            .await;
        let _ = el.send_keys(&down.to_string()).await;
        b.poll("ArrowDown to move the focus to Pin", secs(5), || async {
            (focused(b).await == "pin").then_some(())
        })
        .await;
        escape_closes(b).await;

        // Long-press with a finger.
        touch_hold(b, &id, Duration::from_millis(800), false).await;
        expect_full_menu(b, "a long-press").await;
        escape_closes(b).await;

        // A finger that moves is scrolling: no menu, even after the delay
        // (the hold outlasts the 500 ms long-press).
        touch_hold(b, &id, Duration::from_millis(800), true).await;
        if menu_open(b).await {
            b.fail("a touch that moved 40 px still opened the menu")
                .await;
        }
        // A short tap is a tap: no menu either.
        touch_hold(b, &id, Duration::from_millis(60), false).await;
        if menu_open(b).await {
            b.fail("a short tap opened the menu").await;
        }

        // Opened at the bottom-right corner, it stays inside the viewport.
        b.js(
            "const a = document.querySelector(arguments[0]);
             a.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true,
               clientX: window.innerWidth - 2, clientY: window.innerHeight - 2, button: 2 }));",
            vec![json!(link(&id))],
        )
        .await;
        b.wait_for(MENU, secs(5)).await;
        let m = b
            .poll("the menu to be placed", secs(5), || async {
                let m = menu_box(b).await;
                (m["width"].as_f64().unwrap_or(0.0) > 0.0).then_some(m)
            })
            .await;
        let f = |k: &str| m[k].as_f64().unwrap_or(f64::NAN);
        let inside = f("left") >= 0.0
            && f("top") >= 0.0
            && f("right") <= f("vw")
            && f("bottom") <= f("vh")
            // and still near the corner it was opened at
            && f("right") > f("vw") - 40.0
            && f("bottom") > f("vh") - 40.0;
        if !inside {
            b.fail(&format!(
                "a menu opened at the bottom-right corner should fit in the viewport near it: {m}"
            ))
            .await;
        }
        escape_closes(b).await;
        app.finish().await;
    })
}

#[test]
fn rename_inline_and_copy_link() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        let id = new_thread_answered(b, "rename me later").await;
        // The demo's late auto title first, so it cannot race the rename.
        b.poll("the auto title", secs(10), || async {
            (title_of(b, &id).await.as_deref() == Some("Rename me later")).then_some(())
        })
        .await;

        // Escape cancels.
        menu_action(b, &id, "rename").await;
        let input = b.wait_for(".rename-input", secs(5)).await;
        let state = b
            .js(
                "const i = document.querySelector('.rename-input');
                 return { focused: document.activeElement === i, value: i.value,
                          selected: i.selectionStart === 0 && i.selectionEnd === i.value.length };",
                vec![],
            )
            .await;
        if state != json!({"focused": true, "value": "Rename me later", "selected": true}) {
            b.fail(&format!(
                "the rename field should be focused with the title selected: {state}"
            ))
            .await;
        }
        let esc: char = Key::Escape.into();
        let _ = input.send_keys(&format!("Not this{esc}")).await;
        b.wait_gone(".rename-input", secs(5)).await;
        if title_of(b, &id).await.as_deref() != Some("Rename me later") {
            b.fail("Escape should cancel the rename").await;
        }

        // Enter commits: sidebar and header follow the gateway's rename.
        menu_action(b, &id, "rename").await;
        let input = b.wait_for(".rename-input", secs(5)).await;
        let enter: char = Key::Enter.into();
        // The title is selected: typing replaces it (WebDriver's clear()
        // would blur the field, which commits and closes it).
        let _ = input
            .send_keys(&format!("Renamed by the e2e test{enter}"))
            .await;
        b.wait_gone(".rename-input", secs(5)).await;
        b.poll(
            "the new title in the sidebar and header",
            secs(10),
            || async {
                (title_of(b, &id).await.as_deref() == Some("Renamed by the e2e test")
                    && chat_title(b).await == "Renamed by the e2e test")
                    .then_some(())
            },
        )
        .await;

        // Copy link: the deep link of the thread goes to the clipboard. The
        // page may not read the clipboard back here (permission), so the
        // write is observed where it happens.
        b.js(
            "const clip = navigator.clipboard;
             const write = clip.writeText.bind(clip);
             clip.writeText = t => { window.__copied = t;
               return write(t).then(() => { window.__copyDone = 'ok'; },
                                    e => { window.__copyDone = String(e); throw e; }); };",
            vec![],
        )
        .await;
        menu_action(b, &id, "copy-link").await;
        b.wait_gone(MENU, secs(5)).await;
        let want = format!("{}#/t/{id}", app.gateway.app_url());
        let copied = b
            .poll(
                "the link to be written to the clipboard",
                secs(5),
                || async {
                    let v = b
                        .js(
                            "return [window.__copied || null, window.__copyDone || null];",
                            vec![],
                        )
                        .await;
                    (!v[1].is_null()).then_some(v)
                },
            )
            .await;
        if copied != json!([want, "ok"]) {
            b.fail(&format!(
                "Copy link should write {want:?} to the clipboard successfully, got {copied}"
            ))
            .await;
        }
        app.finish().await;
    })
}

//! Keyboard shortcuts, pressed as real keys (WebDriver key actions on the
//! focused element): the help dialog (`?`, Escape, focus in and back),
//! search, new thread, focus composer, previous/next thread, stopping a
//! running turn with Escape; `?` and `/` typed in the composer are text.

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use serde_json::json;

use crate::support::threads::*;
use crate::support::ui::*;
use crate::support::{run, secs, Browser};

const HELP: &str = "dialog[data-testid=shortcut-help]";

/// Presses `keys` together (modifiers first), then releases them.
async fn press(b: &Browser, keys: &[char]) {
    let mut actions = KeyActions::new("keyboard".into());
    for k in keys {
        actions = actions.then(KeyAction::Down { value: *k });
    }
    for k in keys.iter().rev() {
        actions = actions.then(KeyAction::Up { value: *k });
    }
    if let Err(e) = b.client().perform_actions(actions).await {
        b.fail(&format!("cannot press {keys:?}: {e}")).await;
    }
    let _ = b.client().release_actions().await;
}

/// The focused element's id, or its tag.
async fn focus_id(b: &Browser) -> String {
    b.js(
        "const e = document.activeElement; return e ? (e.id || e.tagName) : '';",
        vec![],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

async fn expect_focus(b: &Browser, id: &str, after: &str) {
    let what = format!("{after} to focus #{id}");
    b.poll(&what, secs(5), || async {
        (focus_id(b).await == id).then_some(())
    })
    .await;
}

async fn blur(b: &Browser) {
    b.js(
        "document.activeElement && document.activeElement.blur();",
        vec![],
    )
    .await;
}

#[test]
fn shortcuts_and_their_help_dialog() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        let first = new_thread_answered(b, "first shortcut thread").await;
        new_thread_pane(b).await;
        let second = new_thread_answered(b, "second shortcut thread").await;
        wait_order(b, &[&second, &first]).await;

        // `?` on a focused thread link opens the dialog with the focus in
        // it; Escape closes it and gives the focus back to the link.
        b.js(
            "const a = document.querySelector(arguments[0]); a.id = 'e2e-link'; a.focus();",
            vec![json!(link(&first))],
        )
        .await;
        press(b, &['?']).await;
        b.wait_for(&format!("{HELP}[open]"), secs(5)).await;
        let inside = b
            .js(
                "const d = document.querySelector(arguments[0]);
                 return d.contains(document.activeElement) && d.matches(':modal')
                   && d.getAttribute('aria-labelledby') === 'shortcut-help-title';",
                vec![json!(HELP)],
            )
            .await;
        if inside != true {
            b.fail("the help should be a modal dialog holding the focus")
                .await;
        }
        let rows = b.texts_of(&format!("{HELP} tr")).await;
        if rows.len() < 6 || !rows.iter().any(|r| r.contains("Alt+N")) {
            b.fail(&format!("the help should list the shortcuts: {rows:?}"))
                .await;
        }
        press(b, &[Key::Escape.into()]).await;
        b.wait_gone(&format!("{HELP}[open]"), secs(5)).await;
        expect_focus(b, "e2e-link", "closing the help").await;
        // The close button closes it too.
        press(b, &['?']).await;
        b.wait_for(&format!("{HELP}[open]"), secs(5)).await;
        b.click("[data-testid=close-shortcut-help]").await;
        b.wait_gone(&format!("{HELP}[open]"), secs(5)).await;
        expect_focus(b, "e2e-link", "the close button").await;
        // `?` at once after Escape, before the `close` event's task (here
        // `requestClose`, Escape's path, and a `?` in the same script),
        // opens it again, and it stays open.
        press(b, &['?']).await;
        b.wait_for(&format!("{HELP}[open]"), secs(5)).await;
        b.js(
            "document.querySelector(arguments[0]).requestClose();
             document.getElementById('e2e-link').dispatchEvent(
               new KeyboardEvent('keydown', {key: '?', bubbles: true, cancelable: true}));",
            vec![json!(HELP)],
        )
        .await;
        b.js(
            "return new Promise(r => setTimeout(() =>
               requestAnimationFrame(() => requestAnimationFrame(r)), 50));",
            vec![],
        )
        .await;
        if !b.exists(&format!("{HELP}[open]")).await {
            b.fail("`?` right after Escape should open the help again")
                .await;
        }
        b.click("[data-testid=close-shortcut-help]").await;
        b.wait_gone(&format!("{HELP}[open]"), secs(5)).await;
        expect_focus(b, "e2e-link", "the close button after reopening").await;
        // Focus moved on before the dialog's `close` event (a task after the
        // close) stays where the reader put it.
        press(b, &['?']).await;
        b.wait_for(&format!("{HELP}[open]"), secs(5)).await;
        b.js(
            "window.addEventListener('close',
               () => document.querySelector(arguments[0]).focus(), {capture: true, once: true});
             document.querySelector('[data-testid=close-shortcut-help]').click();",
            vec![json!(COMPOSER)],
        )
        .await;
        b.wait_gone(&format!("{HELP}[open]"), secs(5)).await;
        b.js(
            "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));",
            vec![],
        )
        .await;
        if focus_id(b).await != "composer-input" {
            b.fail("closing the help took back the focus the reader had moved on")
                .await;
        }

        // Typed in the composer, `?` and `/` are text.
        b.type_into(COMPOSER, "a?b/c").await;
        let value = b
            .js(
                "return document.querySelector(arguments[0]).value;",
                vec![json!(COMPOSER)],
            )
            .await;
        if value != "a?b/c" || b.exists(&format!("{HELP}[open]")).await {
            b.fail(&format!(
                "`?` and `/` in the composer should be typed, got {value} (help open: {})",
                b.exists(&format!("{HELP}[open]")).await
            ))
            .await;
        }
        expect_focus(b, "composer-input", "typing").await;
        press(b, &[Key::Control.into(), 'a']).await;
        press(b, &[Key::Backspace.into()]).await;

        // Search: Ctrl+K (also from the composer) and `/` focus the search field.
        b.js(
            "if (!document.getElementById('search-input')) {
               const i = document.createElement('input'); i.id = 'search-input';
               document.querySelector('[data-testid=sidebar]').prepend(i); }",
            vec![],
        )
        .await;
        press(b, &[Key::Control.into(), 'k']).await;
        expect_focus(b, "search-input", "Ctrl+K in the composer").await;
        blur(b).await;
        press(b, &['/']).await;
        expect_focus(b, "search-input", "`/`").await;
        let typed = b
            .js(
                "return document.getElementById('search-input').value;",
                vec![],
            )
            .await;
        if typed != "" {
            b.fail(&format!(
                "`/` should only focus the search field, it typed {typed}"
            ))
            .await;
        }

        // Ctrl+/ focuses the composer.
        blur(b).await;
        press(b, &[Key::Control.into(), '/']).await;
        expect_focus(b, "composer-input", "Ctrl+/").await;

        // Alt+N: the new-thread pane, composer focused.
        press(b, &[Key::Alt.into(), 'n']).await;
        b.poll("Alt+N to open the new-thread pane", secs(5), || async {
            hash_channel(b).await.is_none().then_some(())
        })
        .await;
        expect_focus(b, "composer-input", "Alt+N").await;

        // Alt+↓ / Alt+↑ walk the sidebar's order, without wrapping.
        for (key, want) in [
            (Key::Down, &second),
            (Key::Down, &first),
            (Key::Down, &first),
            (Key::Up, &second),
        ] {
            press(b, &[Key::Alt.into(), key.into()]).await;
            b.poll(&format!("Alt+{key:?} to open {want}"), secs(5), || async {
                (hash_channel(b).await.as_deref() == Some(want.as_str())).then_some(())
            })
            .await;
        }

        // Two presses in one go walk two steps: the second reads where the
        // first went, before the app has opened it.
        press(b, &[Key::Alt.into(), 'n']).await;
        b.poll("Alt+N to open the new-thread pane", secs(5), || async {
            hash_channel(b).await.is_none().then_some(())
        })
        .await;
        let down: char = Key::Down.into();
        let alt: char = Key::Alt.into();
        let twice = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: alt })
            .then(KeyAction::Down { value: down })
            .then(KeyAction::Up { value: down })
            .then(KeyAction::Down { value: down })
            .then(KeyAction::Up { value: down })
            .then(KeyAction::Up { value: alt });
        if let Err(e) = b.client().perform_actions(twice).await {
            b.fail(&format!("cannot press Alt+Down twice: {e}")).await;
        }
        let _ = b.client().release_actions().await;
        b.poll(
            &format!("Alt+Down twice to open {first}"),
            secs(5),
            || async { (hash_channel(b).await.as_deref() == Some(first.as_str())).then_some(()) },
        )
        .await;

        // Escape in the composer stops the running turn (and is no stop
        // when nothing runs: the text stays).
        b.js(
            "document.querySelector(arguments[0]).focus();",
            vec![json!(COMPOSER)],
        )
        .await;
        // A request for approval keeps the turn running until answered.
        send(b, "/demo approval").await;
        b.wait_for("[data-testid=stop]", secs(20)).await;
        expect_focus(b, "composer-input", "sending").await;
        press(b, &[Key::Escape.into()]).await;
        b.wait_gone("[data-testid=stop]", secs(10)).await;
        b.poll("the request to end as cancelled", secs(10), || async {
            let t = b.try_text_of(".approval-card").await?;
            t.contains("Cancelled").then_some(())
        })
        .await;
        app.finish().await;
    })
}

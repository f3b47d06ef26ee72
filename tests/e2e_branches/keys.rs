//! Steering by keyboard and with an input method: the Enter that confirms
//! a composition (real composition events, `isComposing`, Safari's
//! `keyCode` 229) never sends from the message box or the edit box, and a
//! blur ends a composition; ↑ in an empty message box edits the last
//! message, Alt+R regenerates, the arrows work and keep the focus, the `?`
//! dialog lists both; axe finds nothing on the new controls.

use fantoccini::key::Key;
use serde_json::json;

use super::helpers::*;
use crate::e2e_a11y::axe_states::press;
use crate::e2e_a11y::keyboard::{assert_focus, tab_to, type_keys};
use crate::support::axe::assert_no_axe_violations;
use crate::support::ui::*;
use crate::support::{millis, run, secs, Browser};

const EDIT_INPUT: &str = "[data-testid=edit-input]";

/// Composes `text` in the field `css` as an IME does and confirms it
/// with Enter twice: flagged `isComposing` before `compositionend`
/// (Chromium, Firefox), then with only `keyCode` 229 after it (Safari).
/// Returns whether the page took either Enter (`defaultPrevented`).
const COMPOSE: &str = r#"
const t = document.querySelector(arguments[0]);
t.focus();
t.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true, data: '' }));
t.value = arguments[1];
t.dispatchEvent(new InputEvent('input', { bubbles: true, data: arguments[1], inputType: 'insertCompositionText', isComposing: true }));
const chromium = new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true, isComposing: true });
t.dispatchEvent(chromium);
t.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, data: arguments[1] }));
const safari = new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true });
Object.defineProperty(safari, 'keyCode', { value: 229 });
t.dispatchEvent(safari);
return [chromium.defaultPrevented, safari.defaultPrevented];
"#;

/// A composition left by a blur (no `compositionend`), then an Enter in
/// the field again: a plain Enter, which sends.
const ABANDON_THEN_ENTER: &str = r#"
const t = document.querySelector(arguments[0]);
t.focus();
t.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true, data: '' }));
const during = new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true });
t.dispatchEvent(during);
t.blur();
t.focus();
const after = new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true });
t.dispatchEvent(after);
return [during.defaultPrevented, after.defaultPrevented];
"#;

async fn value_of(b: &Browser, css: &str) -> String {
    b.js(
        "const t = document.querySelector(arguments[0]); return t ? t.value : null;",
        vec![json!(css)],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn the_enter_of_an_input_method_never_sends() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        new_thread_answered(b, "hello").await;

        // The message box keeps the composed text; nothing is sent.
        let taken = b.js(COMPOSE, vec![json!(COMPOSER), json!("你好")]).await;
        assert_eq!(taken, json!([false, false]), "the IME's Enters are its own");
        tokio::time::sleep(millis(600)).await;
        assert_eq!(path(b).await, ["hello"]);
        assert_eq!(value_of(b, COMPOSER).await, "你好");
        // A composition ended by a blur: the next plain Enter sends.
        let taken = b.js(ABANDON_THEN_ENTER, vec![json!(COMPOSER)]).await;
        assert_eq!(taken, json!([false, true]));
        wait_path(b, &["hello", "你好"]).await;
        wait_answer_to(b, "你好").await;

        // The same in the edit box.
        let key = user_row(b, "你好").await;
        b.click(&format!("{} [data-testid=edit-message]", row(&key)))
            .await;
        b.wait_for(EDIT_INPUT, secs(5)).await;
        let taken = b
            .js(COMPOSE, vec![json!(EDIT_INPUT), json!("こんにちは")])
            .await;
        assert_eq!(taken, json!([false, false]));
        tokio::time::sleep(millis(600)).await;
        assert!(b.exists(EDIT_INPUT).await, "the edit box is still open");
        assert_eq!(value_of(b, EDIT_INPUT).await, "こんにちは");
        // Nothing was sent: no other version of the message exists.
        assert_eq!(navigators(b).await, Vec::<String>::new());
        let taken = b.js(ABANDON_THEN_ENTER, vec![json!(EDIT_INPUT)]).await;
        assert_eq!(taken, json!([false, true]));
        wait_path(b, &["hello", "こんにちは"]).await;
        wait_answer_to(b, "こんにちは").await;
        app.finish().await;
    });
}

#[test]
fn edit_regenerate_and_switch_with_the_keyboard_alone() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        new_thread_answered(b, "keyboard question").await;
        tab_to(b, COMPOSER, false).await;

        // ↑ in the empty message box: the last message's edit box, with
        // its text; Escape leaves it and the focus on its Edit button.
        press(b, &[Key::Up.into()]).await;
        assert_focus(b, EDIT_INPUT, "↑ in the empty message box").await;
        assert_eq!(value_of(b, EDIT_INPUT).await, "keyboard question");
        assert_no_axe_violations(b, "an edit box open").await;
        press(b, &[Key::Escape.into()]).await;
        b.wait_gone(EDIT_INPUT, secs(5)).await;
        assert_focus(b, "[data-testid=edit-message]", "edit cancelled").await;

        // ↑ again, write, Enter: the edit is sent, writing goes on below.
        tab_to(b, COMPOSER, false).await;
        press(b, &[Key::Up.into()]).await;
        assert_focus(b, EDIT_INPUT, "↑ again").await;
        press(b, &[Key::End.into()]).await;
        type_keys(b, " again").await;
        press(b, &[Key::Enter.into()]).await;
        wait_path(b, &["keyboard question again"]).await;
        wait_answer_to(b, "keyboard question again").await;
        assert_focus(b, COMPOSER, "edit sent").await;
        wait_navigators(b, &["Message 2 of 2"]).await;

        // Alt+R regenerates the last answer.
        press(b, &[Key::Alt.into(), 'r']).await;
        wait_navigators(b, &["Message 2 of 2", "Answer 2 of 2"]).await;
        wait_answer_to(b, "keyboard question again").await;
        assert_no_axe_violations(b, "navigators on a message and an answer").await;

        // The arrows by keyboard: the focus stays on the navigator of the
        // node switched to.
        let prev =
            "[data-testid=branch-nav][aria-label=\"Answer 2 of 2\"] [data-testid=branch-prev]";
        tab_to(b, prev, true).await;
        press(b, &[Key::Enter.into()]).await;
        wait_navigators(b, &["Message 2 of 2", "Answer 1 of 2"]).await;
        assert_focus(
            b,
            "[data-testid=branch-nav][aria-label=\"Answer 1 of 2\"] [data-testid=branch-next]",
            "after switching the answer",
        )
        .await;
        let prev =
            "[data-testid=branch-nav][aria-label=\"Message 2 of 2\"] [data-testid=branch-prev]";
        tab_to(b, prev, true).await;
        press(b, &[Key::Enter.into()]).await;
        wait_path(b, &["keyboard question"]).await;
        assert_focus(
            b,
            "[data-testid=branch-nav][aria-label=\"Message 1 of 2\"] [data-testid=branch-next]",
            "after switching the message",
        )
        .await;

        // Both shortcuts are in the ? dialog.
        press(b, &['?']).await;
        b.wait_for("[data-testid=shortcut-help][open]", secs(5))
            .await;
        let help = b.text_of("[data-testid=shortcut-help]").await;
        assert!(help.contains("Edit your last message"), "{help}");
        assert!(help.contains("Regenerate the last answer"), "{help}");
        app.finish().await;
    });
}

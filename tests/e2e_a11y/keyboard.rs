//! A whole visit with the keyboard alone (WebDriver key actions, no
//! clicks): open a thread, send, the thread menu, rename, settings, change
//! a setting, close; the focus is where it should be at every step and
//! always shows its ring.

use fantoccini::key::Key;
use serde_json::{json, Value};

use super::axe_states::press;
use crate::support::ui::*;
use crate::support::{run, secs, App, Browser, GatewayOpts};

/// The focused element: a CSS-ish description, whether it matches `css`
/// (`arguments[0]`), shows a focus ring (`:focus-visible` with an outline)
/// and lies inside the app's (possibly inert) box.
const ACTIVE: &str = r#"
const el = document.activeElement;
if (!el || el === document.body) return { desc: 'body', matches: false, ring: false, inApp: false };
const cs = getComputedStyle(el);
const ring = el.matches(':focus-visible') && cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2;
const desc = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
  + (el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : '')
  + (el.getAttribute('data-action') ? `[data-action=${el.getAttribute('data-action')}]` : '')
  + (el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : '')
  + ' "' + (el.textContent || el.value || '').trim().slice(0, 30) + '"';
return { desc, matches: !!arguments[0] && el.matches(arguments[0]), ring, inApp: !!el.closest('.app') };
"#;

async fn active(b: &Browser, css: &str) -> Value {
    b.js(ACTIVE, vec![json!(css)]).await
}

/// Fails unless the focus is on `css`, with a visible ring.
pub(crate) async fn assert_focus(b: &Browser, css: &str, step: &str) {
    let a = b
        .poll(&format!("the focus on {css} ({step})"), secs(5), || async {
            let a = active(b, css).await;
            (a["matches"] == true).then_some(a)
        })
        .await;
    if a["ring"] != true {
        b.fail(&format!(
            "{step}: {} has the focus but no visible focus ring",
            a["desc"]
        ))
        .await;
    }
}

/// Presses Tab (Shift+Tab when `back`) until the focus is on `css`; every
/// element passed on the way must show its focus ring.
pub(crate) async fn tab_to(b: &Browser, css: &str, back: bool) {
    let mut path = Vec::new();
    for _ in 0..40 {
        if back {
            press(b, &[Key::Shift.into(), Key::Tab.into()]).await;
        } else {
            press(b, &[Key::Tab.into()]).await;
        }
        let a = active(b, css).await;
        path.push(a["desc"].as_str().unwrap_or("?").to_string());
        if a["desc"] != "body" && a["ring"] != true {
            b.fail(&format!(
                "no visible focus ring on {} (path: {path:?})",
                a["desc"]
            ))
            .await;
        }
        if a["matches"] == true {
            return;
        }
    }
    b.fail(&format!(
        "Tab never reached {css}; the focus went: {path:?}"
    ))
    .await;
}

/// Types `text` as key presses into whatever has the focus.
pub(crate) async fn type_keys(b: &Browser, text: &str) {
    for c in text.chars() {
        press(b, &[c]).await;
    }
}

const SEED_LINK: &str = ".thread-item[data-channel-id=c_seed] a";

#[test]
fn a_whole_visit_works_with_the_keyboard_alone() {
    run(|| async {
        let app = App::start_with(GatewayOpts {
            extra_args: vec!["--seed-channel".into(), "6".into()],
            ..GatewayOpts::default()
        })
        .await;
        let b = &app.browser;
        connected(b).await;
        b.wait_for(SEED_LINK, secs(10)).await;

        // Open the seeded thread from the list.
        tab_to(b, SEED_LINK, false).await;
        press(b, &[Key::Enter.into()]).await;
        b.poll("the seeded thread open", secs(10), || async {
            (hash_channel(b).await.as_deref() == Some("c_seed")).then_some(())
        })
        .await;
        b.wait_for(".row[data-seq=\"6\"]", secs(10)).await;

        // Write and send; the focus stays in the composer.
        tab_to(b, COMPOSER, false).await;
        let answers = count_answers(b).await;
        type_keys(b, "hello from the keyboard").await;
        press(b, &[Key::Enter.into()]).await;
        wait_answers(b, answers + 1).await;
        assert_focus(b, COMPOSER, "after sending").await;

        // Back to the thread, its menu by Shift+F10, arrows inside it.
        tab_to(b, SEED_LINK, true).await;
        press(b, &[Key::Shift.into(), Key::F10.into()]).await;
        assert_focus(
            b,
            "[data-testid=thread-menu] [data-action=rename]",
            "menu opened",
        )
        .await;
        press(b, &[Key::Down.into()]).await;
        assert_focus(b, "[data-action=pin]", "ArrowDown in the menu").await;
        press(b, &[Key::Up.into()]).await;
        assert_focus(b, "[data-action=rename]", "ArrowUp in the menu").await;
        // Escape gives the focus back to the thread.
        press(b, &[Key::Escape.into()]).await;
        b.wait_gone("[data-testid=thread-menu]", secs(5)).await;
        assert_focus(b, SEED_LINK, "menu closed with Escape").await;

        // Rename: the field takes the focus, Enter commits, the focus
        // returns to the thread.
        press(b, &[Key::Shift.into(), Key::F10.into()]).await;
        assert_focus(b, "[data-action=rename]", "menu opened again").await;
        press(b, &[Key::Enter.into()]).await;
        assert_focus(b, ".rename-input", "rename chosen").await;
        type_keys(b, "Renamed by keys").await;
        press(b, &[Key::Enter.into()]).await;
        b.poll("the new title in the header", secs(10), || async {
            (b.text_of("[data-testid=chat-title]").await == "Renamed by keys").then_some(())
        })
        .await;
        assert_focus(b, SEED_LINK, "rename committed").await;

        // Settings: the focus moves in, stays in, and comes back.
        tab_to(b, "[data-testid=open-settings]", false).await;
        press(b, &[Key::Enter.into()]).await;
        b.wait_for("[data-testid=settings]", secs(5)).await;
        assert_focus(b, "[data-testid=close-settings]", "settings opened").await;
        tab_to(b, "[data-testid=settings] select[name=theme]", false).await;
        // Closed select: the arrows pick the next option (System → Light → Dark).
        press(b, &[Key::Down.into()]).await;
        press(b, &[Key::Down.into()]).await;
        b.poll("the dark theme applied", secs(5), || async {
            let t = b
                .js(
                    "return document.documentElement.getAttribute('data-theme');",
                    vec![],
                )
                .await;
            (t == "dark").then_some(())
        })
        .await;
        assert_eq!(stored_settings(b).await["theme"], "dark");
        // Tab cycles through the dialog only: the page behind is inert.
        for _ in 0..30 {
            press(b, &[Key::Tab.into()]).await;
            let a = active(b, "[data-testid=settings] *").await;
            if a["inApp"] == true {
                b.fail(&format!("Tab left the settings dialog for {}", a["desc"]))
                    .await;
            }
        }
        press(b, &[Key::Escape.into()]).await;
        b.wait_gone("[data-testid=settings]", secs(5)).await;
        assert_focus(
            b,
            "[data-testid=open-settings]",
            "settings closed with Escape",
        )
        .await;
        app.finish().await;
    });
}

//! A phone: 390×844 with touch. The thread list is a
//! drawer, a long-press opens a thread's menu, every control a finger can
//! reach is at least 44×44 px, the composer stays above an on-screen
//! keyboard that overlays the page (the visual viewport shrinks), and
//! nothing sits under the notch or the home bar (safe-area insets).
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_mobile
//! ```

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::threads::touch_hold;
use crate::support::ui::{
    close_settings, demo_app, new_thread_answered, open_drawer, open_settings, COMPOSER,
};
use crate::support::{run, secs, Browser};

const WIDTH: f64 = 390.0;
const HEIGHT: f64 = 844.0;
/// WCAG 2.5.5's size (and Apple's and Google's guidance).
const MIN_TARGET: f64 = 44.0;

/// Turns the browser into a phone: its screen, pixel ratio and touch.
pub(crate) async fn phone(b: &Browser) {
    b.cdp(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 3, "mobile": true}),
    )
    .await;
    b.cdp(
        "Emulation.setTouchEmulationEnabled",
        json!({"enabled": true, "maxTouchPoints": 5}),
    )
    .await;
}

/// Every control a finger can reach right now, with its size, if smaller
/// than 44×44: links, buttons, fields, menu items and anything focusable
/// that is rendered, on screen, not inert (behind a dialog) and not covered
/// (behind the drawer's scrim) at its centre. A field that is visually
/// hidden behind its label is measured by the label, the thing tapped.
/// There is no list of exceptions.
const SMALL_TARGETS: &str = r#"
const min = arguments[0];
const controls = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
  + '[role=button], [role=menuitem], [role=tab], [role=checkbox], [role=switch], '
  + '[tabindex]:not([tabindex="-1"])';
const small = [];
for (const el of document.querySelectorAll(controls)) {
  if (el.closest('[inert]')) continue;
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
  let box = el.getBoundingClientRect();
  if (el.labels && el.labels.length && (box.width < min || box.height < min)) {
    box = el.labels[0].getBoundingClientRect();
  }
  if (box.bottom <= 0 || box.right <= 0 || box.top >= innerHeight || box.left >= innerWidth) continue;
  const x = Math.min(Math.max(box.left + box.width / 2, 0), innerWidth - 1);
  const y = Math.min(Math.max(box.top + box.height / 2, 0), innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  const label = el.labels && el.labels[0];
  if (!hit || !(el.contains(hit) || hit.contains(el) || (label && label.contains(hit)))) continue;
  if (box.width < min - 0.5 || box.height < min - 0.5) {
    const name = el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30) || el.name || '';
    small.push(`${el.tagName.toLowerCase()}.${el.className} "${name}" ${box.width.toFixed(1)}x${box.height.toFixed(1)}`);
  }
}
return small;
"#;

/// The controls under 44×44 px in `state`, each prefixed by the state.
async fn small_targets(b: &Browser, state: &str) -> Vec<String> {
    let small = b.js(SMALL_TARGETS, vec![json!(MIN_TARGET)]).await;
    let small: Vec<String> = serde_json::from_value(small).unwrap_or_default();
    small.into_iter().map(|s| format!("{state}: {s}")).collect()
}

/// The composer form's box: (top, bottom).
async fn composer_box(b: &Browser) -> (f64, f64) {
    let v: Value = b
        .js(
            "const r = document.querySelector('form[data-testid=composer]').getBoundingClientRect(); return [r.top, r.bottom];",
            vec![],
        )
        .await;
    (
        v[0].as_f64().unwrap_or(f64::NAN),
        v[1].as_f64().unwrap_or(f64::NAN),
    )
}

/// What a keyboard that overlays the page does: the visual viewport gets
/// `height` px tall (or its own size again with `None`) and says so.
async fn keyboard(b: &Browser, height: Option<f64>) {
    b.js(
        "const h = arguments[0];
         if (h === null) delete visualViewport.height;
         else Object.defineProperty(visualViewport, 'height', {configurable: true, get: () => h});
         visualViewport.dispatchEvent(new Event('resize'));",
        vec![json!(height)],
    )
    .await;
}

#[test]
fn drawer_long_press_and_every_tap_target_on_a_phone() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        phone(b).await;
        let channel = new_thread_answered(b, "hello from a phone").await;
        let mut small = small_targets(b, "a thread with an answer").await;
        open_settings(b).await;
        small.extend(small_targets(b, "settings open").await);
        close_settings(b).await;

        open_drawer(b).await;
        small.extend(small_targets(b, "drawer open").await);

        touch_hold(b, &channel, Duration::from_millis(900), false).await;
        b.wait_for("[data-testid=thread-menu]", secs(5)).await;
        small.extend(small_targets(b, "thread menu open").await);
        if !small.is_empty() {
            b.fail(&format!(
                "controls smaller than {MIN_TARGET}x{MIN_TARGET} px:\n  {}",
                small.join("\n  ")
            ))
            .await;
        }
        app.finish().await;
    });
}

#[test]
fn the_composer_stays_above_the_keyboard_and_out_of_the_safe_areas() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        phone(b).await;
        b.click(COMPOSER).await;
        let (_, bottom) = composer_box(b).await;
        assert!(
            bottom <= HEIGHT + 0.5,
            "the composer is on screen: {bottom}"
        );

        // The keyboard takes 336 px: the composer moves up above it, and
        // keeps the focus.
        let above = HEIGHT - 336.0;
        keyboard(b, Some(above)).await;
        b.poll("the composer above the keyboard", secs(5), || async {
            let (top, bottom) = composer_box(b).await;
            (top >= 0.0 && bottom <= above + 0.5).then_some(())
        })
        .await;
        let focused = b
            .js(
                "return document.activeElement === document.querySelector(arguments[0]);",
                vec![json!(COMPOSER)],
            )
            .await;
        assert_eq!(focused, json!(true), "typing goes on in the composer");

        keyboard(b, None).await;
        b.poll("the composer back at the bottom", secs(5), || async {
            let (_, bottom) = composer_box(b).await;
            (bottom > above + 100.0).then_some(())
        })
        .await;

        // A notch above and a home bar below: the header and the composer
        // stay clear of them.
        b.cdp(
            "Emulation.setSafeAreaInsetsOverride",
            json!({"insets": {"top": 47, "bottom": 34, "left": 0, "right": 0}}),
        )
        .await;
        b.poll("content clear of the safe areas", secs(5), || async {
            let v = b
                .js(
                    "return [document.querySelector('.chat-head').getBoundingClientRect().top,
                             document.querySelector('form[data-testid=composer]').getBoundingClientRect().bottom];",
                    vec![],
                )
                .await;
            let (top, bottom) = (v[0].as_f64()?, v[1].as_f64()?);
            (top >= 47.0 && bottom <= HEIGHT - 34.0 + 0.5).then_some(())
        })
        .await;
        app.finish().await;
    });
}

//! `prefers-reduced-motion: reduce` stops every animation and transition;
//! text at 200 % keeps the chat column within the window and the composer
//! usable.

use serde_json::json;

use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// Running animations, and elements (or their ::before/::after) whose
/// computed animation or transition would move.
const MOTION: &str = r#"
const moving = [];
for (const el of document.querySelectorAll('*')) {
  for (const pseudo of [null, '::before', '::after']) {
    const cs = getComputedStyle(el, pseudo);
    const anim = cs.animationName !== 'none' && cs.animationDuration.split(',').some(d => parseFloat(d) > 0);
    const trans = cs.transitionDuration.split(',').some(d => parseFloat(d) > 0);
    if (anim || trans) moving.push((el.className || el.tagName) + (pseudo || '') + ': ' + cs.animationName + ' ' + cs.transitionDuration);
  }
}
return { running: document.getAnimations().length, moving };
"#;

async fn motion_while_busy(b: &Browser) -> serde_json::Value {
    b.poll("the agent busy (spinner, dots)", secs(30), || async {
        b.exists("[data-testid=stop]").await.then_some(())
    })
    .await;
    b.js(MOTION, vec![]).await
}

#[test]
fn reduced_motion_stops_every_animation_and_transition() {
    run(|| async {
        let app = demo_app(150).await;
        let b = &app.browser;
        // Without the preference the busy page moves (the check can fail).
        send_new_thread(b, "/demo tools").await;
        let normal = motion_while_busy(b).await;
        assert!(normal["running"].as_u64() > Some(0), "{normal}");
        wait_answers(b, 1).await;

        b.cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}),
        )
        .await;
        let reduced = b
            .js(
                "return matchMedia('(prefers-reduced-motion: reduce)').matches;",
                vec![],
            )
            .await;
        assert_eq!(reduced, true);
        new_thread_pane(b).await;
        send_new_thread(b, "/demo tools").await;
        let still = motion_while_busy(b).await;
        assert_eq!(still["running"], 0, "{still}");
        assert_eq!(still["moving"], json!([]), "{still}");
        wait_answers(b, 1).await;
        app.finish().await;
    });
}

/// Overflow facts at the current text size.
const LAYOUT: &str = r#"
const doc = document.scrollingElement;
const chat = document.querySelector('main.chat');
const inner = document.querySelector('.timeline-inner');
const ta = document.querySelector('form[data-testid=composer] textarea').getBoundingClientRect();
const send = document.querySelector('[data-testid=send]').getBoundingClientRect();
return {
  rootPx: parseFloat(getComputedStyle(document.documentElement).fontSize),
  pageOverflow: doc.scrollWidth - doc.clientWidth,
  chatOverflow: chat.scrollWidth - chat.clientWidth,
  columnOverflow: inner.scrollWidth - inner.clientWidth,
  composerWidth: ta.width,
  sendInside: send.right <= innerWidth && send.bottom <= innerHeight && send.width > 0,
  width: innerWidth,
};
"#;

#[test]
fn text_at_200_percent_keeps_the_chat_column_and_composer_usable() {
    run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        new_thread_answered(b, "/demo all").await;
        // The reader's browser set to twice the default text size.
        b.js("document.documentElement.style.fontSize = '200%';", vec![])
            .await;
        let l = b.js(LAYOUT, vec![]).await;
        assert_eq!(l["width"], 1280, "{l}");
        assert_eq!(l["rootPx"], 32.0, "{l}");
        for key in ["pageOverflow", "chatOverflow", "columnOverflow"] {
            assert!(l[key].as_f64() <= Some(0.0), "{key} at 200 %: {l}");
        }
        assert!(l["composerWidth"].as_f64() >= Some(300.0), "{l}");
        assert_eq!(l["sendInside"], true, "{l}");
        // And it still sends.
        send(b, "still works at 200%").await;
        wait_answers(b, 2).await;
        app.finish().await;
    });
}

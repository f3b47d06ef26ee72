//! Settings apply live, survive a reload, and a corrupt stored value falls
//! back to defaults; plus the README screenshot of a `/demo all` turn.

use serde_json::{json, Value};

use crate::support::ui::*;
use crate::support::{paths, run, secs, App, Browser, GatewayOpts};

/// Every control of the settings panel and its current value.
const PANEL_VALUES: &str = r#"
const p = document.querySelector('[data-testid=settings]');
const v = n => { const e = p.querySelector(`[name=${n}]`); return e ? (e.type === 'checkbox' ? e.checked : e.value) : null; };
return {
  streaming: v('streaming'), tool_detail: v('tool_detail'), theme: v('theme'),
  reasoning_auto_collapse: v('reasoning_auto_collapse'), progress_label: v('progress_label'),
  progress_label_text: v('progress_label_text'), progress_detail: v('progress_detail'),
  progress_max_lines: v('progress_max_lines'), progress_max_line_chars: v('progress_max_line_chars'),
  progress_tool_lines: v('progress_tool_lines'),
};
"#;

async fn panel_values(b: &Browser) -> Value {
    open_settings(b).await;
    let v = b.js(PANEL_VALUES, vec![]).await;
    close_settings(b).await;
    v
}

fn defaults() -> Value {
    json!({
        "streaming": "partial", "tool_detail": "truncated", "theme": "system",
        "reasoning_auto_collapse": true, "progress_label": "auto", "progress_label_text": "Working",
        "progress_detail": "explain", "progress_max_lines": "4", "progress_max_line_chars": "120",
        "progress_tool_lines": true,
    })
}

/// The root's `data-theme` and the page background it results in.
async fn theme_attr(b: &Browser) -> Value {
    b.js(
        "return [document.documentElement.getAttribute('data-theme'), \
                 getComputedStyle(document.body).backgroundColor];",
        vec![],
    )
    .await
}

/// Every mounted tool card is open (the timeline mounts only the rows near
/// the screen, so not necessarily all five).
async fn all_cards_open(b: &Browser) -> bool {
    b.count(".tool-card.open").await > 0 && b.count(".tool-card:not(.open)").await == 0
}

#[test]
fn settings_apply_live_and_survive_a_reload() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        if panel_values(b).await != defaults() {
            b.fail("a fresh profile should show the default settings")
                .await;
        }
        let thread = new_thread_answered(b, "/demo tools").await;
        b.js("window.__noReload = 'still here';", vec![]).await;

        // Each theme applies at once (headless Chromium's system scheme is
        // light).
        const LIGHT: &str = "rgb(255, 255, 255)";
        const DARK: &str = "rgb(21, 23, 28)";
        open_settings(b).await;
        for (value, attr) in [
            ("light", json!(["light", LIGHT])),
            ("dark", json!(["dark", DARK])),
            ("system", json!([null, LIGHT])),
        ] {
            choose(b, "theme", value).await;
            let what = format!("theme {value} to give [data-theme, background] {attr}");
            b.poll(&what, secs(5), || async {
                (theme_attr(b).await == attr).then_some(())
            })
            .await;
        }
        // Tool detail applies at once to the cards already shown.
        choose(b, "tool_detail", "everything").await;
        b.poll("the cards to open live", secs(5), || async {
            all_cards_open(b).await.then_some(())
        })
        .await;
        // The rest, to check they are all kept.
        choose(b, "streaming", "block").await;
        check(b, "reasoning_auto_collapse", false).await;
        choose(b, "progress_label", "fixed").await;
        fill(b, "progress_label_text", "Busy bee").await;
        choose(b, "progress_detail", "raw").await;
        fill(b, "progress_max_lines", "6").await;
        fill(b, "progress_max_line_chars", "80").await;
        check(b, "progress_tool_lines", false).await;
        choose(b, "theme", "dark").await;
        close_settings(b).await;
        if b.js("return window.__noReload;", vec![]).await != "still here" {
            b.fail("changing settings reloaded the page").await;
        }
        let wanted = json!({
            "streaming": "block", "tool_detail": "everything", "theme": "dark",
            "reasoning_auto_collapse": false, "progress_label": "fixed", "progress_label_text": "Busy bee",
            "progress_detail": "raw", "progress_max_lines": "6", "progress_max_line_chars": "80",
            "progress_tool_lines": false,
        });
        let s = stored_settings(b).await;
        let p = &s["progress"];
        let stored_ok = s["streaming"] == "block"
            && s["tool_detail"] == "everything"
            && s["theme"] == "dark"
            && s["reasoning_auto_collapse"] == false
            && p["label"] == "fixed"
            && p["label_text"] == "Busy bee"
            && p["detail"] == "raw"
            && p["max_lines"] == 6
            && p["max_line_chars"] == 80
            && p["tool_lines"] == false;
        if !stored_ok {
            b.fail(&format!(
                "localStorage aria.settings does not hold the choices: {s}"
            ))
            .await;
        }

        // After a reload: the same choices, in effect.
        reload_connected(b).await;
        if b.js("return window.__noReload || null;", vec![]).await != Value::Null {
            b.fail("the page did not reload").await;
        }
        if hash_channel(b).await.as_deref() != Some(thread.as_str()) {
            b.fail("the reload left the thread").await;
        }
        b.poll("the thread's cards to load open", secs(15), || async {
            all_cards_open(b).await.then_some(())
        })
        .await;
        if theme_attr(b).await[0] != "dark" {
            b.fail("the dark theme did not survive the reload").await;
        }
        let shown = panel_values(b).await;
        if shown != wanted {
            b.fail(&format!(
                "after a reload the panel shows {shown}, expected {wanted}"
            ))
            .await;
        }
        app.finish().await;
    })
}

#[test]
fn corrupt_stored_settings_fall_back_to_defaults() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;

        // Not JSON at all: every default, and a working page.
        b.js(
            "localStorage.setItem('aria.settings', '{\"streaming\": \"off\", this is not json');",
            vec![],
        )
        .await;
        reload_connected(b).await;
        if theme_attr(b).await[0] != Value::Null {
            b.fail("corrupt settings: the theme should follow the system")
                .await;
        }
        let shown = panel_values(b).await;
        if shown != defaults() {
            b.fail(&format!(
                "corrupt settings should give the defaults, the panel shows {shown}"
            ))
            .await;
        }
        new_thread_answered(b, "still working?").await;

        // Wrong types in some fields: those fall back, the others are kept.
        b.js(
            "localStorage.setItem('aria.settings', JSON.stringify({streaming: 'block', tool_detail: 42, theme: 'plaid',
               reasoning_auto_collapse: 'yes', progress: {max_lines: 'many', label: 'hidden', max_line_chars: 9999}, pins: 'x'}));",
            vec![],
        )
        .await;
        reload_connected(b).await;
        let mut want = defaults();
        want["streaming"] = json!("block");
        want["progress_label"] = json!("hidden");
        want["progress_max_line_chars"] = json!("400");
        let shown = panel_values(b).await;
        if shown != want {
            b.fail(&format!(
                "partly corrupt settings: expected {want}, the panel shows {shown}"
            ))
            .await;
        }
        b.wait_for(".msg-assistant .msg-footer", secs(15)).await;
        app.finish().await;
    })
}

/// Sets the viewport (not the window) to `w`×`h`.
async fn set_viewport(b: &Browser, w: u32, h: u32) {
    for _ in 0..3 {
        let inner = b
            .js("return [window.innerWidth, window.innerHeight];", vec![])
            .await;
        let (iw, ih) = (
            inner[0].as_u64().unwrap_or(0) as i64,
            inner[1].as_u64().unwrap_or(0) as i64,
        );
        if iw == i64::from(w) && ih == i64::from(h) {
            return;
        }
        let (ow, oh) = b.client().get_window_size().await.unwrap_or((1280, 900));
        let nw = (ow as i64 + i64::from(w) - iw).max(200) as u32;
        let nh = (oh as i64 + i64::from(h) - ih).max(200) as u32;
        if let Err(e) = b.client().set_window_size(nw, nh).await {
            b.fail(&format!("cannot resize the window: {e}")).await;
        }
    }
    let inner = b
        .js("return [window.innerWidth, window.innerHeight];", vec![])
        .await;
    if inner != json!([w, h]) {
        b.fail(&format!("the viewport is {inner}, wanted {w}×{h}"))
            .await;
    }
}

#[test]
fn screenshot_of_a_demo_all_turn() {
    run(|| async {
        let app = App::start_with(GatewayOpts {
            // The default pace: realistic durations on the cards.
            demo_delay_ms: 40,
            ..GatewayOpts::default()
        })
        .await;
        let b = &app.browser;
        set_viewport(b, 1280, 860).await;
        connected(b).await;
        choose_setting(b, "theme", "light").await;
        new_thread_answered(b, "/demo all").await;
        b.wait_gone(".msg-user.pending", secs(5)).await;

        // Scroll so the turn's work and the reasoning are on screen: the first
        // message at the top of the timeline.
        let fits = b
            .js(
                "const tl = document.querySelector('[data-testid=timeline]');
                 const first = document.querySelector('.msg-user').closest('.row');
                 tl.scrollTop += first.getBoundingClientRect().top - tl.getBoundingClientRect().top - 12;
                 return true;",
                vec![],
            )
            .await;
        assert_eq!(fits, true);
        let seen = b
            .poll("the reasoning, tool cards and commentary on screen", secs(5), || async {
                let v = b
                    .js(
                        "const tl = document.querySelector('[data-testid=timeline]').getBoundingClientRect();
                         const inside = e => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= tl.top - 1 && r.bottom <= tl.bottom + 1; };
                         const all = s => Array.from(document.querySelectorAll(s));
                         return { cards: all('.tool-card').filter(inside).length, commentary: all('.msg-commentary').filter(inside).length,
                                  reasoning: all('.reasoning').filter(inside).length };",
                        vec![],
                    )
                    .await;
                (v["cards"] == 5 && v["commentary"] == 4 && v["reasoning"] == 1).then_some(v)
            })
            .await;
        let _ = seen;
        // Let the scroll and fonts settle into one painted frame.
        b.js(
            "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))));",
            vec![],
        )
        .await;
        // docs/screenshot.png only on request, so test runs leave the
        // tracked file alone.
        let path = if std::env::var_os("ARIA_UPDATE_SCREENSHOT").is_some() {
            paths::repo_root().join("docs").join("screenshot.png")
        } else {
            let dir = paths::artifacts_dir();
            let _ = std::fs::create_dir_all(&dir);
            dir.join("demo-all.png")
        };
        b.screenshot(&path).await;
        let png = std::fs::read(&path).unwrap_or_default();
        // PNG header and IHDR width/height.
        let size = (png.len() > 24 && &png[1..4] == b"PNG").then(|| {
            (
                u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
                u32::from_be_bytes([png[20], png[21], png[22], png[23]]),
            )
        });
        if size != Some((1280, 860)) {
            b.fail(&format!(
                "{} should be a 1280×860 PNG, it is {size:?}",
                path.display()
            ))
            .await;
        }
        app.finish().await;
    })
}

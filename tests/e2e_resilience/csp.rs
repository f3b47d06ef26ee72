//! The Content-Security-Policy of the built client: strict (no inline
//! script or style, `wasm-unsafe-eval` only, nothing but the gateway to
//! connect to), in force, and the app runs a full turn under it without a
//! single violation (recorded by boot.js from the first script on).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::support::timeline::wait_turn_over;
use crate::support::ui::{send, set_select, CONNECTED};
use crate::support::{paths, secs, App, Browser, GatewayOpts};

fn csp_of(index_html: &str) -> String {
    let at = index_html
        .find("http-equiv=\"Content-Security-Policy\"")
        .expect("dist/index.html has a Content-Security-Policy meta tag");
    let rest = &index_html[at..];
    let start = rest.find("content=\"").expect("the CSP meta has content") + 9;
    let end = rest[start..].find('"').unwrap();
    rest[start..start + end].to_string()
}

fn directives(csp: &str) -> BTreeMap<String, Vec<String>> {
    csp.split(';')
        .filter_map(|d| {
            let mut words = d.split_whitespace().map(str::to_string);
            let name = words.next()?;
            Some((name, words.collect()))
        })
        .collect()
}

/// The policy in dist/index.html says what the issue asks, and the page
/// has nothing inline that it would need to allow.
#[test]
fn the_built_policy_is_strict() {
    let index = std::fs::read_to_string(paths::dist_dir().join("index.html")).unwrap();
    let csp = csp_of(&index);
    let d = directives(&csp);
    let get = |k: &str| d.get(k).cloned().unwrap_or_default();
    assert_eq!(get("default-src"), ["'self'"], "{csp}");
    assert_eq!(get("script-src"), ["'self'", "'wasm-unsafe-eval'"], "{csp}");
    assert_eq!(get("style-src"), ["'self'"], "{csp}");
    assert_eq!(get("object-src"), ["'none'"], "{csp}");
    assert_eq!(get("base-uri"), ["'none'"], "{csp}");
    // The only frame is the app's own diagram renderer.
    assert_eq!(get("frame-src"), ["'self'"], "{csp}");
    assert_eq!(get("form-action"), ["'none'"], "{csp}");
    let connect = get("connect-src");
    assert!(
        connect.contains(&"'self'".to_string())
            && connect.iter().any(|s| s == "ws:" || s.starts_with("ws://"))
            && connect
                .iter()
                .any(|s| s == "wss:" || s.starts_with("wss://")),
        "connect-src must allow the gateway's WebSocket: {csp}"
    );
    assert!(
        !connect
            .iter()
            .any(|s| s == "*" || s == "http:" || s == "https:"),
        "connect-src allows arbitrary HTTP requests: {csp}"
    );
    for word in [
        "'unsafe-inline'",
        "'unsafe-eval'",
        "'unsafe-hashes'",
        "data:",
        "blob:",
        "*",
    ] {
        for (name, sources) in &d {
            // Images may be data: (markdown's inline images) and blob:
            // (diagrams, drawn in a sandboxed frame: `ui/browser/diagrams.rs`).
            let allowed_img = name == "img-src" && (word == "data:" || word == "blob:");
            assert!(
                allowed_img || !sources.iter().any(|s| s == word),
                "{name} allows {word}: {csp}"
            );
        }
    }
    // Nothing inline the policy would have to allow.
    let lower = index.to_lowercase();
    assert!(!lower.contains("<script>") && !lower.contains("<script type=\"module\">"));
    for inline in ["<style", " style=", " onload=", " onerror=", "javascript:"] {
        assert!(
            !lower.contains(inline),
            "dist/index.html has inline {inline:?}"
        );
    }
}

/// The policy is in force from the start, and full turns (reasoning,
/// tools, commentary, long streamed markdown with aligned tables, expanding
/// cards, settings and theme changes) run without one violation.
#[tokio::test]
async fn a_full_turn_runs_under_the_policy_without_a_violation() {
    let app = App::start_with(GatewayOpts {
        demo_delay_ms: 5,
        ..GatewayOpts::default()
    })
    .await;
    let b = &app.browser;
    b.wait_for(CONNECTED, secs(20)).await;
    let recorder = b.js("return window.__ariaCspViolations;", vec![]).await;
    assert_eq!(
        recorder,
        json!([]),
        "boot.js should record violations from the start, and there should be none at boot"
    );

    // The policy is live: inline script and inline style are refused.
    b.js(
        "const s = document.createElement('script'); s.textContent = 'window.__inlineRan = true'; \
         document.head.append(s); \
         const d = document.createElement('div'); d.innerHTML = '<p style=\"color:red\">x</p>'; \
         document.body.append(d);",
        vec![],
    )
    .await;
    let seen = b
        .poll("the browser to report both violations", secs(5), || async {
            let v = b.js("return window.__ariaCspViolations;", vec![]).await;
            let all: Vec<String> = serde_json::from_value(v).unwrap_or_default();
            let both = all.iter().any(|x| x.starts_with("script-src"))
                && all.iter().any(|x| x.starts_with("style-src"));
            both.then_some(all)
        })
        .await;
    assert_eq!(
        b.js("return window.__inlineRan === true;", vec![]).await,
        Value::Bool(false),
        "an inline script ran: {seen:?}"
    );
    b.js("window.__ariaCspViolations.length = 0;", vec![]).await;
    let logged_before = b.console_logs().await.len();

    // Full turns, and a tour of the UI around them. Long markdown first:
    // aligned tables, code in many languages, nested lists.
    for (scenario, then) in [
        ("/demo long", None),
        ("/demo all", Some(".tool-card .tool-line")),
        ("/demo inline-reasoning", Some(".reasoning-toggle")),
    ] {
        let before = newest_answer_seq(b).await;
        send(b, scenario).await;
        b.poll(&format!("the answer to {scenario}"), secs(60), || async {
            (newest_answer_seq(b).await > before).then_some(())
        })
        .await;
        wait_turn_over(b, secs(30)).await;
        if let Some(css) = then {
            b.click(css).await;
        }
    }
    b.click("[data-testid=open-settings]").await;
    for theme in ["dark", "light", "system"] {
        set_select(b, "theme", theme).await;
    }
    b.click("[data-testid=close-settings]").await;
    tokio::time::sleep(secs(1)).await;

    let violations = b.js("return window.__ariaCspViolations;", vec![]).await;
    let console: Vec<String> = b.console_logs().await[logged_before..]
        .iter()
        .filter(|e| e.message.contains("Content Security Policy"))
        .map(|e| e.to_string())
        .collect();
    if violations != json!([]) || !console.is_empty() {
        b.fail(&format!(
            "CSP violations during a turn: {violations}\nconsole: {console:?}"
        ))
        .await;
    }
    app.close().await;
}

/// The highest `seq` of a finished answer on screen (0 if none).
async fn newest_answer_seq(b: &Browser) -> u64 {
    b.js(
        "return Math.max(0, ...Array.from(document.querySelectorAll('.row[data-seq]'))\
           .filter(r => r.querySelector('.msg-assistant .msg-footer .model'))\
           .map(r => Number(r.dataset.seq)));",
        vec![],
    )
    .await
    .as_u64()
    .unwrap_or(0)
}

//! axe-core (npm `axe-core@4`, installed into `tools/axe/` by
//! `scripts/setup`) run in the page: every violation of its default rule
//! set (WCAG 2.x A/AA and best practices), of any impact, fails the test.
//!
//! The script goes in through WebDriver's execute, which the page's CSP
//! does not govern (it allows no inline script): the helper checks that
//! `axe` really arrived before trusting an empty result.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{paths, Browser};

/// `tools/axe/node_modules/axe-core/axe.min.js` of the checkout.
fn axe_source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let path = paths::repo_root().join("tools/axe/node_modules/axe-core/axe.min.js");
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e}; run scripts/setup (it installs axe-core)",
                path.display()
            )
        })
    })
}

/// Waits for finite animations and transitions (the drawer sliding in), so
/// colours are read at rest, then runs axe on the whole document.
const RUN: &str = r#"
const finite = document.getAnimations()
  .filter(a => a.effect && a.effect.getComputedTiming().iterations !== Infinity);
await Promise.all(finite.map(a => a.finished.catch(() => {})));
await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
const r = await axe.run(document, { resultTypes: ['violations'] });
return r.violations.map(v => ({
  id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
  nodes: v.nodes.map(n => ({ target: n.target.join(' '), html: n.html, why: n.failureSummary })),
}));
"#;

/// Runs axe in the light and then the dark theme (set as the Theme setting
/// sets it, on `<html data-theme>`), puts the page's theme back, and fails
/// listing rule id, impact, help and each node's target and HTML.
pub async fn assert_no_axe_violations(b: &Browser, state: &str) {
    let injected = b
        .js(
            &format!(
                "{}\n;return typeof axe === 'object' && typeof axe.run === 'function';",
                axe_source()
            ),
            vec![],
        )
        .await;
    if injected != json!(true) {
        b.fail(&format!("{state}: axe-core did not load into the page"))
            .await;
    }
    let before = b
        .js(
            "return document.documentElement.getAttribute('data-theme');",
            vec![],
        )
        .await;
    let mut report = String::new();
    for theme in ["light", "dark"] {
        b.js(
            "document.documentElement.setAttribute('data-theme', arguments[0]);",
            vec![json!(theme)],
        )
        .await;
        let found = b
            .js(&format!("return (async () => {{ {RUN} }})();"), vec![])
            .await;
        report.push_str(&describe(&found, &format!("{state}, {theme} theme")));
    }
    b.js(
        "const t = arguments[0]; const h = document.documentElement; \
         if (t === null) h.removeAttribute('data-theme'); else h.setAttribute('data-theme', t);",
        vec![before],
    )
    .await;
    if !report.is_empty() {
        b.fail(&format!(
            "axe-core found accessibility violations:\n{report}"
        ))
        .await;
    }
}

/// One paragraph per violated rule; empty when there is none.
fn describe(violations: &Value, state: &str) -> String {
    let Some(list) = violations.as_array().filter(|l| !l.is_empty()) else {
        return String::new();
    };
    let mut out = String::new();
    for v in list {
        out.push_str(&format!(
            "[{state}] {} ({}): {} <{}>\n",
            v["id"].as_str().unwrap_or("?"),
            v["impact"].as_str().unwrap_or("?"),
            v["help"].as_str().unwrap_or(""),
            v["url"].as_str().unwrap_or(""),
        ));
        for n in v["nodes"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "    at {}\n      {}\n      {}\n",
                n["target"].as_str().unwrap_or("?"),
                n["html"].as_str().unwrap_or(""),
                n["why"].as_str().unwrap_or("").replace('\n', "\n      "),
            ));
        }
    }
    out
}

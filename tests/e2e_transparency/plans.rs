//! Plans and sub-agents (§14) against the demo's `/demo plan`: one
//! checklist per turn, updated in place and then replaced by its logged
//! state; a delegation's calls folded inside its card with a count and a
//! spinner while they run; both back after a reload; the plan as a line
//! of the progress draft.

use serde_json::{json, Value};

use crate::support::ui::*;
use crate::support::{run, secs, Browser};

/// The open thread's plan cards and tool cards, as seen now. Each plan
/// card gets a mark the first time it is seen, so a card that is drawn
/// anew (not updated in place) shows up as unmarked.
const LOOK: &str = r#"
const plans = Array.from(document.querySelectorAll('.row:not(.hidden) [data-testid=plan]')).map(p => {
  const fresh = !p.__seen; p.__seen = true;
  return { fresh, logged: p.dataset.logged,
           count: p.querySelector('[data-testid=plan-count]').textContent,
           steps: Array.from(p.querySelectorAll('.plan-step')).map(s => [s.dataset.status, s.querySelector('.plan-text').textContent]) };
});
const top = Array.from(document.querySelectorAll('.row:not(.hidden) > .row-body > .tool-card')).map(c => {
  const nest = c.querySelector(':scope > [data-testid=nested-calls]');
  return { text: c.querySelector('.tool-text').textContent, state: c.dataset.state,
           nested: nest ? nest.querySelector('.nested-toggle').textContent : null,
           running: nest ? nest.dataset.running : null };
});
return { plans, top };
"#;

async fn look(b: &Browser) -> Value {
    b.js(LOOK, vec![]).await
}

fn counts(v: &Value) -> Vec<String> {
    v["plans"]
        .as_array()
        .map(|p| {
            p.iter()
                .map(|p| p["count"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_plan_updates_in_place_and_a_delegations_calls_fold_inside_its_card() {
    run(|| async {
        let app = demo_app(60).await;
        let b = &app.browser;
        send_new_thread(b, "/demo plan").await;

        // Live: one checklist, first step under way.
        let first = b
            .poll("the plan's first state", secs(20), || async {
                let v = look(b).await;
                (counts(&v) == ["0/3"]).then_some(v)
            })
            .await;
        assert_eq!(first["plans"][0]["logged"], "false", "{first}");
        assert_eq!(
            first["plans"][0]["steps"][0],
            json!(["in_progress", "Read the README"])
        );
        // The sub-agent runs: its calls are inside the delegation's card,
        // counted, with a spinner; the checklist moved on in place.
        let running = b
            .poll("a running sub-agent call, nested", secs(20), || async {
                let v = look(b).await;
                let nested = v["top"]
                    .as_array()
                    .and_then(|t| t.iter().find(|c| c["nested"].is_string()).cloned())?;
                (nested["running"] == "true").then_some(v)
            })
            .await;
        assert_eq!(counts(&running), ["1/3"], "{running}");
        assert_eq!(running["plans"][0]["fresh"], false, "redrawn: {running}");
        wait_answers(b, 1).await;
        let done = look(b).await;
        assert_eq!(counts(&done), ["3/3"], "one checklist: {done}");
        assert_eq!(done["plans"][0]["logged"], "true", "{done}");
        assert_eq!(done["plans"][0]["fresh"], false, "redrawn: {done}");
        let top: Vec<&str> = done["top"]
            .as_array()
            .map(|t| t.iter().filter_map(|c| c["text"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(top.len(), 2, "only the turn's own calls on top: {done}");
        assert!(top[1].contains("delegate_task"), "{done}");
        assert_eq!(done["top"][1]["nested"], "▸ 2 calls inside", "{done}");
        assert_eq!(done["top"][1]["running"], "false", "{done}");
        // Unfolded: the two calls, each a card of its own.
        b.click("[data-testid=nested-calls] .nested-toggle").await;
        let inside = b
            .texts_of("[data-testid=nested-calls] .nested-list .tool-card .tool-text")
            .await;
        assert_eq!(inside.len(), 2, "{inside:?}");
        assert!(inside[0].contains("cargo build") && inside[1].contains("cargo test"));

        // From history after a reload: the logged checklist and the nesting.
        reload_connected(b).await;
        let again = b
            .poll("the thread from history", secs(20), || async {
                let v = look(b).await;
                (counts(&v) == ["3/3"] && v["top"].as_array().is_some_and(|t| t.len() == 2))
                    .then_some(v)
            })
            .await;
        assert_eq!(again["top"][1]["nested"], "▸ 2 calls inside", "{again}");
        assert!(again["plans"][0]["steps"]
            .as_array()
            .is_some_and(|s| s.iter().all(|s| s[0] == "completed")));
        app.finish().await;
    });
}

#[test]
fn in_progress_mode_the_plan_is_a_line_of_the_draft() {
    run(|| async {
        let app = demo_app(60).await;
        let b = &app.browser;
        choose_setting(b, "streaming", "progress").await;
        send_new_thread(b, "/demo plan").await;
        let line = b
            .poll("the draft's plan line", secs(20), || async {
                b.texts_of("[data-testid=progress-draft] .progress-line")
                    .await
                    .into_iter()
                    .find(|l| l.starts_with("📋 Plan 1/3"))
            })
            .await;
        assert_eq!(line, "📋 Plan 1/3: Delegate the test run");
        // The running turn's checklist gives way to the draft.
        assert_eq!(
            visible_count(b, "[data-testid=plan]").await,
            0,
            "a checklist beside the draft"
        );
        wait_answers(b, 1).await;
        assert_eq!(visible_count(b, "[data-testid=plan]").await, 1);
        app.finish().await;
    });
}

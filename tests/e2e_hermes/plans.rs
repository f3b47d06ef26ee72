//! Plans and sub-agents (§14) through the real Hermes, as a user sees them.

use std::path::PathBuf;

use serde_json::json;

use super::support::ui::{send, send_new_thread, wait_answers, CONNECTED};
use super::support::{secs, App, GatewayOpts};
use super::{through_hermes, Route, QUESTION};

/// The todo tool's list as one checklist in its turn, and a delegation's
/// sub-agent call folded inside the delegation's card.
#[test]
fn a_hermes_plan_is_a_checklist_and_a_delegation_folds_its_calls() {
    through_hermes(Route::Link, plan_and_delegation);
}

/// The plan and the nested calls as a user sees them, from Hermes.
async fn plan_and_delegation(opts: GatewayOpts, _workdir: PathBuf) {
    let app = App::start_with(opts).await;
    let b = &app.browser;
    b.wait_for(CONNECTED, secs(30)).await;
    // Hermes appends a first-contact note to a thread's first message,
    // which would hide a script tag: a plain first turn.
    send_new_thread(b, QUESTION).await;
    wait_answers(b, 1).await;
    let todos = json!([
        {"id": "1", "content": "Read the note", "status": "completed"},
        {"id": "2", "content": "Summarize <it>", "status": "in_progress"},
    ]);
    send(b, &format!("[fake-todo] {todos}")).await;
    wait_answers(b, 2).await;
    let plan = b
        .js(
            "const p = document.querySelectorAll('[data-testid=plan]');
             return [p.length, p[0] && p[0].dataset.logged,
                     p[0] && p[0].querySelector('[data-testid=plan-count]').textContent,
                     p[0] && Array.from(p[0].querySelectorAll('.plan-text'), e => e.textContent)];",
            vec![],
        )
        .await;
    if plan != json!([1, "true", "1/2", ["Read the note", "Summarize <it>"]]) {
        b.fail(&format!(
            "expected one logged checklist 1/2 of Hermes's todo list: {plan}"
        ))
        .await;
    }
    send(b, "[fake-delegate]").await;
    wait_answers(b, 3).await;
    let toggle = "[data-testid=nested-calls] .nested-toggle";
    b.wait_for(toggle, secs(10)).await;
    let label = b.text_of(toggle).await;
    let owner = b
        .js(
            "const n = document.querySelector('[data-testid=nested-calls]');
             return n.closest('.tool-card').querySelector('.tool-text').textContent;",
            vec![],
        )
        .await;
    if !label.contains("1 call inside")
        || !owner.as_str().is_some_and(|o| o.contains("delegate_task"))
    {
        b.fail(&format!(
            "the delegation's card should fold one call: {label:?} in {owner}"
        ))
        .await;
    }
    b.click(toggle).await;
    let inside = b
        .texts_of("[data-testid=nested-calls] .nested-list .tool-card .tool-text")
        .await;
    if inside.len() != 1 || !inside[0].contains("read_file") {
        b.fail(&format!(
            "unfolded, the sub-agent's read_file card: {inside:?}"
        ))
        .await;
    }
    app.finish().await;
}

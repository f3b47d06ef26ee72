//! Edit a message in the middle of a thread, regenerate an answer twice,
//! go back to the first version with the branch below it restored, with a
//! second device following every switch and a reload keeping the path;
//! while a turn runs the controls wait, saying to stop the agent first.

use super::helpers::*;
use crate::support::ui::*;
use crate::support::{run, secs, App, Browser};

const Q1: &str = "first question";
const Q2: &str = "second question";
const Q3: &str = "third question";
const FIXED: &str = "second question, fixed";

/// Another browser on the thread `id`, connected.
async fn second_device(app: &App, id: &str) -> Browser {
    let b = app
        .open_browser_at(&format!("{}#/t/{id}", app.gateway.app_url()))
        .await;
    connected(&b).await;
    b
}

#[test]
fn edit_regenerate_and_switch_back_on_two_devices() {
    run(|| async {
        let app = demo_app(40).await;
        let a = &app.browser;
        let id = new_thread_answered(a, Q1).await;
        send(a, Q2).await;
        wait_answers(a, 2).await;
        send(a, Q3).await;
        // While the answer runs: every control is there, marked disabled,
        // and says why.
        a.wait_for("[data-testid=stop]", secs(10)).await;
        let waiting =
            "[data-testid=edit-message][aria-disabled=true][title=\"Stop the agent first\"]";
        a.wait_for(waiting, secs(10)).await;
        wait_answers(a, 3).await;
        a.wait_gone("[data-testid=edit-message][aria-disabled=true]", secs(10))
            .await;
        wait_path(a, &[Q1, Q2, Q3]).await;
        let other = second_device(&app, &id).await;
        wait_path(&other, &[Q1, Q2, Q3]).await;

        // Edit the middle message: the rest of the old path goes, the
        // edit and its answer come, on both devices.
        edit(a, Q2, FIXED).await;
        wait_path(a, &[Q1, FIXED]).await;
        wait_answer_to(a, FIXED).await;
        wait_navigators(a, &["Message 2 of 2"]).await;
        wait_path(&other, &[Q1, FIXED]).await;
        wait_navigators(&other, &["Message 2 of 2"]).await;
        let first_answer = last_answer(a).await;

        // Regenerate twice: the answer's navigator counts them.
        regenerate_last(a).await;
        wait_navigators(a, &["Message 2 of 2", "Answer 2 of 2"]).await;
        regenerate_last(a).await;
        wait_navigators(a, &["Message 2 of 2", "Answer 3 of 3"]).await;
        wait_navigators(&other, &["Message 2 of 2", "Answer 3 of 3"]).await;
        assert_ne!(last_answer(a).await, first_answer);
        // Back to the first answer, by the arrow twice.
        arrow(a, "Answer 3 of 3", "branch-prev").await;
        wait_navigators(a, &["Message 2 of 2", "Answer 2 of 3"]).await;
        arrow(a, "Answer 2 of 3", "branch-prev").await;
        wait_navigators(a, &["Message 2 of 2", "Answer 1 of 3"]).await;
        assert_eq!(last_answer(a).await, first_answer);
        wait_navigators(&other, &["Message 2 of 2", "Answer 1 of 3"]).await;

        // Back to the first version of the message: the branch below it
        // comes back as it was, the third question and its answer.
        arrow(a, "Message 2 of 2", "branch-prev").await;
        wait_path(a, &[Q1, Q2, Q3]).await;
        wait_navigators(a, &["Message 1 of 2"]).await;
        wait_answers(a, 3).await;
        wait_path(&other, &[Q1, Q2, Q3]).await;
        assert_no_duplicate_rows(a).await;
        assert_no_duplicate_rows(&other).await;

        // A reload keeps the path.
        reload_connected(a).await;
        wait_path(a, &[Q1, Q2, Q3]).await;
        wait_navigators(a, &["Message 1 of 2"]).await;
        // Forward again: the edit's branch comes back with the answer last
        // chosen in it.
        arrow(a, "Message 1 of 2", "branch-next").await;
        wait_path(a, &[Q1, FIXED]).await;
        wait_navigators(a, &["Message 2 of 2", "Answer 1 of 3"]).await;
        wait_navigators(&other, &["Message 2 of 2", "Answer 1 of 3"]).await;
        other.finish().await;
        app.finish().await;
    });
}

/// Fails if a row key or a seq is shown twice.
async fn assert_no_duplicate_rows(b: &Browser) {
    let dup = b
        .js(
            "const seen = new Set(); \
             for (const r of document.querySelectorAll('[data-testid=timeline] .row')) { \
               const id = r.dataset.seq || r.dataset.key; \
               if (seen.has(id)) return id; seen.add(id); } \
             return null;",
            vec![],
        )
        .await;
    if !dup.is_null() {
        b.fail(&format!("row {dup} is shown twice")).await;
    }
}

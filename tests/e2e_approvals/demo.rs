//! Against the real gateway: `/demo approval` answered with each choice
//! (and what the agent then does), `/demo approval-timeout`, Stop while a
//! request waits, a second device, a reload while it waits, and the
//! resolved request in the thread's history.

use serde_json::{json, Value};

use crate::support::approvals::{card, double_click, outcome, wait_state};
use crate::support::ui::*;
use crate::support::{secs, Browser};

const ASK: &str = "/demo approval";
/// The demo agent's answers (gateway/src/agent/demo/texts.rs).
const RAN: &str = "You allowed it, so I ran";
const DENIED: &str = "You denied it, so I did not run";
const TIMED_OUT: &str = "Nobody answered in time, so I did not run";
/// The end of the command's output when it ran.
const REMOVED: &str = "removed directory './build'";

/// Records every frame the page sends (`window.__sent`); the socket's
/// `send` is looked up on the prototype, so an open socket is covered too.
const SEND_RECORDER: &str = r#"
if (!window.__sent) {
  window.__sent = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { window.__sent.push(String(data)); return send.call(this, data); };
}
"#;

/// The rows of the open thread's last turn (from the last user message; the
/// timeline mounts only the rows near the screen) in display order as
/// `[kind, seq]`, and what the last tool card and the last answer say.
const TURN: &str = r#"
const kind = r => r.querySelector('[data-testid=approval]') ? 'approval'
  : r.querySelector('.tool-card') ? 'tool'
  : r.querySelector('.msg-user') ? 'user'
  : r.querySelector('.msg-assistant') ? 'answer' : 'other';
const rows = Array.from(document.querySelectorAll('[data-testid=timeline] .row'),
  r => [kind(r), r.getAttribute('data-seq')]);
const turn = rows.slice(rows.map(r => r[0]).lastIndexOf('user'));
const tools = document.querySelectorAll('.tool-card');
const tool = tools[tools.length - 1] || null;
const answers = document.querySelectorAll('.msg-assistant .msg-body');
const answer = answers[answers.length - 1];
return { turn, tool: tool && tool.getAttribute('data-state'),
  answer: answer ? answer.textContent : null,
  approvals: document.querySelectorAll('[data-testid=approval]').length };
"#;

/// Waits for a pending request in the open thread; returns its id.
async fn pending_request(b: &Browser) -> String {
    let css = "[data-testid=approval][data-state=pending]";
    b.wait_for(css, secs(30)).await;
    b.js(
        "return document.querySelector(arguments[0]).getAttribute('data-request');",
        vec![json!(css)],
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

/// The thread's rows and its last tool card and answer (see [`TURN`]).
async fn turn_view(b: &Browser) -> Value {
    b.js(TURN, vec![]).await
}

/// The last tool card's output, opened.
async fn last_tool_output(b: &Browser) -> String {
    b.wait_for(".tool-card", secs(5)).await;
    b.js(
        "const c = Array.from(document.querySelectorAll('.tool-card')).pop(); \
         if (!c.classList.contains('open')) c.querySelector('.tool-line').click();",
        vec![],
    )
    .await;
    b.poll("the last tool card's output", secs(5), || async {
        b.js(
            "const c = Array.from(document.querySelectorAll('.tool-card')).pop(); \
             const o = c && c.querySelector('.tool-output'); return o ? o.textContent : null;",
            vec![],
        )
        .await
        .as_str()
        .map(str::to_string)
    })
    .await
}

/// Checks the finished turn: its last tool card in `tool_state` with
/// `output`, the last answer saying `said`.
async fn check_turn(b: &Browser, tool_state: &str, output: &str, said: &str) {
    let v = turn_view(b).await;
    let answer = v["answer"].as_str().unwrap_or_default();
    if v["tool"] != tool_state || !answer.contains(said) {
        b.fail(&format!(
            "want the tool card {tool_state} and an answer saying {said:?}: {v}"
        ))
        .await;
    }
    let got = last_tool_output(b).await;
    if !got.contains(output) {
        b.fail(&format!("tool output {got:?}, want {output:?}"))
            .await;
    }
}

/// Clicks `choice` on request `id` and waits until it reads `said`.
async fn answer(b: &Browser, id: &str, choice: &str, said: &str) {
    double_click(b, &format!("{} button[data-choice={choice}]", card(id))).await;
    wait_state(b, id, "resolved").await;
    let got = outcome(b, id).await;
    if got != said {
        b.fail(&format!("{id}: outcome {got:?}, want {said:?}"))
            .await;
    }
}

/// Waits for the request of the turn just asked, answers `choice`, waits
/// until it reads `said` and the thread shows `answers` answers; returns
/// the request's id.
async fn answered(b: &Browser, choice: &str, said: &str, answers: usize) -> String {
    let id = pending_request(b).await;
    answer(b, &id, choice, said).await;
    wait_answers(b, answers).await;
    id
}

/// The frames of `type` that the page sent since [`SEND_RECORDER`].
async fn sent_of(b: &Browser, ty: &str) -> Vec<Value> {
    let sent = b.js("return window.__sent || [];", vec![]).await;
    sent.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| serde_json::from_str::<Value>(s.as_str()?).ok())
        .filter(|f| f["type"] == ty)
        .collect()
}

#[test]
fn allow_once_runs_the_command_and_deny_does_not() {
    crate::support::run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        send_new_thread(b, ASK).await;
        let id = answered(b, "once", "Allowed once", 1).await;
        check_turn(b, "ok", REMOVED, RAN).await;

        // Allowed once is not remembered: the next one asks again.
        send(b, ASK).await;
        let second = answered(b, "deny", "Denied", 2).await;
        assert_ne!(second, id);
        check_turn(b, "failed", "denied by the user", DENIED).await;
        // The first turn's card is still in the thread, with its outcome
        // (scrolled to: the timeline mounts only the rows near the view).
        b.js(
            "document.querySelector('[data-testid=timeline]').scrollTop = 0;",
            vec![],
        )
        .await;
        wait_state(b, &id, "resolved").await;
        assert_eq!(outcome(b, &id).await, "Allowed once");
        app.finish().await;
    });
}

#[test]
fn allow_for_this_thread_stops_asking_there_and_always_allow_everywhere() {
    crate::support::run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        send_new_thread(b, ASK).await;
        answered(b, "session", "Allowed for this thread", 1).await;
        check_turn(b, "ok", REMOVED, RAN).await;
        // The same thread again: it runs without asking.
        send(b, ASK).await;
        wait_answers(b, 2).await;
        check_turn(b, "ok", REMOVED, RAN).await;
        assert_eq!(turn_view(b).await["approvals"], 1, "asked again");

        // Another thread asks; "Always allow" wants a second confirmation.
        new_thread_pane(b).await;
        send_new_thread(b, ASK).await;
        let always = pending_request(b).await;
        b.click(&format!("{} button[data-choice=always]", card(&always)))
            .await;
        b.wait_for("[data-testid=confirm-always]", secs(5)).await;
        wait_state(b, &always, "pending").await;
        double_click(b, "[data-testid=confirm-always]").await;
        wait_state(b, &always, "resolved").await;
        assert_eq!(outcome(b, &always).await, "Always allowed");
        wait_answers(b, 1).await;
        check_turn(b, "ok", REMOVED, RAN).await;

        // From now on, in any thread, it runs without asking.
        new_thread_pane(b).await;
        send_new_thread(b, ASK).await;
        wait_answers(b, 1).await;
        check_turn(b, "ok", REMOVED, RAN).await;
        assert_eq!(turn_view(b).await["approvals"], 0, "asked again");
        app.finish().await;
    });
}

#[test]
fn nobody_answering_times_out_and_stop_cancels_the_request() {
    crate::support::run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        send_new_thread(b, "/demo approval-timeout").await;
        let id = pending_request(b).await;
        // The demo gives up after 3 s.
        wait_state(b, &id, "resolved").await;
        assert_eq!(outcome(b, &id).await, "Timed out");
        assert!(!b.exists(&format!("{} button", card(&id))).await);
        wait_answers(b, 1).await;
        check_turn(b, "failed", "not run: nobody answered in time", TIMED_OUT).await;

        send(b, ASK).await;
        let stopped = pending_request(b).await;
        b.click("[data-testid=stop]").await;
        wait_state(b, &stopped, "resolved").await;
        assert_eq!(outcome(b, &stopped).await, "Cancelled");
        wait_idle(b).await;
        // The call that waited ends as failed, and no answer follows.
        let v = turn_view(b).await;
        let answer = v["answer"].as_str().unwrap_or_default();
        if v["tool"] != "failed" || !answer.contains(TIMED_OUT) {
            b.fail(&format!(
                "want the tool card failed after Stop, no new answer: {v}"
            ))
            .await;
        }
        let output = last_tool_output(b).await;
        assert_eq!(output, "the turn was cancelled");
        app.finish().await;
    });
}

#[test]
fn a_second_device_and_a_reload_see_the_request_which_is_answered_once_and_logged_in_place() {
    crate::support::run(|| async {
        let app = demo_app(20).await;
        let b = &app.browser;
        let thread = new_thread_answered(b, "hello").await;
        let phone = app
            .open_browser_at(&format!("{}#/t/{thread}", app.gateway.app_url()))
            .await;
        connected(&phone).await;
        phone.wait_for(".msg-assistant .msg-footer", secs(10)).await;
        phone.js(SEND_RECORDER, vec![]).await;

        send(b, ASK).await;
        let id = pending_request(b).await;
        wait_state(&phone, &id, "pending").await;
        phone.wait_for("[data-testid=needs-you]", secs(5)).await;

        // Reloaded while it waits: shown again, once, and answered once.
        reload_connected(b).await;
        wait_state(b, &id, "pending").await;
        assert_eq!(b.count("[data-testid=approval]").await, 1);
        b.js(SEND_RECORDER, vec![]).await;
        answer(b, &id, "once", "Allowed once").await;
        wait_state(&phone, &id, "resolved").await;
        assert_eq!(outcome(&phone, &id).await, "Allowed once on another device");
        wait_answers(b, 2).await;
        let sent = sent_of(b, "approval.respond").await;
        if sent.len() != 1 || sent[0]["request_id"] != id.as_str() {
            b.fail(&format!(
                "want one respond for {id}, the page sent {sent:?}"
            ))
            .await;
        }
        let from_phone = sent_of(&phone, "approval.respond").await;
        assert!(from_phone.is_empty(), "the phone answered: {from_phone:?}");
        wait_answers(&phone, 2).await;
        phone.wait_gone("[data-testid=needs-you]", secs(5)).await;

        // What the thread showed live is what its history shows.
        let live = turn_view(b).await["turn"].clone();
        reload_connected(&phone).await;
        wait_state(&phone, &id, "resolved").await;
        wait_answers(&phone, 2).await;
        let logged = turn_view(&phone).await["turn"].clone();
        assert_eq!(outcome(&phone, &id).await, "Allowed once on another device");
        if logged != live {
            phone
                .fail(&format!(
                    "history {logged} differs from the live thread {live}"
                ))
                .await;
        }
        check_logged_order(&phone, &logged).await;
        phone.finish().await;
        app.finish().await;
    });
}

/// The approval turn's rows, all logged with rising seqs: the user's
/// message, the commentary, the resolved request, the tool call it
/// allowed (logged when it ended, after the request) and the answer.
async fn check_logged_order(b: &Browser, rows: &Value) {
    let rows: Vec<(String, Option<u64>)> = rows
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let kind = r[0].as_str().unwrap_or_default().to_string();
            (kind, r[1].as_str().and_then(|s| s.parse().ok()))
        })
        .collect();
    let kinds: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
    let seqs: Vec<Option<u64>> = rows.iter().map(|(_, s)| *s).collect();
    let rising = seqs
        .windows(2)
        .all(|w| matches!(w, [Some(a), Some(b)] if a < b));
    let want = ["user", "other", "approval", "tool", "answer"];
    if kinds != want || !rising {
        b.fail(&format!(
            "rows {rows:?}, want kinds {want:?} with rising seqs"
        ))
        .await;
    }
}

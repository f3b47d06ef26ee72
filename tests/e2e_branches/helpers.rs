//! What the branch suites read and do on the page: the path shown (user
//! messages in order), a row found by its text, the navigator of a row,
//! and the edit box.

use serde_json::{json, Value};

use crate::support::ui::*;
use crate::support::{secs, Browser};

/// The texts of the user messages shown, in order.
pub async fn path(b: &Browser) -> Vec<String> {
    b.texts_of("[data-testid=timeline] .msg-user .msg-text")
        .await
        .into_iter()
        .map(|t| t.trim().to_string())
        .collect()
}

/// Waits until the user messages shown are exactly `want`, in order.
pub async fn wait_path(b: &Browser, want: &[&str]) {
    let what = format!("the path {want:?}");
    b.poll(&what, secs(30), || async {
        (path(b).await == want).then_some(())
    })
    .await;
}

/// The `data-key` of the row of the user message `text`.
pub async fn user_row(b: &Browser, text: &str) -> String {
    let what = format!("the user message {text:?}");
    b.poll(&what, secs(20), || async {
        let v = b
            .js(
                "for (const r of document.querySelectorAll('[data-testid=timeline] .row')) { \
                   const t = r.querySelector('.msg-user .msg-text'); \
                   if (t && t.textContent.trim() === arguments[0]) return r.dataset.key; } \
                 return null;",
                vec![json!(text)],
            )
            .await;
        v.as_str().map(str::to_string)
    })
    .await
}

/// A CSS selector for the row with `key`.
pub fn row(key: &str) -> String {
    format!("[data-testid=timeline] .row[data-key=\"{key}\"]")
}

/// The navigator texts shown, in order: its accessible name ("Answer 2
/// of 3") for each one.
pub async fn navigators(b: &Browser) -> Vec<String> {
    let v = b
        .js(
            "return Array.from(document.querySelectorAll('[data-testid=timeline] [data-testid=branch-nav]'))\
               .map(n => n.getAttribute('aria-label'));",
            vec![],
        )
        .await;
    strings(&v)
}

/// Waits until the navigators shown are exactly `want`.
pub async fn wait_navigators(b: &Browser, want: &[&str]) {
    let what = format!("the navigators {want:?}");
    b.poll(&what, secs(30), || async {
        (navigators(b).await == want).then_some(())
    })
    .await;
}

/// The `data-key` of the last finished answer shown.
pub async fn last_answer(b: &Browser) -> String {
    b.poll("a finished answer", secs(20), || async {
        let v = b
            .js(
                "const rows = Array.from(document.querySelectorAll('[data-testid=timeline] .row'))\
                   .filter(r => r.querySelector('.msg-assistant .msg-footer')); \
                 return rows.length ? rows[rows.length - 1].dataset.key : null;",
                vec![],
            )
            .await;
        v.as_str().map(str::to_string)
    })
    .await
}

/// Waits until the last answer shown is finished, quotes `text` (the demo
/// agent quotes the message it answers) and the agent is idle.
pub async fn wait_answer_to(b: &Browser, text: &str) {
    let what = format!("a finished answer to {text:?} and an idle agent");
    b.poll(&what, secs(60), || async {
        let v = b
            .js(
                "const rows = Array.from(document.querySelectorAll('[data-testid=timeline] .row .msg-assistant'));                  const last = rows[rows.length - 1];                  return !!last && !!last.querySelector('.msg-footer')                    && (last.querySelector('blockquote') || {textContent: ''}).textContent.includes(arguments[0])                    && !document.querySelector('[data-testid=stop]')                    && !document.querySelector('.msg-assistant[data-streaming=true]');",
                vec![json!(text)],
            )
            .await;
        (v == json!(true)).then_some(())
    })
    .await;
}

/// Opens the edit box of the user message `text`, puts `new_text` in it
/// and presses Enter; waits for the edit's answer.
pub async fn edit(b: &Browser, text: &str, new_text: &str) {
    let key = user_row(b, text).await;
    b.click(&format!("{} [data-testid=edit-message]", row(&key)))
        .await;
    let input = "[data-testid=edit-input]";
    b.wait_for(input, secs(5)).await;
    let prefilled = b
        .js(
            "return document.querySelector(arguments[0]).value;",
            vec![json!(input)],
        )
        .await;
    assert_eq!(prefilled, json!(text), "the edit box holds the old text");
    b.js(
        "const t = document.querySelector(arguments[0]); t.value = arguments[1]; \
         t.dispatchEvent(new Event('input', {bubbles: true}));",
        vec![json!(input), json!(new_text)],
    )
    .await;
    b.press_enter(input).await;
    b.wait_gone(input, secs(5)).await;
}

/// Clicks Regenerate on the last answer and waits until the agent is
/// idle again.
pub async fn regenerate_last(b: &Browser) {
    let key = last_answer(b).await;
    b.click(&format!("{} [data-testid=regenerate]", row(&key)))
        .await;
    b.wait_for("[data-testid=stop]", secs(10)).await;
    wait_idle(b).await;
}

/// Clicks an arrow (`branch-prev` / `branch-next`) of the navigator named
/// `label`.
pub async fn arrow(b: &Browser, label: &str, which: &str) {
    b.click(&format!(
        "[data-testid=timeline] [data-testid=branch-nav][aria-label=\"{label}\"] [data-testid={which}]"
    ))
    .await;
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

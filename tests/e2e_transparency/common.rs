//! Helpers shared by the transparency and thread suites (the thread suite
//! includes this file with `#[path]`): sending, waiting for a turn, the
//! settings panel, and a DOM recorder that sees every state the page passes
//! through, however briefly.

#![allow(dead_code)] // each suite uses a different part

use std::future::Future;

use fantoccini::key::Key;
use serde_json::{json, Value};

use crate::support::{secs, Browser};

/// Runs a browser test on its own thread with a big stack: these tests'
/// futures nest deeply, and unoptimized builds overflow libtest's 2 MiB.
/// The thread keeps the test's name (failure artifacts are named after it).
pub fn run<Fut: Future<Output = ()>>(body: impl FnOnce() -> Fut + Send + 'static) {
    let name = std::thread::current().name().unwrap_or("e2e").to_string();
    let handle = std::thread::Builder::new()
        .name(name)
        .stack_size(64 << 20)
        .spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime")
                .block_on(Box::pin(body()))
        })
        .expect("spawn the test thread");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

pub const COMPOSER: &str = "form[data-testid=composer] textarea";

/// Waits until the socket is connected.
pub async fn connected(b: &Browser) {
    b.wait_for("[data-testid=conn-status][data-state=connected]", secs(20))
        .await;
    count_answers(b).await;
}

/// Types `text` into the composer and presses Enter.
pub async fn send(b: &Browser, text: &str) {
    b.type_into(COMPOSER, text).await;
    b.press_enter(COMPOSER).await;
}

/// `location.hash`.
pub async fn hash(b: &Browser) -> String {
    b.js("return location.hash;", vec![])
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The thread id in the URL (`#/t/<id>`), if any.
pub async fn hash_channel(b: &Browser) -> Option<String> {
    let v = b
        .js(
            "const h = location.hash; return h.startsWith('#/t/') ? decodeURIComponent(h.slice(4)) : null;",
            vec![],
        )
        .await;
    v.as_str().map(str::to_string)
}

/// Sends `text` from the new-thread pane and waits until auto-threading
/// moved the app into the new thread; returns its id.
pub async fn send_new_thread(b: &Browser, text: &str) -> String {
    let before = hash_channel(b).await;
    if before.is_some() {
        b.fail(&format!(
            "send_new_thread: expected the new-thread pane, the URL names thread {before:?}"
        ))
        .await;
    }
    send(b, text).await;
    b.poll(
        "the URL to become #/t/<id> (auto-thread)",
        secs(15),
        || async { hash_channel(b).await },
    )
    .await
}

/// Counts finished answers (rows with a footer) per thread, by row key, in
/// a set that only grows: the timeline mounts only the rows near the
/// screen, so counting the DOM would lose answers scrolled far away.
const ANSWER_COUNTER: &str = r#"
if (!window.__answerKeys) {
  window.__answerKeys = {};
  const scan = () => {
    const h = location.hash;
    const set = window.__answerKeys[h] || (window.__answerKeys[h] = new Set());
    for (const r of document.querySelectorAll('.row')) {
      if (r.querySelector('.msg-assistant .msg-footer')) set.add(r.getAttribute('data-key'));
    }
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, attributes: true });
  window.addEventListener('hashchange', scan);
  scan();
}
const keys = window.__answerKeys[location.hash];
return [keys ? keys.size : 0,
        !!document.querySelector('[data-testid=stop]'),
        !!document.querySelector('[data-testid=typing]'),
        !!document.querySelector('.msg-assistant[data-streaming=true]')];
"#;

/// Installs the answer counter now (call before the answers come when the
/// thread may grow beyond the screen; `wait_answers` installs it too).
pub async fn count_answers(b: &Browser) -> usize {
    b.js(ANSWER_COUNTER, vec![]).await[0].as_u64().unwrap_or(0) as usize
}

/// Waits until the open thread has shown `answers` finished answers (with
/// a footer) since the page loaded, and the agent is idle (no stop button,
/// no typing dots, nothing streaming).
pub async fn wait_answers(b: &Browser, answers: usize) {
    let what = format!("{answers} finished answer(s) and an idle agent");
    b.poll(&what, secs(60), || async {
        let v = b.js(ANSWER_COUNTER, vec![]).await;
        let done = v[0].as_u64().unwrap_or(0) as usize >= answers
            && v[1] == false
            && v[2] == false
            && v[3] == false;
        done.then_some(())
    })
    .await;
}

/// Waits until the agent is idle in the open thread (stop button gone),
/// after it was seen busy or `busy_seen` says so.
pub async fn wait_idle(b: &Browser) {
    b.wait_gone("[data-testid=stop]", secs(60)).await;
    b.wait_gone("[data-testid=typing]", secs(10)).await;
}

/// Scrolls the timeline to its end, as a reader does before typing (a
/// WebDriver click scrolls its target into view, which stops following).
pub async fn scroll_to_end(b: &Browser) {
    b.js(
        "const t = document.querySelector('[data-testid=timeline]'); t.scrollTop = t.scrollHeight;",
        vec![],
    )
    .await;
    b.wait_gone("[data-testid=new-messages]", secs(5)).await;
}

/// How many elements match `css` and are rendered (not `display: none`).
pub async fn visible_count(b: &Browser, css: &str) -> usize {
    b.js(
        "return Array.from(document.querySelectorAll(arguments[0])).filter(e => e.getClientRects().length > 0).length;",
        vec![json!(css)],
    )
    .await
    .as_u64()
    .unwrap_or(0) as usize
}

// ----- settings -----

pub async fn open_settings(b: &Browser) {
    if !b.exists("[data-testid=settings]").await {
        b.click("[data-testid=open-settings]").await;
    }
    b.wait_for("[data-testid=settings]", secs(5)).await;
}

pub async fn close_settings(b: &Browser) {
    b.click("[data-testid=close-settings]").await;
    b.wait_gone("[data-testid=settings]", secs(5)).await;
}

/// Picks `value` in the settings panel's `select[name=NAME]` (the panel
/// must be open) and waits until the page took it.
pub async fn choose(b: &Browser, name: &str, value: &str) {
    let css = format!("[data-testid=settings] select[name={name}]");
    let el = b.wait_for(&css, secs(5)).await;
    if let Err(e) = el.select_by_value(value).await {
        b.fail(&format!("cannot pick {value:?} in {css}: {e}"))
            .await;
    }
    let what = format!("{css} to read {value:?}");
    b.poll(&what, secs(5), || async {
        let v = b
            .js(
                "const e = document.querySelector(arguments[0]); return e && e.value;",
                vec![json!(css)],
            )
            .await;
        (v == value).then_some(())
    })
    .await;
}

/// Types `value` into the settings panel's `input[name=NAME]` (replacing
/// what is there) and leaves the field, which commits it.
pub async fn fill(b: &Browser, name: &str, value: &str) {
    let css = format!("[data-testid=settings] input[name={name}]");
    let el = b.wait_for(&css, secs(5)).await;
    if let Err(e) = el.clear().await {
        b.fail(&format!("cannot clear {css}: {e}")).await;
    }
    let tab: char = Key::Tab.into();
    if let Err(e) = el.send_keys(&format!("{value}{tab}")).await {
        b.fail(&format!("cannot type into {css}: {e}")).await;
    }
}

/// Sets the settings panel's checkbox `input[name=NAME]` by clicking it if
/// it is not in the wanted state.
pub async fn check(b: &Browser, name: &str, on: bool) {
    let css = format!("[data-testid=settings] input[name={name}]");
    let checked = b
        .js(
            "return document.querySelector(arguments[0]).checked;",
            vec![json!(css)],
        )
        .await;
    if checked != on {
        b.click(&css).await;
    }
    let what = format!("{css} to be checked={on}");
    b.poll(&what, secs(5), || async {
        let v = b
            .js(
                "return document.querySelector(arguments[0]).checked;",
                vec![json!(css)],
            )
            .await;
        (v == on).then_some(())
    })
    .await;
}

/// The settings as stored in localStorage (`aria.settings`), parsed.
pub async fn stored_settings(b: &Browser) -> Value {
    let v = b
        .js("return localStorage.getItem('aria.settings');", vec![])
        .await;
    v.as_str()
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or(Value::Null)
}

/// Opens the panel, applies `f`'s choices, closes it.
pub async fn with_settings<'a, F, Fut>(b: &'a Browser, f: F)
where
    F: FnOnce(&'a Browser) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    open_settings(b).await;
    f(b).await;
    close_settings(b).await;
}

// ----- the recorder -----

/// Installs a MutationObserver that appends a snapshot of the timeline to
/// `window.__rec` whenever it changes, so tests can check every state the
/// page showed (not only the ones a poll happens to catch).
const RECORDER: &str = r#"
const vis = e => !!e && e.getClientRects().length > 0;
const txt = e => e ? e.textContent : null;
window.__snap = () => {
  const answers = Array.from(document.querySelectorAll('.msg-assistant'));
  const shown = answers.filter(vis);
  const last = shown[shown.length - 1];
  const draft = document.querySelector('[data-testid=progress-draft]');
  const reasoning = last ? last.querySelector('.reasoning') : null;
  const title = document.querySelector('[data-testid=chat-title]');
  const active = document.querySelector('.thread-item.active .thread-title');
  return {
    hash: location.hash,
    streamingAny: !!document.querySelector('.msg-assistant[data-streaming=true]'),
    streamingVisible: Array.from(document.querySelectorAll('.msg-assistant[data-streaming=true]')).some(vis),
    answers: answers.length,
    answersVisible: shown.length,
    answer: last ? txt(last.querySelector('.msg-body')) : null,
    answerStreaming: last ? last.getAttribute('data-streaming') === 'true' : false,
    reasoning: reasoning ? { collapsed: reasoning.classList.contains('collapsed'), body: txt(reasoning.querySelector('.reasoning-body')) } : null,
    typing: vis(document.querySelector('[data-testid=typing]')),
    draft: draft && vis(draft) ? Array.from(draft.querySelectorAll('.progress-line'), l => ({ text: l.textContent, label: l.classList.contains('progress-label') })) : null,
    tools: Array.from(document.querySelectorAll('.tool-card'), c => ({
      state: c.getAttribute('data-state'),
      text: txt(c.querySelector('.tool-text')),
      icon: txt(c.querySelector('.tool-status')),
      duration: txt(c.querySelector('.tool-duration')),
      note: txt(c.querySelector('.tool-note')),
      open: c.classList.contains('open'),
      detail: !!c.querySelector('.tool-detail'),
      visible: vis(c),
    })),
    commentary: document.querySelectorAll('.msg-commentary').length,
    commentaryVisible: Array.from(document.querySelectorAll('.msg-commentary')).filter(vis).length,
    users: document.querySelectorAll('.msg-user').length,
    pending: document.querySelectorAll('.msg-user.pending').length,
    title: txt(title),
    activeTitle: txt(active),
    expander: txt(document.querySelector('[data-testid=tool-calls]')),
  };
};
window.__rec = [];
let lastJson = null;
const push = () => {
  const s = window.__snap();
  const j = JSON.stringify(s);
  if (j !== lastJson) { lastJson = j; window.__rec.push(s); }
};
if (window.__recObserver) window.__recObserver.disconnect();
window.__recObserver = new MutationObserver(push);
window.__recObserver.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
window.addEventListener('hashchange', push);
push();
"#;

pub async fn start_recorder(b: &Browser) {
    b.js(RECORDER, vec![]).await;
}

/// Every distinct snapshot since `start_recorder`, in order.
pub async fn records(b: &Browser) -> Vec<Value> {
    let v = b.js("return window.__rec || [];", vec![]).await;
    match v {
        Value::Array(a) => a,
        _ => Vec::new(),
    }
}

/// The current snapshot (same shape as the recorded ones).
pub async fn snapshot(b: &Browser) -> Value {
    b.js("return window.__snap ? window.__snap() : null;", vec![])
        .await
}

/// Text without any whitespace, for comparing rendered text across renders
/// that differ only in the newlines between blocks.
pub fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A short, readable list of recorded values for failure messages.
pub fn show<T: std::fmt::Debug>(items: &[T]) -> String {
    let mut out = String::new();
    for (i, it) in items.iter().enumerate().take(60) {
        out.push_str(&format!("  [{i}] {it:?}\n"));
    }
    if items.len() > 60 {
        out.push_str(&format!("  … {} more\n", items.len() - 60));
    }
    out
}

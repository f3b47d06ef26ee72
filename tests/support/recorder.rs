//! A DOM recorder that sees every state the page passes through, however
//! briefly: a MutationObserver appends a snapshot of the timeline to
//! `window.__rec` whenever it changes. Plus helpers to show what it saw.

use serde_json::Value;

use super::Browser;

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

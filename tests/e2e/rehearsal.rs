//! The idle rehearsal of a turn (src/ui/wiring/rehearsal.rs): once the
//! deferred part is linked, a made-up question is sent and answered in a
//! scratch store and view, and its bubbles are never in the page; nothing
//! of it is seen, sent or saved, and the first real answer after it
//! streams as usual.

use std::time::Duration;

use serde_json::{json, Value};

use crate::support::ui::{connected, reload, send, wait_answers, wait_rehearsed};
use crate::support::App;

/// Records, from the page's first script on, every bubble or rendered
/// markdown that is ever in the document, any text of the rehearsal's made
/// up turn (its question, its thread's titles) shown anywhere, and every
/// frame the page sends that names it.
const WATCH_THE_PAGE: &str = r#"
window.__bubblesSeen = 0;
window.__rehearsalShown = false;
window.__rehearsalSent = [];
new MutationObserver(() => {
  window.__bubblesSeen = Math.max(window.__bubblesSeen,
    document.querySelectorAll('.msg-assistant, .msg-user, .markdown .md-tail').length);
  if (/rehears/i.test(document.documentElement.textContent)) window.__rehearsalShown = true;
}).observe(document, { subtree: true, childList: true, characterData: true });
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (typeof data === 'string' && /rehears/i.test(data)) window.__rehearsalSent.push(data);
  return send.call(this, data);
};
"#;

#[tokio::test]
async fn an_answer_is_rehearsed_unseen_once_the_deferred_part_is_linked() {
    let app = App::start().await;
    let b = &app.browser;
    b.cdp(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": WATCH_THE_PAGE }),
    )
    .await;
    reload(b).await;
    connected(b).await;
    wait_rehearsed(b).await;
    let seen = b
        .js(
            "return [window.__bubblesSeen, window.__ariaDeferred.status(), \
             window.__rehearsalShown, window.__rehearsalSent, \
             Object.values(localStorage).filter(v => /rehears/i.test(v))];",
            vec![],
        )
        .await;
    if seen[0] != 0 {
        b.fail(&format!(
            "the rehearsal's bubble was in the page ({} bubbles seen)",
            seen[0]
        ))
        .await;
    }
    let leaked = seen[2] == true || seen[3] != json!([]) || seen[4] != json!([]);
    if leaked {
        b.fail(&format!(
            "the rehearsal leaked: shown {}, sent {}, saved {}",
            seen[2], seen[3], seen[4]
        ))
        .await;
    }
    if seen[1]["state"] != "linked" || seen[1]["syncLoads"] != 0 {
        b.fail(&format!(
            "the rehearsal ran before the deferred part was linked: {}",
            seen[1]
        ))
        .await;
    }
    // The first real answer after it: streamed, finished, with its text.
    send(b, "hello").await;
    wait_answers(b, 1).await;
    let text = b
        .js(
            "const a = document.querySelector('.msg-assistant .msg-body'); \
             return a ? a.textContent : null;",
            vec![],
        )
        .await;
    if !text.as_str().is_some_and(|t| t.contains("hello")) {
        b.fail(&format!("the answer after the rehearsal shows {text}"))
            .await;
    }
    // The offline copy keeps the real thread (its index and record) once
    // the turn is over, and nothing of the made-up one.
    let keys = b
        .poll(
            "the real thread in the offline copy",
            Duration::from_secs(10),
            || async {
                let keys = b.js(OFFLINE_KEYS, vec![]).await;
                keys.as_array().filter(|k| k.len() >= 2).cloned()
            },
        )
        .await;
    let leaked: Vec<&Value> = keys
        .iter()
        .filter(|k| {
            k.as_str()
                .is_some_and(|k| k.to_lowercase().contains("rehears"))
        })
        .collect();
    if !leaked.is_empty() {
        b.fail(&format!("the rehearsal was kept offline: {leaked:?}"))
            .await;
    }
}

/// The keys of the offline copy's records (src/ui/browser/offline_db.rs).
const OFFLINE_KEYS: &str = r#"
return await new Promise(done => {
  const open = indexedDB.open('aria-offline');
  open.onerror = () => done(null);
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains('records')) { db.close(); return done(null); }
    const all = db.transaction('records').objectStore('records').getAllKeys();
    all.onsuccess = () => { db.close(); done(all.result.map(String)); };
    all.onerror = () => { db.close(); done(null); };
  };
});
"#;

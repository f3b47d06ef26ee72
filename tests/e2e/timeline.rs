//! The timeline of a long thread: the newest page first, older pages while
//! scrolling up without moving what the reader sees, the beginning marker,
//! only a window of rows mounted, following new output at the bottom, the
//! "new messages" pill otherwise, and the reader's own message bringing
//! them back to the end. Threads come from the gateway's `--seed-channel N`
//! (channel `c_seed`, items with seqs 1..=N).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::ui::{connected, send};
use crate::support::{secs, App, Browser, GatewayOpts};

/// Items per `history.get` page when the client asks for no limit.
const PAGE: u64 = 50;

/// The most rows that may be mounted at any time.
const MAX_MOUNTED: u64 = 300;

/// Where the reader stands: scroll metrics, the rows mounted, and the
/// topmost visible row with its distance from the top of the scroller.
const STATE: &str = r#"
const s = document.querySelector('[data-testid=timeline]');
const top = s.getBoundingClientRect().top;
const rows = Array.from(s.querySelectorAll('.row'));
const first = rows.find(r => {
  const b = r.getBoundingClientRect();
  return b.bottom > top + 1 && b.top < top + s.clientHeight && b.height > 0;
});
const seqs = rows.map(r => Number(r.dataset.seq)).filter(Number.isFinite);
return {
  scrollTop: s.scrollTop,
  anchor: window.__anchor || null,
  toBottom: s.scrollHeight - s.scrollTop - s.clientHeight,
  rows: rows.length,
  minSeq: seqs.length ? Math.min(...seqs) : null,
  maxSeq: seqs.length ? Math.max(...seqs) : null,
  topKey: first ? first.dataset.key : null,
  topOffset: first ? first.getBoundingClientRect().top - top : null,
  beginning: document.querySelector('[data-testid=beginning]') !== null,
  pill: document.querySelector('[data-testid=new-messages]') !== null,
  streaming: document.querySelector('.msg-assistant[data-streaming=true]') !== null,
};
"#;

/// Scrolls up by `arguments[0]` px; STATE after it then also has `anchor`:
/// the row that was on top and where it must stay once the page settled.
const SCROLL_UP: &str = r#"
{
  const sc = document.querySelector('[data-testid=timeline]');
  const top = sc.getBoundingClientRect().top;
  const row = Array.from(sc.querySelectorAll('.row')).find(r => {
    const b = r.getBoundingClientRect();
    return b.bottom > top + 1 && b.top < top + sc.clientHeight && b.height > 0;
  });
  sc.scrollTop -= arguments[0];
  window.__anchor = row
    ? { key: row.dataset.key, expected: row.getBoundingClientRect().top - top }
    : null;
}
"#;

/// Watches every painted frame (a task queued from an animation frame runs
/// after that frame's paint): records the worst distance of the anchor row
/// (`window.__anchor`) from where it must be, and the most rows mounted.
/// Also records the `history.get` frames the app sends from now on.
const WATCH: &str = r#"
const s = document.querySelector('[data-testid=timeline]');
window.__gets = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  try {
    const f = JSON.parse(data);
    if (f.type === 'history.get') window.__gets.push(f);
  } catch (_) {}
  return send.call(this, data);
};
window.__worst = { drift: 0 };
window.__maxRows = 0;
const check = () => {
  window.__maxRows = Math.max(window.__maxRows, s.querySelectorAll('.row').length);
  const a = window.__anchor;
  if (!a) return;
  const row = s.querySelector(`.row[data-key="${CSS.escape(a.key)}"]`);
  const at = row ? row.getBoundingClientRect().top - s.getBoundingClientRect().top : null;
  const drift = at === null ? 1e9 : Math.abs(at - a.expected);
  if (drift > window.__worst.drift) {
    window.__worst = { drift, key: a.key, expected: a.expected, at, scrollTop: s.scrollTop };
  }
};
const frame = () => requestAnimationFrame(() => { setTimeout(check, 0); frame(); });
frame();
"#;

/// What WATCH saw so far.
const WATCHED: &str =
    "return { worst: window.__worst, maxRows: window.__maxRows, gets: window.__gets };";

/// The offset of row `key` from the top of the scroller, or null.
const OFFSET_OF: &str = r#"
const s = document.querySelector('[data-testid=timeline]');
const row = s.querySelector(`.row[data-key="${CSS.escape(arguments[0])}"]`);
return row ? row.getBoundingClientRect().top - s.getBoundingClientRect().top : null;
"#;

/// Whether the reader's message `arguments[0]` is entirely on screen.
const OWN_MESSAGE_ON_SCREEN: &str = r#"
const s = document.querySelector('[data-testid=timeline]').getBoundingClientRect();
const msg = Array.from(document.querySelectorAll('.msg-user'))
  .find(e => e.textContent.includes(arguments[0]));
if (!msg) return false;
const b = msg.getBoundingClientRect();
return b.top >= s.top && b.bottom <= s.bottom;
"#;

/// STATE as the next frame paints it (read in a task queued from the
/// animation frame, which runs after that frame's paint): a state read
/// between frames may show changes the list has not reacted to yet.
async fn state(b: &Browser) -> Value {
    let script = format!(
        "const done = arguments[arguments.length - 1];\n\
         const state = () => {{ {STATE} }};\n\
         requestAnimationFrame(() => setTimeout(() => done(state()), 0));"
    );
    match b.client().execute_async(&script, vec![]).await {
        Ok(v) => v,
        Err(e) => {
            b.fail(&format!("cannot read the timeline's state: {e}"))
                .await
        }
    }
}

async fn open_seeded(items: u64, demo_delay_ms: u64) -> App {
    let app = App::start_with(GatewayOpts {
        demo_delay_ms,
        extra_args: vec!["--seed-channel".into(), items.to_string()],
        ..GatewayOpts::default()
    })
    .await;
    let url = format!("{}#/t/c_seed", app.gateway.app_url());
    app.browser.goto(&url).await;
    let newest = format!(".row[data-seq=\"{items}\"]");
    app.browser.wait_for(&newest, secs(20)).await;
    app
}

/// Waits until the newest row is mounted and the scroller at its end.
async fn at_the_end(b: &Browser) -> Value {
    b.poll("the newest row at the bottom", secs(10), || async {
        let s = state(b).await;
        (s["toBottom"].as_f64()? <= 2.0).then_some(s)
    })
    .await
}

#[tokio::test]
async fn older_pages_load_above_without_moving_the_reading_position() {
    let items = 1000;
    let app = open_seeded(items, 20).await;
    let b = &app.browser;

    // The newest page, scrolled to its end.
    let s = at_the_end(b).await;
    assert_eq!(s["maxSeq"], json!(items), "{s}");
    assert!(
        !s["beginning"].as_bool().unwrap(),
        "no beginning marker yet: {s}"
    );
    b.js(WATCH, vec![]).await;

    // Scroll up like a reader, a step at a time. In every frame the row
    // that was at the top must be exactly where the step left it, older
    // pages arriving above it or not.
    let deadline = Instant::now() + secs(180);
    let mut s = b.js(&format!("{SCROLL_UP}{STATE}"), vec![json!(300)]).await;
    loop {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let key = s["anchor"]["key"].as_str().unwrap_or_default().to_string();
        let expected = s["anchor"]["expected"].as_f64().unwrap_or(f64::NAN);
        let now = b.js(OFFSET_OF, vec![json!(key)]).await;
        let now = now.as_f64().unwrap_or(f64::NAN);
        if (now - expected).abs() > 1.0 {
            b.fail(&format!(
                "row {key} is at {now:.1} px, expected {expected:.1} px after scrolling ({s})"
            ))
            .await;
        }
        if s["rows"].as_u64().unwrap() > MAX_MOUNTED {
            b.fail(&format!("too many rows mounted: {s}")).await;
        }
        if s["beginning"].as_bool().unwrap() && s["scrollTop"].as_f64().unwrap() <= 0.5 {
            break;
        }
        if Instant::now() > deadline {
            b.fail(&format!("the beginning was not reached: {s}")).await;
        }
        s = b.js(&format!("{SCROLL_UP}{STATE}"), vec![json!(300)]).await;
    }
    // Every page came, down to seq 1, and only a window is mounted.
    assert_eq!(s["minSeq"], json!(1), "{s}");
    assert!(
        s["rows"].as_u64().unwrap() < 100,
        "only a window is mounted: {s}"
    );

    let watched = b.js(WATCHED, vec![]).await;
    let worst = watched["worst"]["drift"].as_f64().unwrap_or(f64::INFINITY);
    if worst > 1.0 {
        b.fail(&format!(
            "the top row moved in a painted frame: {}",
            watched["worst"]
        ))
        .await;
    }
    let max_rows = watched["maxRows"].as_u64().unwrap_or(u64::MAX);
    assert!(
        max_rows <= MAX_MOUNTED,
        "{max_rows} rows were mounted at once"
    );
    // The first page held the newest items; each older page was asked for
    // once, before the oldest seq loaded so far.
    let befores: Vec<Option<u64>> = watched["gets"]
        .as_array()
        .map(|g| g.iter().map(|f| f["before"].as_u64()).collect())
        .unwrap_or_default();
    let expected: Vec<Option<u64>> = (1..items / PAGE)
        .map(|page| Some(items - page * PAGE + 1))
        .collect();
    assert_eq!(befores, expected, "history.get frames: {}", watched["gets"]);
    app.assert_no_console_errors().await;
    app.close().await;
}

#[tokio::test]
async fn new_output_is_followed_at_the_bottom_and_announced_by_a_pill_otherwise() {
    let app = open_seeded(60, 60).await;
    let b = &app.browser;
    connected(b).await;

    // New output keeps the end in view (the seeded thread has no `ls`).
    at_the_end(b).await;
    send(b, "/demo tools").await;
    b.poll("the demo's first tool call", secs(20), || async {
        let texts = b.texts_of(".tool-text").await;
        texts.iter().any(|t| t.contains("ls -la")).then_some(())
    })
    .await;
    let s = state(b).await;
    assert!(s["toBottom"].as_f64().unwrap() <= 2.0, "not following: {s}");
    assert!(!s["pill"].as_bool().unwrap(), "{s}");

    // Scrolled up, new rows do not move the page: a pill says they came.
    b.js(
        "document.querySelector('[data-testid=timeline]').scrollTop -= 900;",
        vec![],
    )
    .await;
    let before = b
        .poll("the scroll up to take effect", secs(5), || async {
            let s = state(b).await;
            (s["toBottom"].as_f64()? > 600.0 && s["topKey"].is_string()).then_some(s)
        })
        .await;
    let key = before["topKey"].as_str().unwrap().to_string();
    let offset = before["topOffset"].as_f64().unwrap();
    b.wait_for("[data-testid=new-messages]", secs(30)).await;
    let now = b.js(OFFSET_OF, vec![json!(key)]).await;
    let now = now.as_f64().unwrap_or(f64::NAN);
    assert!(
        (now - offset).abs() <= 1.0,
        "row {key} moved from {offset:.1} to {now:.1} px while new rows arrived below"
    );

    // The pill jumps to the end and goes away.
    b.click("[data-testid=new-messages]").await;
    b.wait_gone("[data-testid=new-messages]", secs(5)).await;
    b.poll("the end in view", secs(5), || async {
        let s = state(b).await;
        (s["toBottom"].as_f64()? <= 2.0).then_some(())
    })
    .await;
    app.assert_no_console_errors().await;
    app.close().await;
}

/// A long answer streaming in grows its row on every frame: each painted
/// frame shows the end of it, not a screenful above (the list pins the
/// bottom from its ResizeObserver, after layout and before paint).
#[tokio::test]
async fn a_streamed_answer_is_followed_frame_by_frame() {
    let app = open_seeded(60, 0).await;
    let b = &app.browser;
    connected(b).await;
    at_the_end(b).await;
    send(b, "/demo stream 60").await;
    b.wait_for(".msg-assistant[data-streaming=true]", secs(20))
        .await;
    let mut seen = 0;
    while b.exists(".msg-assistant[data-streaming=true]").await {
        let s = state(b).await;
        if s["streaming"].as_bool() == Some(true) {
            seen += 1;
            let gap = s["toBottom"].as_f64().unwrap_or(f64::NAN);
            assert!(
                gap <= 2.0,
                "a streaming frame painted {gap} px above the end: {s}"
            );
        }
    }
    assert!(seen >= 3, "only {seen} frames sampled while streaming");
    at_the_end(b).await;
    app.assert_no_console_errors().await;
    app.close().await;
}

#[tokio::test]
async fn sending_while_scrolled_up_jumps_to_the_end() {
    let items = 400;
    let app = open_seeded(items, 20).await;
    let b = &app.browser;
    connected(b).await;
    at_the_end(b).await;

    // Read far back: older pages load and the end is no longer mounted.
    let back = b
        .poll("older pages above the reader", secs(20), || async {
            let s = b
                .js(
                    &format!(
                        "document.querySelector('[data-testid=timeline]').scrollTop = 0;{STATE}"
                    ),
                    vec![],
                )
                .await;
            let far = s["minSeq"].as_u64()? < items - 2 * PAGE && s["maxSeq"].as_u64()? < items;
            far.then_some(s)
        })
        .await;
    assert!(!back["pill"].as_bool().unwrap(), "{back}");

    // The reader's own message brings them to the end, where it shows.
    let text = "back to the end";
    send(b, &format!("/demo nostream {text}")).await;
    b.poll("the sent message on screen at the end", secs(5), || async {
        let on_screen = b.js(OWN_MESSAGE_ON_SCREEN, vec![json!(text)]).await;
        let s = state(b).await;
        let at_end = s["toBottom"].as_f64()? <= 2.0 && s["maxSeq"].as_u64()? >= items;
        (on_screen.as_bool()? && at_end).then_some(())
    })
    .await;
    let s = state(b).await;
    assert!(!s["pill"].as_bool().unwrap(), "no pill at the end: {s}");
    app.assert_no_console_errors().await;
    app.close().await;
}

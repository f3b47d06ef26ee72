//! The timeline of a long thread: the newest page first, older pages while
//! scrolling up without moving what the reader sees, the beginning marker,
//! only a window of rows mounted, following new output at the bottom and
//! the "new messages" pill otherwise. Threads come from the gateway's
//! `--seed-channel N` (channel `c_seed`, items with seqs 1..=N).

use serde_json::{json, Value};

use crate::support::{secs, App, Browser, GatewayOpts};

const COMPOSER: &str = "form[data-testid=composer] textarea";

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
};
"#;

/// Scrolls up by `arguments[0]` px; STATE after it then also has `anchor`:
/// the row that was on top and where it must be once the page settled.
const SCROLL_UP: &str = r#"
{
  const sc = document.querySelector('[data-testid=timeline]');
  const top = sc.getBoundingClientRect().top;
  const row = Array.from(sc.querySelectorAll('.row')).find(r => {
    const b = r.getBoundingClientRect();
    return b.bottom > top + 1 && b.top < top + sc.clientHeight && b.height > 0;
  });
  const before = sc.scrollTop;
  sc.scrollTop = before - arguments[0];
  window.__anchor = row
    ? { key: row.dataset.key, expected: row.getBoundingClientRect().top - top }
    : null;
}
"#;

/// The offset of row `key` from the top of the scroller, or null.
const OFFSET_OF: &str = r#"
const s = document.querySelector('[data-testid=timeline]');
const row = s.querySelector(`.row[data-key="${CSS.escape(arguments[0])}"]`);
return row ? row.getBoundingClientRect().top - s.getBoundingClientRect().top : null;
"#;

async fn state(b: &Browser) -> Value {
    b.js(STATE, vec![]).await
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

#[tokio::test]
async fn older_pages_load_above_without_moving_the_reading_position() {
    let items = 400;
    let app = open_seeded(items, 20).await;
    let b = &app.browser;

    // The newest page, scrolled to its end.
    let s = b
        .poll("the newest row at the bottom", secs(10), || async {
            let s = state(b).await;
            (s["toBottom"].as_f64()? <= 2.0).then_some(s)
        })
        .await;
    assert_eq!(s["maxSeq"], json!(items), "{s}");
    assert!(
        !s["beginning"].as_bool().unwrap(),
        "no beginning marker yet: {s}"
    );

    // Scroll up like a reader, a step at a time. After each step the row
    // that was at the top must have moved by exactly the distance scrolled,
    // older pages arriving above it or not.
    let mut s = b.js(&format!("{SCROLL_UP}{STATE}"), vec![json!(300)]).await;
    for _ in 0..600 {
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
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
        assert!(
            s["rows"].as_u64().unwrap() <= 300,
            "too many rows mounted: {s}"
        );
        if s["beginning"].as_bool().unwrap() && s["scrollTop"].as_f64().unwrap() <= 0.5 {
            break;
        }
        s = b.js(&format!("{SCROLL_UP}{STATE}"), vec![json!(300)]).await;
    }
    // All eight pages came, down to seq 1, and only a window is mounted.
    assert_eq!(s["minSeq"], json!(1), "{s}");
    assert!(
        s["rows"].as_u64().unwrap() < 100,
        "only a window is mounted: {s}"
    );
    app.assert_no_console_errors().await;
    app.close().await;
}

#[tokio::test]
async fn new_output_is_followed_at_the_bottom_and_announced_by_a_pill_otherwise() {
    let app = open_seeded(60, 60).await;
    let b = &app.browser;
    b.wait_for("[data-testid=conn-status][data-state=connected]", secs(20))
        .await;

    // The reader's own message brings the end into view, and new output
    // keeps it there.
    b.type_into(COMPOSER, "/demo tools").await;
    b.press_enter(COMPOSER).await;
    b.wait_for(".tool-card", secs(20)).await;
    let s = state(b).await;
    assert!(
        s["toBottom"].as_f64().unwrap() <= 48.0,
        "not following: {s}"
    );
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
            (s["toBottom"].as_f64()? > 600.0).then_some(s)
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
        (s["toBottom"].as_f64()? <= 48.0).then_some(())
    })
    .await;
    app.assert_no_console_errors().await;
    app.close().await;
}

//! Malformed and adversarial frames from the gateway: invalid JSON, unknown
//! types, missing and ill-typed fields, unknown ids, frames out of order, a
//! 1 MiB frame, a burst of 10,000 frames. No panic, the rest of the state
//! intact, the UI responsive, and undecodable frames counted in the
//! diagnostics view.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::bursts::{burst_frames, one_mib_message};
use crate::support::connection::{assert_no_crash, diagnostics, status};
use crate::support::fake_gateway::{FakeGateway, FakeOpts};
use crate::support::timeline::{show_rows, timeline};
use crate::support::ui::{send, CONNECTED};
use crate::support::{secs, Browser, Page};

const CH: &str = "c1";
/// The thread that gets the 1 MiB answer.
const BIG: &str = "c2";

fn user(seq: u64, text: &str) -> Value {
    json!({"type": "message", "seq": seq, "message_id": format!("mu{seq}"), "role": "user",
        "text": text, "ts": 1_700_000_000_000i64})
}

fn answer(seq: u64, text: &str) -> Value {
    json!({"type": "message", "seq": seq, "message_id": format!("ma{seq}"), "role": "assistant",
        "text": text, "model": "m", "tokens": 3, "ts": 1_700_000_000_000i64})
}

fn live(mut item: Value) -> Value {
    item["channel_id"] = json!(CH);
    item
}

/// Frames that cannot be decoded at all: each must be dropped and counted.
fn undecodable() -> Vec<String> {
    let mut deep = String::new();
    for _ in 0..10_000 {
        deep.push('[');
    }
    vec![
        "{not json".into(),
        "".into(),
        "null".into(),
        "[]".into(),
        "42".into(),
        "\"just a string\"".into(),
        "{\"type\": 5}".into(),
        "{\"no_type\": true}".into(),
        // Known types with missing or ill-typed required fields.
        json!({"type": "message.update"}).to_string(),
        json!({"type": "message.update", "channel_id": CH, "message_id": 7, "text": "x"})
            .to_string(),
        json!({"type": "typing", "channel_id": CH, "on": "yes"}).to_string(),
        json!({"type": "message", "channel_id": CH, "seq": "three", "message_id": "x",
            "role": "assistant", "text": "ill-typed seq", "ts": 1})
        .to_string(),
        json!({"type": "message", "channel_id": CH, "seq": -1, "message_id": "x",
            "role": "assistant", "text": "negative seq", "ts": 1})
        .to_string(),
        json!({"type": "tool.end", "channel_id": CH, "index": -1, "seq": 9, "name": "t",
            "ok": true, "duration": 1, "output_preview": ""})
        .to_string(),
        json!({"type": "history", "channel_id": CH, "items": "not a list", "has_more": false})
            .to_string(),
        json!({"type": "ready", "protocol": "one"}).to_string(),
        json!({"type": "channel.list", "channels": [{"title": "no id"}]}).to_string(),
        "{\"type\": \"message\", \"seq\": 18446744073709551616}".into(),
        "{\"type\": \"typing\", \"channel_id\": \"\\ud800\", \"on\": true}".into(),
        // Nesting deep enough to overflow a naive recursive parser.
        deep,
        // Cut off in the middle.
        "{\"type\": \"typing\", \"channel_id\": \"c1\", \"on\": true".into(),
    ]
}

/// Frames that decode but make no sense here: unknown ids, out of order,
/// repeated. They must change nothing they should not.
fn nonsense() -> Vec<Value> {
    let t = "tx";
    vec![
        // Unknown types and ids.
        json!({"type": "frobnicate", "channel_id": CH, "x": 1}),
        json!({"type": "typing", "channel_id": "ghost", "on": true}),
        json!({"type": "message.start", "channel_id": "ghost", "turn_id": t, "message_id": "g",
            "role": "assistant", "ts": 1}),
        json!({"type": "message.stop", "channel_id": "ghost", "turn_id": t, "message_id": "g",
            "seq": 1, "final_text": "ghost", "ts": 1}),
        json!({"type": "tool.end", "channel_id": "ghost", "turn_id": t, "index": 1, "seq": 1,
            "name": "t", "ok": true, "duration": 1.0, "output_preview": ""}),
        json!({"type": "channel.renamed", "channel_id": "ghost", "title": "ghost"}),
        json!({"type": "channel.deleted", "channel_id": "ghost"}),
        json!({"type": "history", "channel_id": "ghost", "items": [], "has_more": false}),
        json!({"type": "history", "channel_id": CH, "items": [{"type": "mystery", "seq": 50}],
            "has_more": false}),
        json!({"type": "error", "code": "no_such_code", "message": "odd error code"}),
        json!({"type": "error", "code": "not_found", "channel_id": "ghost",
            "message": "ghost thread"}),
        json!({"type": "pong", "t": "unasked"}),
        // Out of order: update before start, stop before start, stop twice.
        json!({"type": "message.update", "channel_id": CH, "turn_id": t, "message_id": "early",
            "text": "update before start"}),
        json!({"type": "message.stop", "channel_id": CH, "turn_id": t, "message_id": "early",
            "seq": 3, "final_text": "stop without start", "ts": 2}),
        json!({"type": "message.start", "channel_id": CH, "turn_id": t, "message_id": "early",
            "role": "assistant", "ts": 3}),
        json!({"type": "message.update", "channel_id": CH, "turn_id": t, "message_id": "early",
            "text": "an update after the stop must not reopen it"}),
        json!({"type": "message.stop", "channel_id": CH, "turn_id": t, "message_id": "early",
            "seq": 3, "final_text": "stopped twice", "ts": 4}),
        // A tool that ends before it starts, progress for a tool never started.
        json!({"type": "tool.end", "channel_id": CH, "turn_id": t, "index": 5, "seq": 4,
            "name": "late_start", "ok": true, "duration": 0.1, "output_preview": "done"}),
        json!({"type": "tool.start", "channel_id": CH, "turn_id": t, "index": 5,
            "name": "late_start", "preview": "p", "args": {}}),
        json!({"type": "tool.progress", "channel_id": CH, "turn_id": t, "index": 99,
            "name": "never", "note": "progress of a tool never started"}),
        // Seq going backwards: an older seq with another id, and seq 0.
        live(answer(1, "a rewrite of seq 1 must not replace it")),
        live(
            json!({"type": "message", "seq": 0, "message_id": "zero", "role": "assistant",
            "text": "seq zero", "ts": 1}),
        ),
        json!({"type": "typing", "channel_id": CH, "on": false}),
        json!({"type": "typing", "channel_id": CH, "on": false}),
        // Odd but well-typed values.
        live(
            json!({"type": "message", "seq": 5, "message_id": "odd", "role": "wizard",
            "text": "\u{0}\u{202e}odd role\u{feff}", "tokens": u64::MAX, "ts": i64::MIN}),
        ),
        json!({"type": "tool.end", "channel_id": CH, "turn_id": "ty", "index": u32::MAX,
            "seq": 6, "name": "", "ok": false, "duration": -1.0e308, "output_preview": "",
            "output": null}),
        json!({"type": "channel.renamed", "channel_id": CH, "title": ""}),
        json!({"type": "channel.renamed", "channel_id": CH, "title": "x".repeat(10_000)}),
        json!({"type": "channel.renamed", "channel_id": CH, "title": "Still here"}),
    ]
}

/// Records the longest task (Long Tasks API) and the longest gap between
/// animation frames from now on, in `window.__monitor`.
const MONITOR: &str = r#"
window.__monitor = { longestTask: 0, maxFrameGap: 0 };
window.__stopMonitor = false;
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    window.__monitor.longestTask = Math.max(window.__monitor.longestTask, e.duration);
  }
}).observe({ type: 'longtask' });
let last = performance.now();
const tick = t => {
  window.__monitor.maxFrameGap = Math.max(window.__monitor.maxFrameGap, t - last);
  last = t;
  if (!window.__stopMonitor) requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"#;

/// How the UI kept up with a burst.
struct Burst {
    frames: usize,
    /// From the first frame sent to the last one's row on screen.
    took: Duration,
    /// The longest task (0: none over 50 ms, the Long Tasks API's floor).
    longest_task: f64,
    /// The longest gap between animation frames.
    frame_gap: f64,
}

impl Burst {
    /// Fails if the UI froze: a task over `longest_ms` (input waits that
    /// long) or a gap of over a second between animation frames (nothing
    /// painted).
    async fn check(&self, b: &Browser, longest_ms: f64) {
        if self.longest_task > longest_ms || self.frame_gap > 1000.0 {
            b.fail(&format!(
                "the UI froze during a burst of {} frames: longest task {:.0} ms, \
                 longest gap between animation frames {:.0} ms",
                self.frames, self.longest_task, self.frame_gap
            ))
            .await;
        }
    }
}

/// Pushes a burst ending in the `after_burst` message and measures how the
/// UI kept up.
async fn push_burst(b: &Browser, fake: &FakeGateway, burst: Vec<String>) -> Burst {
    let n = burst.len();
    b.js(MONITOR, vec![]).await;
    let sent = Instant::now();
    fake.push_all(burst);
    let mut worst_lag = Duration::ZERO;
    loop {
        worst_lag = worst_lag.max(lag(b).await);
        if b.exists(".row[data-key='m:after_burst']").await {
            break;
        }
        if sent.elapsed() > secs(60) {
            b.fail(&format!(
                "the message after a burst of {n} frames did not show within 60 s"
            ))
            .await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let took = sent.elapsed();
    let m = b
        .js(
            "window.__stopMonitor = true; return window.__monitor;",
            vec![],
        )
        .await;
    let burst = Burst {
        frames: n,
        took,
        longest_task: m["longestTask"].as_f64().unwrap_or(0.0),
        frame_gap: m["maxFrameGap"].as_f64().unwrap_or(0.0),
    };
    eprintln!(
        "burst of {n} frames handled in {took:?}; longest task {:.0} ms, longest \
         gap between frames {:.0} ms, worst WebDriver round trip {worst_lag:?}",
        burst.longest_task, burst.frame_gap
    );
    burst
}

/// The longest task allowed during the burst with a 1 MiB answer on
/// screen: the Long Tasks API reports only tasks over 50 ms, so any report
/// fails. Measured with a release `cargo build` beside it (load 2.9-3.9):
/// 0 ms in 8 of 8 runs; the build before the list stopped forcing a layout
/// in every update had a 56 ms task in 1 of 5 (bench/history/2026-11-30-to-12-03.md, "Bursts: the test's allowance at 50 ms").
const BURST_LONGEST_MS: f64 = 50.0;

/// The same burst while a 1 MiB answer is on screen. A long task can be
/// the machine's (another process, a collection at the wrong moment) more
/// than the app's: 0 ms in 21 runs here, even with a core kept busy, and
/// 73 ms once in a CI run. So one is measured again on a fresh page, and
/// fails if it comes back.
#[tokio::test]
async fn a_burst_while_a_1_mib_answer_is_on_screen_keeps_the_ui_responsive() {
    let first = {
        let (_fake, page, burst) = burst_beside_a_1_mib_answer().await;
        page.browser.close().await;
        burst.longest_task
    };
    if first <= BURST_LONGEST_MS {
        return;
    }
    eprintln!("a {first:.0} ms task in the first burst: measuring it again");
    let (_fake, page, again) = burst_beside_a_1_mib_answer().await;
    again.check(&page.browser, BURST_LONGEST_MS).await;
    page.browser.close().await;
}

/// Opens a thread with a 1 MiB answer, pushes a burst of 10,000 frames
/// and checks that the answer's row stayed mounted and nothing crashed.
async fn burst_beside_a_1_mib_answer() -> (FakeGateway, Page, Burst) {
    let fake = FakeGateway::start(FakeOpts::default()).await;
    fake.add_channel(json!({"channel_id": BIG, "title": "Big", "last_seq": 0}));
    let page = Page::open(&fake.ws_url(), "#/t/c2").await;
    let b = &page.browser;
    b.wait_for(CONNECTED, secs(20)).await;
    fake.push_text(one_mib_message(BIG, 1));
    b.wait_for(".row[data-key='m:big']", secs(30)).await;
    tokio::time::sleep(secs(1)).await;
    // The answer's row stays mounted, untouched, while rows after it come
    // and change: mounting it again lays out 1 MiB of text (300+ ms).
    b.js(
        "document.querySelector(\".row[data-key='m:big']\").__before_burst = true;",
        vec![],
    )
    .await;
    let burst = push_burst(b, &fake, burst_frames(BIG, 2, 10_000)).await;
    let same = b
        .js(
            "const e = document.querySelector(\".row[data-key='m:big']\"); \
             return !!(e && e.__before_burst);",
            vec![],
        )
        .await;
    if same != json!(true) {
        b.fail("the 1 MiB answer's row was mounted again during the burst")
            .await;
    }
    burst.check(b, 1000.0).await;
    assert_no_crash(b).await;
    (fake, page, burst)
}

/// Opens a thread through the URL, as a link would.
async fn open_thread(b: &Browser, id: &str, title: &str) {
    b.js("location.hash = '#/t/' + arguments[0];", vec![json!(id)])
        .await;
    b.poll(
        &format!("the thread {title:?} to open"),
        secs(10),
        || async {
            (b.try_text_of("[data-testid=chat-title]").await.as_deref() == Some(title))
                .then_some(())
        },
    )
    .await;
}

/// How long a trivial script takes to come back: the main thread's lag.
async fn lag(b: &Browser) -> Duration {
    let t = Instant::now();
    b.js("return 1;", vec![]).await;
    t.elapsed()
}

async fn row_text(b: &Browser, seq: u64) -> Option<String> {
    b.try_text_of(&format!(
        ".row[data-seq='{seq}'] .msg-text, .row[data-seq='{seq}'] .msg-body"
    ))
    .await
    .map(|t| t.trim().to_string())
}

#[tokio::test]
async fn malformed_and_adversarial_frames_leave_the_app_working() {
    let fake = FakeGateway::start(FakeOpts::default()).await;
    fake.add_channel(json!({"channel_id": CH, "title": "Intact", "last_seq": 0}));
    fake.add_channel(json!({"channel_id": BIG, "title": "Big", "last_seq": 0}));
    fake.log_item(CH, user(1, "the question"));
    fake.log_item(CH, answer(2, "the intact answer"));
    let page = Page::open(&fake.ws_url(), "#/t/c1").await;
    let b = &page.browser;
    b.wait_for(CONNECTED, secs(20)).await;
    b.poll("the thread's history", secs(10), || async {
        (row_text(b, 2).await.as_deref() == Some("the intact answer")).then_some(())
    })
    .await;
    let (_, dropped_before) = diagnostics(b).await;

    // 1. Undecodable frames, and a binary frame (ignored, not an error).
    let bad = undecodable();
    let n_bad = bad.len() as u64;
    fake.push_all(bad);
    fake.push_binary(vec![0, 159, 146, 150, 255]);
    // 2. Decodable nonsense.
    fake.push_all(nonsense().iter().map(Value::to_string).collect());
    fake.push(
        json!({"type": "message", "channel_id": CH, "seq": 7, "message_id": "marker1",
        "role": "assistant", "text": "after the garbage", "ts": 5}),
    );
    b.poll("the marker after the garbage", secs(10), || async {
        b.exists(".row[data-key='m:marker1']").await.then_some(())
    })
    .await;
    assert_no_crash(b).await;
    assert_eq!(status(b).await, "connected");
    let (_, dropped) = diagnostics(b).await;
    assert!(
        dropped >= dropped_before + n_bad,
        "{n_bad} undecodable frames were sent, the diagnostics count {} dropped",
        dropped - dropped_before
    );
    // The rest of the state is intact.
    assert_eq!(row_text(b, 1).await.as_deref(), Some("the question"));
    assert_eq!(row_text(b, 2).await.as_deref(), Some("the intact answer"));
    let title = b.text_of("[data-testid=chat-title]").await;
    assert_eq!(title, "Still here");
    let rows = timeline(b).await;
    let stopped = rows
        .iter()
        .filter(|r| r.text.contains("stop without start") || r.text.contains("stopped twice"))
        .count();
    assert_eq!(
        stopped,
        1,
        "the message stopped twice shows once:\n{}",
        show_rows(&rows)
    );
    assert!(
        !rows.iter().any(|r| r.text.contains("must not")),
        "a late update or a seq rewrite changed a final message:\n{}",
        show_rows(&rows)
    );
    assert!(!rows.iter().any(|r| r.flags.contains("streaming")));
    // Still usable: a message goes out and comes back.
    send(b, "still alive").await;
    b.poll("the echo of \"still alive\"", secs(5), || async {
        let texts = b.texts_of(".msg-user:not(.pending) .msg-text").await;
        texts.iter().any(|t| t == "still alive").then_some(())
    })
    .await;

    // 3. A 1 MiB answer (in a thread of its own), and a 1 MiB frame of garbage.
    open_thread(b, BIG, "Big").await;
    let sent = Instant::now();
    fake.push_text(one_mib_message(BIG, 1));
    fake.push_text(format!(
        "{{\"type\": \"message\", \"text\": \"{}",
        "z".repeat(1024 * 1024 - 40)
    ));
    fake.push(
        json!({"type": "message", "channel_id": BIG, "seq": 2, "message_id": "after_big",
        "role": "assistant", "text": "after the big one", "ts": 7}),
    );
    b.poll("the message after the 1 MiB one", secs(30), || async {
        b.exists(".row[data-key='m:after_big']").await.then_some(())
    })
    .await;
    let big_took = sent.elapsed();
    let lag_after_big = lag(b).await;
    assert!(
        lag_after_big < Duration::from_secs(2),
        "the page lags {lag_after_big:?} after a 1 MiB message"
    );
    let shown = b
        .js(
            "const e = document.querySelector(\".row[data-key='m:big'] .msg-body\"); \
             return e ? e.textContent.length : 0;",
            vec![],
        )
        .await;
    assert!(
        shown.as_u64().unwrap_or(0) > 1_000_000,
        "the 1 MiB answer shows {shown} characters"
    );
    open_thread(b, CH, "Still here").await;

    // 4. A burst of 10,000 frames: one streamed answer with thousands of
    // snapshots, a tool with thousands of progress notes, then the end.
    let burst = burst_frames(CH, 32, 10_000);
    let n_burst = burst.len() as u64;
    assert!(n_burst >= 10_000);
    let (frames_before, _) = diagnostics(b).await;
    // Boxed: this test's future is big already (libtest's 2 MiB stack).
    let pushed = Box::pin(push_burst(b, &fake, burst)).await;
    Box::pin(pushed.check(b, 500.0)).await;
    let burst_took = pushed.took;
    b.poll("the burst's final text", secs(10), || async {
        (b.text_of(".row[data-key='m:burst'] .msg-body").await.trim() == "burst is over")
            .then_some(())
    })
    .await;
    assert!(!b.exists(".tool-card[data-state=running]").await);
    let (frames_after, _) = diagnostics(b).await;
    assert!(
        frames_after >= frames_before + n_burst,
        "the diagnostics count {} frames for a burst of {n_burst}",
        frames_after - frames_before
    );
    eprintln!(
        "adversarial: 1 MiB message shown after {big_took:?}, burst of {n_burst} frames \
         handled in {burst_took:?}"
    );
    assert_eq!(status(b).await, "connected");
    assert_no_crash(b).await;
    page.browser.close().await;
}

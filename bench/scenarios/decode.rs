//! Decode + apply: typical frames fed straight to the app's own WebSocket
//! handler (JSON text → `protocol` decode → `Store::apply`, in wasm), timed
//! in the page without the network.

use serde_json::{json, Value};

use super::{Sizes, Urls};
use crate::measure::{max, median};
use crate::page::Page;
use crate::report::{Report, Target};

const SCENARIO: &str = "Decode + apply";
/// Channels of their own, so the replay does not touch what is on screen.
const CHANNEL: &str = "c_bench_decode";
const WARMUP: &str = "c_bench_warmup";
/// Turns replayed before measuring.
const WARMUP_TURNS: usize = 1000;
/// Turns per round trip to the page.
const TURNS_PER_CALL: usize = 250;

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    page.open(&urls.with("", "")).await;
    // A first pass on a channel of its own lets V8 tier the wasm up to
    // optimized code, as it is in a page that has been open for a while.
    replay(page, &[channel_created(WARMUP, "Decode warm-up")]).await;
    let mut seq = 0;
    for turn_range in chunks(WARMUP_TURNS.min(sizes.decode_turns)) {
        let texts = turn_frames(WARMUP, turn_range, &mut seq);
        replay(page, &texts).await;
    }

    replay(page, &[channel_created(CHANNEL, "Decode benchmark")]).await;
    let mut seq = 0;
    let mut per_chunk = Vec::new();
    let (mut frames, mut ms, mut bytes, mut count) = (0.0, 0.0, 0, 0);
    for turn_range in chunks(sizes.decode_turns) {
        let texts = turn_frames(CHANNEL, turn_range, &mut seq);
        bytes += texts
            .iter()
            .map(|t| t.as_str().map_or(0, str::len))
            .sum::<usize>();
        count += texts.len();
        let r = replay(page, &texts).await;
        let (f, t) = (
            r["frames"].as_f64().unwrap_or(f64::NAN),
            r["ms"].as_f64().unwrap_or(f64::NAN),
        );
        per_chunk.push(f / (t / 1000.0));
        frames += f;
        ms += t;
    }
    report.metric(
        SCENARIO,
        "typical frames per second (median of chunks)",
        median(&per_chunk),
        "frames/s",
        Some(Target::AtLeast(100_000.0)),
    );
    report.metric(
        SCENARIO,
        "typical frames per second (all chunks)",
        frames / (ms / 1000.0),
        "frames/s",
        None,
    );
    report.check(
        SCENARIO,
        format!("all {count} frames went through the handler"),
        frames as usize == count,
    );
    let listed = page
        .js(
            "return document.querySelector('[data-testid=sidebar]').textContent.includes('Decode benchmark');",
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        "the replayed thread shows in the thread list",
        listed == json!(true),
    );
    report.note(
        SCENARIO,
        format!(
            "fastest chunk {:.0} frames/s; {count} frames of {} turns (user message, typing, tool start/progress/end, commentary, a streamed answer of 3 snapshots) in chunks of {TURNS_PER_CALL} turns, after a warm-up of {WARMUP_TURNS} turns; {:.0} bytes each on average, {ms:.1} ms in the handler; chunk throughputs {:.0?}",
            max(&per_chunk),
            sizes.decode_turns,
            bytes as f64 / count.max(1) as f64,
            per_chunk
        ),
    );
}

/// The turns in calls of [`TURNS_PER_CALL`].
fn chunks(turns: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..turns.div_ceil(TURNS_PER_CALL))
        .map(move |c| c * TURNS_PER_CALL..((c + 1) * TURNS_PER_CALL).min(turns))
}

fn turn_frames(channel: &str, turns: std::ops::Range<usize>, seq: &mut u64) -> Vec<Value> {
    turns
        .flat_map(|t| turn(channel, t, seq))
        .map(|f| json!(f.to_string()))
        .collect()
}

async fn replay(page: &Page<'_>, frames: &[Value]) -> Value {
    page.js_async(
        "const texts = arguments[0].map(f => typeof f === 'string' ? f : JSON.stringify(f)); \
         const done = arguments[arguments.length - 1]; \
         window.__bench.replay(texts, 1, 1).then(done, e => done({ error: String(e) }));",
        vec![json!(frames)],
    )
    .await
}

fn channel_created(channel: &str, title: &str) -> Value {
    json!({
        "type": "channel.created",
        "channel": {
            "channel_id": channel, "title": title, "created_at": 1,
            "updated_at": 1, "auto": false, "last_seq": 0
        },
        "auto": false
    })
}

/// One typical turn: 12 frames, 4 of them logged with consecutive seqs.
fn turn(c: &str, t: usize, seq: &mut u64) -> Vec<Value> {
    let mut next = || {
        *seq += 1;
        *seq
    };
    let turn = format!("turn_{t}");
    let msg = format!("msg_{t}");
    let answer =
        "The repository has **three** crates: `protocol`, the gateway and the web client. ";
    vec![
        json!({"type": "message", "channel_id": c, "message_id": format!("user_{t}"), "seq": next(),
               "role": "user", "text": format!("Please summarize module {t} and list its public functions."),
               "ts": 1_700_000_000_000_u64 + t as u64, "client_msg_id": format!("k_{t}")}),
        json!({"type": "typing", "channel_id": c, "on": true}),
        json!({"type": "tool.start", "channel_id": c, "turn_id": turn, "index": 1, "name": "read_file",
               "emoji": "📖", "preview": format!("src/module_{t}.rs"), "args": {"path": format!("src/module_{t}.rs")}}),
        json!({"type": "tool.progress", "channel_id": c, "turn_id": turn, "index": 1, "name": "read_file",
               "note": "reading 240 lines"}),
        json!({"type": "tool.end", "channel_id": c, "turn_id": turn, "index": 1, "seq": next(),
               "name": "read_file", "ok": true, "duration": 0.12, "output_preview": "240 lines"}),
        json!({"type": "commentary", "channel_id": c, "turn_id": turn, "message_id": format!("note_{t}"),
               "seq": next(), "text": "I read the module; now writing the summary.", "ts": 1_700_000_000_000_u64}),
        json!({"type": "message.start", "channel_id": c, "turn_id": turn, "message_id": msg,
               "role": "assistant", "ts": 1_700_000_000_000_u64}),
        json!({"type": "message.update", "channel_id": c, "turn_id": turn, "message_id": msg,
               "text": answer}),
        json!({"type": "message.update", "channel_id": c, "turn_id": turn, "message_id": msg,
               "text": answer.repeat(2)}),
        json!({"type": "message.update", "channel_id": c, "turn_id": turn, "message_id": msg,
               "text": answer.repeat(3)}),
        json!({"type": "message.stop", "channel_id": c, "turn_id": turn, "message_id": msg, "seq": next(),
               "final_text": answer.repeat(3), "model": "aria-demo", "tokens": 60,
               "ts": 1_700_000_000_000_u64}),
        json!({"type": "typing", "channel_id": c, "on": false}),
    ]
}

//! Decode + apply: typical frames fed straight to the app's own WebSocket
//! handler (JSON text → `protocol` decode → `Store::apply`, in wasm), timed
//! in the page without the network.

use serde_json::{json, Value};

use super::{Sizes, Urls};
use crate::page::Page;
use crate::report::{Report, Target};

const SCENARIO: &str = "Decode + apply";
/// A channel of its own, so the replay does not touch what is on screen.
const CHANNEL: &str = "c_bench_decode";
/// Turns per round trip to the page.
const TURNS_PER_CALL: usize = 250;

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    page.open(&urls.with("", "")).await;
    replay(page, &[channel_created()]).await;
    let mut frames = 0.0;
    let mut ms = 0.0;
    let mut seq = 0;
    let mut bytes = 0;
    let mut count = 0;
    for chunk in 0..sizes.decode_turns.div_ceil(TURNS_PER_CALL) {
        let first = chunk * TURNS_PER_CALL;
        let last = (first + TURNS_PER_CALL).min(sizes.decode_turns);
        let texts: Vec<String> = (first..last)
            .flat_map(|t| turn(t, &mut seq))
            .map(|f| f.to_string())
            .collect();
        bytes += texts.iter().map(String::len).sum::<usize>();
        count += texts.len();
        let r = replay(page, &texts.iter().map(|t| json!(t)).collect::<Vec<_>>()).await;
        frames += r["frames"].as_f64().unwrap_or(f64::NAN);
        ms += r["ms"].as_f64().unwrap_or(f64::NAN);
    }
    report.metric(
        SCENARIO,
        "typical frames per second",
        frames / (ms / 1000.0),
        "frames/s",
        Some(Target::AtLeast(100_000.0)),
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
            "{count} frames of {} turns (user message, typing, tool start/progress/end, commentary, a streamed answer of 3 snapshots), {:.0} bytes each on average, {:.1} ms in the handler",
            sizes.decode_turns,
            bytes as f64 / count.max(1) as f64,
            ms
        ),
    );
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

fn channel_created() -> Value {
    json!({
        "type": "channel.created",
        "channel": {
            "channel_id": CHANNEL, "title": "Decode benchmark", "created_at": 1,
            "updated_at": 1, "auto": false, "last_seq": 0
        },
        "auto": false
    })
}

/// One typical turn: 12 frames, 4 of them logged with consecutive seqs.
fn turn(t: usize, seq: &mut u64) -> Vec<Value> {
    let mut next = || {
        *seq += 1;
        *seq
    };
    let turn = format!("turn_{t}");
    let msg = format!("msg_{t}");
    let answer =
        "The repository has **three** crates: `protocol`, the gateway and the web client. ";
    let c = CHANNEL;
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

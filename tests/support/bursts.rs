//! Frames for the burst tests and the bench's burst scenario: a 1 MiB
//! answer, and a burst of 10,000 frames after it.

use serde_json::json;

/// Exactly 1 MiB on the wire, the most a gateway may send (§8): an answer
/// at `seq` in `channel`.
pub fn one_mib_message(channel: &str, seq: u64) -> String {
    let frame = |text: &str| {
        json!({"type": "message", "channel_id": channel, "seq": seq, "message_id": "big",
            "role": "assistant", "text": text, "ts": 6})
        .to_string()
    };
    let room = 1024 * 1024 - frame("").len();
    let big: String = "All work and no play makes a long answer. "
        .repeat(room / 42 + 1)
        .chars()
        .take(room)
        .collect();
    let out = frame(&big);
    assert_eq!(out.len(), 1024 * 1024);
    out
}

/// A burst of `n` frames (at least 8) in `channel`: a turn whose answer
/// gets about `n / 2` snapshots (2–4 KB, sometimes shrinking) while a tool
/// gets as many progress notes, then its end, and a final message
/// `after_burst`. Logged items take seqs from `seq`.
pub fn burst_frames(channel: &str, seq: u64, n: usize) -> Vec<String> {
    let mut burst: Vec<String> = Vec::with_capacity(n);
    let t = "tburst";
    burst.push(json!({"type": "typing", "channel_id": channel, "on": true}).to_string());
    burst.push(
        json!({"type": "tool.start", "channel_id": channel, "turn_id": t, "index": 1,
        "name": "terminal", "preview": "yes", "args": {"command": "yes"}})
        .to_string(),
    );
    burst.push(
        json!({"type": "message.start", "channel_id": channel, "turn_id": t,
        "message_id": "burst", "role": "assistant", "ts": 8})
        .to_string(),
    );
    let mut text = String::new();
    while burst.len() < n.max(8) - 4 {
        let i = burst.len();
        if i.is_multiple_of(2) {
            text.push_str(&format!("word{i} "));
            if text.len() > 4000 {
                text = text[text.len() / 2..].to_string(); // snapshots may shrink
            }
            burst.push(
                json!({"type": "message.update", "channel_id": channel, "turn_id": t,
                "message_id": "burst", "text": text})
                .to_string(),
            );
        } else {
            burst.push(
                json!({"type": "tool.progress", "channel_id": channel, "turn_id": t,
                "index": 1, "name": "terminal", "note": format!("line {i}")})
                .to_string(),
            );
        }
    }
    burst.push(
        json!({"type": "tool.end", "channel_id": channel, "turn_id": t, "index": 1,
        "seq": seq, "name": "terminal", "ok": true, "duration": 2.0,
        "output_preview": "y"})
        .to_string(),
    );
    burst.push(
        json!({"type": "message.stop", "channel_id": channel, "turn_id": t,
        "message_id": "burst", "seq": seq + 1, "final_text": "burst is over", "model": "m",
        "tokens": 1, "ts": 9})
        .to_string(),
    );
    burst.push(json!({"type": "typing", "channel_id": channel, "on": false}).to_string());
    burst.push(json!({"type": "message", "channel_id": channel, "seq": seq + 2, "message_id": "after_burst",
        "role": "assistant", "text": "after the burst", "ts": 10}).to_string());
    burst
}

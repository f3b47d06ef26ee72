//! SIGKILL under load: the real binary is killed while 100 devices receive
//! streaming turns and 20 devices send messages, each to its own thread,
//! then started again on the same data dir. Every message echoed before
//! the kill must be logged exactly once; the senders resend every message
//! (accepted or not, as a client's outbox would after losing the socket)
//! and each is then logged once and answered at most once; every receiver
//! catches up from history to exactly the log.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::support::process::Process;
use crate::support::Client;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

const RECEIVERS: usize = 100;
const SENDERS: usize = 20;
/// The demo's step: a default answer streams for about half a second.
const STEP_MS: u64 = 40;
/// Room for every test socket from 127.0.0.1, and for the auditor's
/// history requests (rate limits are not what this test is about).
const FLAGS: &[&str] = &[
    "--max-sockets-per-address",
    "400",
    "--max-frames-per-sec",
    "1000",
    "--frame-burst",
    "1000",
];

/// The text of sender `s`'s message `i`; the demo's answer quotes it.
fn text(s: usize, i: usize) -> String {
    format!("note «{s:02}-{i:03}»")
}

fn id(s: usize, i: usize) -> String {
    format!("sk-{s:02}-{i:03}")
}

/// Everything a receiver saw live: each logged item's (channel, seq), in
/// the order received.
async fn receive(mut client: Client) -> Vec<(String, u64)> {
    let mut seen = Vec::new();
    // Ends when the socket does (the kill).
    while let Some(Ok(message)) = client.ws.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        // Only logged items carry a seq; the rest need not be parsed.
        if !text.contains("\"seq\"") {
            continue;
        }
        let frame: Value = serde_json::from_str(&text).expect("json");
        if let (Some(channel), Some(seq)) = (frame["channel_id"].as_str(), frame["seq"].as_u64()) {
            seen.push((channel.to_string(), seq));
        }
    }
    seen
}

/// Sends message after message to `channel` until the socket dies; returns
/// the ids sent and the ids echoed (with their seq).
async fn send_until_killed(
    mut client: Client,
    s: usize,
    channel: String,
) -> (Vec<String>, BTreeMap<String, u64>) {
    let mut sent = Vec::new();
    let mut echoed = BTreeMap::new();
    for i in 0.. {
        let frame = json!({"type": "message.send", "channel_id": channel, "text": text(s, i), "client_msg_id": id(s, i)});
        sent.push(id(s, i));
        if futures_util::SinkExt::send(&mut client.ws, Message::text(frame.to_string()))
            .await
            .is_err()
        {
            break;
        }
        // Until the echo, or the end of the socket.
        let echo = loop {
            match client.ws.next().await {
                Some(Ok(Message::Text(t))) => {
                    let f: Value = serde_json::from_str(&t).expect("json");
                    if f["type"] == "message" && f["client_msg_id"] == id(s, i).as_str() {
                        break Some(f);
                    }
                }
                Some(Ok(_)) => {}
                _ => break None,
            }
        };
        let Some(echo) = echo else { break };
        echoed.insert(id(s, i), echo["seq"].as_u64().expect("seq"));
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    (sent, echoed)
}

/// Every item of `channel` as (seq, item), oldest first.
async fn whole_log(client: &mut Client, channel: &str) -> Vec<(u64, Value)> {
    let mut items = Vec::new();
    let mut after = 0u64;
    loop {
        let page = client
            .history(json!({"channel_id": channel, "after": after, "limit": 200}))
            .await;
        assert_eq!(page["type"], "history", "{page}");
        let got = page["items"].as_array().expect("items").clone();
        for item in got.iter() {
            after = item["seq"].as_u64().expect("seq");
            items.push((after, item.clone()));
        }
        if page["has_newer"] != true || got.is_empty() {
            return items;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_load_loses_nothing_runs_nothing_twice_and_everyone_catches_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = Process::start(dir.path(), STEP_MS, FLAGS);
    let mut setup = Client::connect(&first.ws_url, None).await;
    let mut channels = Vec::new();
    for s in 0..SENDERS {
        channels.push(setup.create_channel(&format!("sender {s}")).await);
    }
    let mut receivers = Vec::new();
    for _ in 0..RECEIVERS {
        let client = Client::connect(&first.ws_url, None).await;
        receivers.push(tokio::spawn(receive(client)));
    }
    let mut senders = Vec::new();
    for (s, channel) in channels.iter().enumerate() {
        let client = Client::connect(&first.ws_url, None).await;
        senders.push(tokio::spawn(send_until_killed(client, s, channel.clone())));
    }
    // Turns stream in every thread; then the kill.
    setup.recv_type("message.update").await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    first.sigkill();

    let mut sent = Vec::new();
    let mut echoed = BTreeMap::new();
    for sender in senders {
        let (ids, echoes) = sender.await.expect("sender");
        sent.push(ids);
        echoed.extend(echoes);
    }
    let mut live = Vec::new();
    for receiver in receivers {
        live.push(receiver.await.expect("receiver"));
    }
    assert!(
        echoed.len() >= SENDERS,
        "{} echoes before the kill",
        echoed.len()
    );

    let second = Process::start(dir.path(), STEP_MS, FLAGS);
    let mut auditor = Client::connect(&second.ws_url, None).await;
    let mut logged_before: BTreeSet<String> = BTreeSet::new();
    for channel in &channels {
        for (seq, item) in whole_log(&mut auditor, channel).await {
            if let Some(id) = item["client_msg_id"].as_str() {
                assert!(logged_before.insert(id.to_string()), "{id} logged twice");
                if let Some(echo_seq) = echoed.get(id) {
                    assert_eq!(*echo_seq, seq, "{id} moved");
                }
            }
        }
    }
    let lost: Vec<&String> = echoed
        .keys()
        .filter(|id| !logged_before.contains(*id))
        .collect();
    assert!(lost.is_empty(), "accepted before the kill, lost: {lost:?}");

    // The senders resend everything they sent, as the client's outbox does.
    let mut new_turns = 0;
    for (s, ids) in sent.iter().enumerate() {
        let mut client = Client::connect(&second.ws_url, None).await;
        for (i, id) in ids.iter().enumerate() {
            let echo = client.send_message(&channels[s], &text(s, i), id).await;
            if let Some(seq) = echoed.get(id) {
                assert_eq!(echo["seq"].as_u64(), Some(*seq), "{id}: the original echo");
            }
            if !logged_before.contains(id) {
                new_turns += 1;
            }
        }
    }

    // Every turn started by a resend ends (each thread runs its queue).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut answers: BTreeMap<String, usize>;
    loop {
        answers = BTreeMap::new();
        let mut logs = Vec::new();
        for channel in &channels {
            logs.push(whole_log(&mut auditor, channel).await);
        }
        for (s, ids) in sent.iter().enumerate() {
            for (i, id) in ids.iter().enumerate() {
                let quoted = format!("> {}", text(s, i));
                let n = logs[s]
                    .iter()
                    .filter(|(_, it)| {
                        it["role"] == "assistant"
                            && it["text"].as_str().unwrap_or("").contains(&quoted)
                    })
                    .count();
                answers.insert(id.clone(), n);
            }
        }
        let answered_new = sent
            .iter()
            .flatten()
            .filter(|id| !logged_before.contains(*id) && answers[*id] == 1)
            .count();
        if answered_new == new_turns || tokio::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let twice: Vec<_> = answers.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "answered twice: {twice:?}");
    for id in sent
        .iter()
        .flatten()
        .filter(|id| !logged_before.contains(*id))
    {
        assert_eq!(
            answers[id], 1,
            "{id}, accepted after the restart, answered once"
        );
    }

    // Each id is logged exactly once, whatever happened to it.
    let mut logs = BTreeMap::new();
    let mut all_ids = Vec::new();
    for channel in &channels {
        let log = whole_log(&mut auditor, channel).await;
        all_ids.extend(
            log.iter()
                .filter_map(|(_, it)| it["client_msg_id"].as_str().map(str::to_string)),
        );
        logs.insert(
            channel.clone(),
            log.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        );
    }
    let mut expected: Vec<String> = sent.iter().flatten().cloned().collect();
    expected.sort();
    all_ids.sort();
    assert_eq!(all_ids, expected, "every sent message logged once");

    // Every receiver: no item twice live, then history fills its gaps.
    for seen in live {
        let unique: BTreeSet<&(String, u64)> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len(), "an item arrived twice live");
        let mut client = Client::connect(&second.ws_url, None).await;
        for (channel, log) in &logs {
            let mut have: BTreeSet<u64> = seen
                .iter()
                .filter(|(c, _)| c == channel)
                .map(|(_, seq)| *seq)
                .collect();
            // Where its contiguous run from the start ends: the gap fill
            // starts there.
            let mut after = 0;
            while have.contains(&(after + 1)) {
                after += 1;
            }
            loop {
                let page = client
                    .history(json!({"channel_id": channel, "after": after, "limit": 200}))
                    .await;
                let got = page["items"].as_array().expect("items").clone();
                for item in &got {
                    after = item["seq"].as_u64().expect("seq");
                    have.insert(after);
                }
                if page["has_newer"] != true || got.is_empty() {
                    break;
                }
            }
            let want: BTreeSet<u64> = log.iter().copied().collect();
            assert_eq!(have, want, "a receiver caught up in {channel}");
        }
    }
}

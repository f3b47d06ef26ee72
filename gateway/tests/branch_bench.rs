//! Reading the active path of a huge thread with many forks (§12) is as
//! fast as reading a thread was before branches: `history` pages and
//! `around` at 100,000 items with 1,000 forks, timed over a real socket.
//! Ignored by default (seeding takes a while); run with
//! `cargo test --release -p aria-gateway --test branch_bench -- --ignored --nocapture`.

use std::time::{Duration, Instant};

use crate::support::{config, seqs, Client};
use aria_gateway::{seed_channel, serve, SEEDED_CHANNEL};
use serde_json::{json, Value};

const ITEMS: u64 = 100_000;
const FORKS: u64 = 1_000;
const RUNS: usize = 30;
/// A page read and sent back within this is as fast as before (the
/// bench's history targets are about painting; this bounds the gateway's
/// share well below them).
const PAGE_BOUND: Duration = Duration::from_millis(30);

/// Under the gateway's 20 frames a second per connection.
const PACE: Duration = Duration::from_millis(55);

/// Median time of `RUNS` round trips of `request`, paced by [`PACE`].
async fn median(client: &mut Client, request: &Value) -> (Duration, Value) {
    let mut times = Vec::with_capacity(RUNS);
    let mut reply = Value::Null;
    for _ in 0..RUNS {
        tokio::time::sleep(PACE).await;
        let start = Instant::now();
        reply = client.history(request.clone()).await;
        times.push(start.elapsed());
    }
    times.sort();
    (times[RUNS / 2], reply)
}

#[tokio::test]
#[ignore = "seeds 100,000 items: a benchmark, run on demand"]
async fn the_active_path_reads_as_fast_among_a_thousand_forks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let seeding = Instant::now();
    seed_channel(dir.path(), ITEMS, FORKS).expect("seed");
    println!(
        "seeded {ITEMS} items and {FORKS} forks in {:?}",
        seeding.elapsed()
    );
    let server = serve(config(dir.path(), 1)).await.expect("gateway starts");
    let mut client = Client::connect(&server.ws_url(), None).await;
    let c = SEEDED_CHANNEL;
    let cases = [
        ("newest 50", json!({"channel_id": c})),
        ("newest 200", json!({"channel_id": c, "limit": 200})),
        (
            "before 50,001",
            json!({"channel_id": c, "before": 50_001, "limit": 200}),
        ),
        (
            "after 50,000",
            json!({"channel_id": c, "after": 50_000, "limit": 200}),
        ),
        (
            "around 50,001",
            json!({"channel_id": c, "around": 50_001, "limit": 200}),
        ),
        (
            "around 1",
            json!({"channel_id": c, "around": 1, "limit": 200}),
        ),
    ];
    for (name, request) in cases {
        let (time, reply) = median(&mut client, &request).await;
        assert_eq!(reply["type"], "history", "{reply}");
        let got = seqs(&reply);
        assert!(got.iter().all(|s| *s <= ITEMS), "only the path: {name}");
        println!(
            "{name:>14}: median {:>6.2} ms ({} items)",
            time.as_secs_f64() * 1000.0,
            got.len()
        );
        assert!(time <= PAGE_BOUND, "{name}: {time:?}");
    }
}

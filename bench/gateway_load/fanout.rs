//! Fan-out: streamed turns delivered to many devices at once, timed per
//! frame and device.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::device::{self, Seen, Socket};
use super::latency::{delivery, Delivery};
use super::server::{cpu_secs, LoadGateway};

/// Devices that read everything, until told to stop.
pub struct Readers {
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<(Option<Socket>, Seen)>>,
}

impl Readers {
    pub async fn connect(ws_url: &str, count: usize, prefix: &str) -> Readers {
        let (stop, stopped) = watch::channel(false);
        let mut tasks = Vec::with_capacity(count);
        for chunk in (0..count).collect::<Vec<_>>().chunks(200) {
            let connects: Vec<_> = chunk
                .iter()
                .map(|i| {
                    let (url, name) = (ws_url.to_string(), format!("{prefix}-{i}"));
                    tokio::spawn(async move { device::connect(&url, &name).await })
                })
                .collect();
            for connect in connects {
                // One that failed to connect is missing from the results,
                // which the checks count.
                if let Ok(Ok((ws, _))) = connect.await {
                    tasks.push(tokio::spawn(device::read(ws, stopped.clone())));
                }
            }
        }
        Readers { stop, tasks }
    }

    /// Stops every reader; what each saw, and its socket if still open.
    pub async fn finish(self) -> Vec<(Option<Socket>, Seen)> {
        let _ = self.stop.send(true);
        let mut out = Vec::new();
        for task in self.tasks {
            if let Ok(result) = task.await {
                out.push(result);
            }
        }
        out
    }
}

/// What the devices of a fan-out run saw.
pub struct FanOut {
    pub delivery: Delivery,
    pub devices: usize,
    /// Devices the gateway disconnected (or whose socket failed).
    pub dropped: usize,
    /// Devices that saw every turn's `message.stop`.
    pub complete: usize,
}

/// Waits on `ws` until `turns` turns ended (`typing {on:false}`).
async fn until_turns_end(ws: &mut Socket, turns: usize) -> Result<(), String> {
    for _ in 0..turns {
        loop {
            let typing = device::reply(ws, "typing", None).await?;
            if typing["on"] == false {
                break;
            }
        }
    }
    Ok(())
}

fn summarize(results: &[(Option<Socket>, Seen)], stops: usize) -> FanOut {
    let seen: Vec<&Seen> = results.iter().map(|(_, s)| s).collect();
    let complete = seen.iter().filter(|s| s.seqs.len() >= stops).count();
    FanOut {
        delivery: delivery(&seen),
        devices: results.len(),
        dropped: results.iter().filter(|(ws, _)| ws.is_none()).count(),
        complete,
    }
}

/// CPU time per delivery of one turn, in µs.
pub struct TurnCpu {
    pub gateway_us: f64,
    /// This process: the simulated devices reading and timing the frames.
    pub devices_us: f64,
}

/// One streamed demo turn (the default answer at the gateway's pace) seen
/// by `count` devices, and the CPU time per delivery meanwhile.
pub async fn one_turn(gateway: &LoadGateway, count: usize) -> Result<(FanOut, TurnCpu), String> {
    let ws_url = &gateway.gateway.ws_url();
    let readers = Readers::connect(ws_url, count, "fan").await;
    let (mut driver, _) = device::connect(ws_url, "fan-driver").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let cpu_before = (gateway.cpu_secs(), cpu_secs("self"));
    let send = json!({"type": "message.send", "text": "How fast does this reach a thousand devices?",
                      "client_msg_id": "fan-1"});
    device::send(&mut driver, &send).await?;
    until_turns_end(&mut driver, 1).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let cpu = (
        gateway.cpu_secs() - cpu_before.0,
        cpu_secs("self") - cpu_before.1,
    );
    // Each device sees two logged items: the user's message and the answer.
    let fan = summarize(&readers.finish().await, 2);
    let per_delivery_us = |secs: f64| secs * 1e6 / fan.delivery.frames.max(1) as f64;
    let cpu = TurnCpu {
        gateway_us: per_delivery_us(cpu.0),
        devices_us: per_delivery_us(cpu.1),
    };
    Ok((fan, cpu))
}

/// `threads` turns streaming at once, each in a thread of its own, to
/// `count` devices (every device gets every thread's frames: one user's
/// devices all follow all threads).
pub async fn many_threads(ws_url: &str, threads: usize, count: usize) -> Result<FanOut, String> {
    let (mut driver, _) = device::connect(ws_url, "threads-driver").await?;
    let mut channels = Vec::new();
    for i in 0..threads {
        device::send(
            &mut driver,
            &json!({"type": "channel.create", "title": format!("thread {i}")}),
        )
        .await?;
        let created: Value = device::reply(&mut driver, "channel.created", None).await?;
        channels.push(
            created["channel"]["channel_id"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        );
        // Under the driver's frame rate.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let readers = Readers::connect(ws_url, count, "threads").await;
    // Senders of ten messages each (a burst each connection may send).
    let mut senders = Vec::new();
    for (s, group) in channels.chunks(10).enumerate() {
        let (ws, _) = device::connect(ws_url, &format!("threads-sender-{s}")).await?;
        senders.push((ws, group.to_vec()));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    for (s, (ws, group)) in senders.iter_mut().enumerate() {
        for (i, channel) in group.iter().enumerate() {
            let send = json!({"type": "message.send", "channel_id": channel,
                              "text": format!("thread message {s}-{i}"), "client_msg_id": format!("t-{s}-{i}")});
            device::send(ws, &send).await?;
        }
    }
    // Each sender sees its ten messages accepted, then leaves (it need not
    // read the turns too). Every device sees every sender's messages: wait
    // for its own, as leaving with frames unread resets the connection and
    // drops any sends the gateway has not read yet.
    for (s, (ws, group)) in senders.iter_mut().enumerate() {
        let mut accepted = 0;
        while accepted < group.len() {
            let message = device::reply(ws, "message", None).await?;
            let id = message["client_msg_id"].as_str().unwrap_or_default();
            if id.starts_with(&format!("t-{s}-")) {
                accepted += 1;
            }
        }
    }
    drop(senders);
    until_turns_end(&mut driver, threads).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(summarize(&readers.finish().await, 2 * threads))
}

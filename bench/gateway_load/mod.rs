//! The gateway under load (`--only gateway`, `./scripts/bench
//! --gateway-load`): simulated devices over loopback WebSockets against the
//! release gateway (tokio-tungstenite, in this process), a fresh gateway per
//! phase, every phase bounded in devices and time. No browser.

mod device;
mod fanout;
mod idle;
mod latency;
mod server;
mod slow;
mod storm;

use std::time::Duration;

use crate::report::{Report, Target};
use server::LoadGateway;

const SCENARIO: &str = "Gateway load";

/// How big each phase is.
#[derive(Debug, Clone, Copy)]
pub struct LoadSizes {
    pub idle_sockets: usize,
    pub fanout_devices: usize,
    pub threads: usize,
    pub thread_devices: usize,
    pub storm_devices: usize,
    /// Tool calls of each `/demo flood` turn of the storm.
    pub storm_flood: usize,
    pub slow_readers: usize,
    pub slow_busy: Duration,
    /// Run the release gateway (when built); the smoke run takes the debug
    /// one the test command just built, never a stale release binary.
    pub release: bool,
}

impl LoadSizes {
    pub const FULL: LoadSizes = LoadSizes {
        idle_sockets: 10_000,
        fanout_devices: 1_000,
        threads: 100,
        thread_devices: 10,
        storm_devices: 1_000,
        storm_flood: 50,
        slow_readers: 99,
        slow_busy: Duration::from_secs(30),
        release: true,
    };

    pub const SMOKE: LoadSizes = LoadSizes {
        idle_sockets: 100,
        fanout_devices: 20,
        threads: 10,
        thread_devices: 3,
        storm_devices: 20,
        storm_flood: 20,
        slow_readers: 5,
        slow_busy: Duration::from_secs(3),
        release: false,
    };
}

/// The demo's default pace: a person watching text stream in.
const HUMAN_STEP_MS: u64 = 40;

pub async fn run(sizes: LoadSizes, report: &mut Report) {
    let fds = server::raise_fd_limit();
    report.note(
        SCENARIO,
        format!("open-file limit {fds} (raised to the hard limit; the gateway inherits it)"),
    );
    idle_phase(sizes, report).await;
    fanout_phases(sizes, report).await;
    storm_phase(sizes, report).await;
    slow_phase(sizes, report).await;
}

async fn idle_phase(sizes: LoadSizes, report: &mut Report) {
    eprintln!("bench: gateway load: {} idle sockets…", sizes.idle_sockets);
    let gateway = LoadGateway::start(HUMAN_STEP_MS, sizes.release);
    report.note(SCENARIO, format!("the gateway's {} build", gateway.build));
    let idle = idle::run(&gateway.gateway.ws_url(), &gateway, sizes.idle_sockets).await;
    report.metric(
        SCENARIO,
        "idle authenticated sockets held",
        idle.held as f64,
        "",
        Some(Target::AtLeast(10_000.0)),
    );
    report.metric(
        SCENARIO,
        "RSS per idle socket",
        idle.rss_per_socket_kib,
        "KiB",
        Some(Target::AtMost(64.0)),
    );
    report.check(
        SCENARIO,
        format!(
            "every idle socket connected and answered a ping{}",
            idle.first_error
                .as_deref()
                .map(|e| format!(" (first error: {e})"))
                .unwrap_or_default()
        ),
        idle.held == sizes.idle_sockets,
    );
    report.note(
        SCENARIO,
        format!(
            "idle sockets: {} connected in {:.1} s (hello, ready), idle 2 s; gateway RSS {:.1} → {:.1} MiB",
            idle.held, idle.connect_secs, idle.rss_before_mib, idle.rss_after_mib
        ),
    );
}

async fn fanout_phases(sizes: LoadSizes, report: &mut Report) {
    eprintln!(
        "bench: gateway load: one turn to {} devices…",
        sizes.fanout_devices
    );
    let gateway = LoadGateway::start(HUMAN_STEP_MS, sizes.release);
    match fanout::one_turn(&gateway, sizes.fanout_devices).await {
        Ok((f, cpu)) => {
            let name = format!("one streamed turn to {} devices: delivery p99", f.devices);
            report.metric(
                SCENARIO,
                name,
                f.delivery.p99_ms,
                "ms",
                Some(Target::AtMost(100.0)),
            );
            report.metric(SCENARIO, "… delivery p50", f.delivery.p50_ms, "ms", None);
            report.metric(
                SCENARIO,
                "… frames out",
                f.delivery.frames_per_sec,
                "frames/s",
                None,
            );
            report.metric(
                SCENARIO,
                "… gateway CPU per delivery",
                cpu.gateway_us,
                "µs",
                None,
            );
            report.metric(
                SCENARIO,
                "… simulated devices' CPU per delivery",
                cpu.devices_us,
                "µs",
                None,
            );
            report.check(
                SCENARIO,
                format!(
                    "all {} devices saw the whole turn, none dropped",
                    sizes.fanout_devices
                ),
                f.complete == sizes.fanout_devices && f.dropped == 0,
            );
            report.note(
                SCENARIO,
                format!(
                    "one turn: {} deliveries in {} frames (a device behind gets only the newest \
                     snapshot), slowest {:.1} ms, {:.1} MiB/s out",
                    f.delivery.frames,
                    f.delivery.received,
                    f.delivery.max_ms,
                    f.delivery.mib_per_sec
                ),
            );
        }
        Err(e) => report.check(
            SCENARIO,
            format!("one turn to many devices ran ({e})"),
            false,
        ),
    }
    drop(gateway);

    eprintln!(
        "bench: gateway load: {} threads streaming to {} devices…",
        sizes.threads, sizes.thread_devices
    );
    let gateway = LoadGateway::start(HUMAN_STEP_MS, sizes.release);
    match fanout::many_threads(
        &gateway.gateway.ws_url(),
        sizes.threads,
        sizes.thread_devices,
    )
    .await
    {
        Ok(f) => {
            let name = format!(
                "{} threads streaming at once to {} devices: delivery p99",
                sizes.threads, f.devices
            );
            report.metric(
                SCENARIO,
                name,
                f.delivery.p99_ms,
                "ms",
                Some(Target::AtMost(100.0)),
            );
            report.metric(SCENARIO, "… delivery p50", f.delivery.p50_ms, "ms", None);
            report.metric(
                SCENARIO,
                "… frames out",
                f.delivery.frames_per_sec,
                "frames/s",
                None,
            );
            report.metric(
                SCENARIO,
                "… devices dropped",
                f.dropped as f64,
                "",
                Some(Target::AtMost(0.0)),
            );
            report.check(
                SCENARIO,
                "every device saw every thread's turn",
                f.complete == f.devices && f.devices == sizes.thread_devices,
            );
        }
        Err(e) => report.check(SCENARIO, format!("many threads ran ({e})"), false),
    }
}

async fn storm_phase(sizes: LoadSizes, report: &mut Report) {
    eprintln!(
        "bench: gateway load: reconnect storm of {} devices…",
        sizes.storm_devices
    );
    let gateway = LoadGateway::start(HUMAN_STEP_MS, sizes.release);
    match storm::run(
        &gateway.gateway.ws_url(),
        sizes.storm_devices,
        sizes.storm_flood,
    )
    .await
    {
        Ok(s) => {
            let name = format!("reconnect storm of {} devices: all caught up", s.devices);
            report.metric(
                SCENARIO,
                name,
                s.all_caught_up_secs,
                "s",
                Some(Target::AtMost(10.0)),
            );
            report.metric(
                SCENARIO,
                "… devices with items lost or doubled",
                (s.wrong + s.failed + s.doubled) as f64,
                "",
                Some(Target::AtMost(0.0)),
            );
            report.metric(
                SCENARIO,
                "… ping round trip p99 meanwhile",
                s.witness_rtt_p99_ms,
                "ms",
                None,
            );
            report.note(
                SCENARIO,
                format!(
                    "storm: every device dropped after `/demo flood {}` logged, back within 1 s \
                     during a second one; {:.0} items fetched per device; ping p50 {:.1} ms; \
                     {} devices with a wrong set of items, {} that failed{}",
                    sizes.storm_flood,
                    s.items_missed_per_device,
                    s.witness_rtt_p50_ms,
                    s.wrong,
                    s.failed,
                    s.first_failure
                        .as_deref()
                        .map(|e| format!(" (first: {e})"))
                        .unwrap_or_default()
                ),
            );
        }
        Err(e) => report.check(SCENARIO, format!("the reconnect storm ran ({e})"), false),
    }
}

async fn slow_phase(sizes: LoadSizes, report: &mut Report) {
    let secs = sizes.slow_busy.as_secs();
    eprintln!(
        "bench: gateway load: {} readers for {secs} s, without and with a slow one…",
        sizes.slow_readers
    );
    let without = {
        let gateway = LoadGateway::start(HUMAN_STEP_MS, sizes.release);
        slow::run(&gateway, sizes.slow_readers, sizes.slow_busy, false).await
    };
    let with = {
        let gateway = LoadGateway::start(HUMAN_STEP_MS, sizes.release);
        slow::run(&gateway, sizes.slow_readers, sizes.slow_busy, true).await
    };
    let (without, with) = match (without, with) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            report.check(SCENARIO, format!("the slow-reader runs ran ({e})"), false);
            return;
        }
    };
    report.metric(
        SCENARIO,
        format!(
            "slow reader: the other {}'s delivery p99 ÷ without it",
            sizes.slow_readers
        ),
        with.others.p99_ms / without.others.p99_ms,
        "×",
        Some(Target::AtMost(1.10)),
    );
    report.metric(
        SCENARIO,
        "… their p99 with it",
        with.others.p99_ms,
        "ms",
        None,
    );
    report.metric(
        SCENARIO,
        "… their p99 without it",
        without.others.p99_ms,
        "ms",
        None,
    );
    report.metric(
        SCENARIO,
        "… gateway RSS at the end ÷ without it",
        with.rss_end_mib / without.rss_end_mib,
        "×",
        Some(Target::AtMost(1.10)),
    );
    let slow = with.slow.as_ref();
    report.metric(
        SCENARIO,
        "… slow device's items lost or doubled after catching up",
        slow.map_or(f64::NAN, |s| (s.lost + s.doubled) as f64),
        "",
        Some(Target::AtMost(0.0)),
    );
    report.metric(
        SCENARIO,
        "… slow device dropped by the gateway with 1013 (1 = yes)",
        f64::from(u8::from(slow.and_then(|s| s.closed) == Some(1013))),
        "",
        Some(Target::AtLeast(1.0)),
    );
    report.note(
        SCENARIO,
        format!(
            "slow reader: {secs} s of `/demo stream 16` and `/demo flood 300` turns back to back in two threads; \
             gateway RSS start/peak/end/once all left {:.1}/{:.1}/{:.1}/{:.1} MiB without the slow device, \
             {:.1}/{:.1}/{:.1}/{:.1} MiB with it; the others' frames out {:.0}/s without, {:.0}/s with",
            without.rss_start_mib, without.rss_peak_mib, without.rss_end_mib, without.rss_left_mib,
            with.rss_start_mib, with.rss_peak_mib, with.rss_end_mib, with.rss_left_mib,
            without.others.frames_per_sec, with.others.frames_per_sec
        ),
    );
}

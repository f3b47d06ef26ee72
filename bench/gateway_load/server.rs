//! The gateway under load: the release binary (when built) as a process of
//! its own on loopback, with a token and no per-address socket limit (every
//! simulated device comes from 127.0.0.1), and its memory read from /proc.

use std::path::PathBuf;

use crate::support::paths;
use crate::support::{Gateway, GatewayOpts};

/// The token every simulated device sends.
pub const TOKEN: &str = "bench-load-token-0123456789abcdef";

pub struct LoadGateway {
    pub gateway: Gateway,
    /// Which build runs ("release" or "debug").
    pub build: &'static str,
}

/// With `release`: `ARIA_GATEWAY_RELEASE_BIN`, else
/// `<target>/release/aria-gateway`, if built. Else the debug binary the
/// rest of the bench uses.
fn binary(release: bool) -> (PathBuf, &'static str) {
    let release_bin = std::env::var_os("ARIA_GATEWAY_RELEASE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::target_dir().join("release").join("aria-gateway"));
    if release && release_bin.is_file() {
        (release_bin, "release")
    } else {
        (paths::gateway_bin(), "debug")
    }
}

impl LoadGateway {
    /// A fresh gateway whose demo agent steps every `step_ms`.
    pub fn start(step_ms: u64, release: bool) -> LoadGateway {
        let (bin, build) = binary(release);
        let gateway = Gateway::start(GatewayOpts {
            demo_delay_ms: step_ms,
            token: Some(TOKEN.to_string()),
            extra_args: vec![
                "--max-sockets-per-address".into(),
                "0".into(),
                // Devices of the storm send hello and page through history
                // at once; the limit itself is tested in gateway/tests.
                "--frame-burst".into(),
                "200".into(),
            ],
            bin: Some(bin),
            ..GatewayOpts::default()
        });
        LoadGateway { gateway, build }
    }

    /// The gateway's resident memory in KiB (`VmRSS`).
    pub fn rss_kib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.gateway.pid()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    }
}

impl LoadGateway {
    /// CPU time the gateway has used so far (user + system), in seconds.
    pub fn cpu_secs(&self) -> f64 {
        cpu_secs(&self.gateway.pid().to_string())
    }
}

/// CPU time (user + system) process `pid` ("self": this one) has used so
/// far, in seconds.
pub fn cpu_secs(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (which may hold spaces): utime
    // and stime are the 14th and 15th of the line.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    // SAFETY: sysconf only reads a configuration value.
    let per_sec = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    match (ticks(11), ticks(12)) {
        (Some(user), Some(system)) if per_sec > 0.0 => (user + system) / per_sec,
        _ => f64::NAN,
    }
}

/// Raises this process's open-file limit to its hard limit (the gateway,
/// started afterwards, inherits it); returns the new soft limit.
pub fn raise_fd_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 0;
        }
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
    }
    limit.rlim_cur
}

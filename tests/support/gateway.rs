//! The reference gateway as a child process on a free loopback port.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::paths::{self, TempDir};

/// Captured output of a child process, for failure messages.
pub type SharedLog = Arc<Mutex<String>>;

/// How to start the gateway.
#[derive(Clone, Debug)]
pub struct GatewayOpts {
    /// `--demo-delay-ms`: pause between streamed chunks of the demo agent.
    pub demo_delay_ms: u64,
    /// `--token`, if the gateway should require one.
    pub token: Option<String>,
    /// `--static-dir`; `App` fills in the dist dir when `None`.
    pub static_dir: Option<PathBuf>,
    /// `--data-dir`; a fresh temp dir when `None`. Pass the same dir to a
    /// second gateway to test a restart.
    pub data_dir: Option<PathBuf>,
    /// `--addr`; a free port when `None`. A stopped gateway's address
    /// restarts it in place (same origin for the page and its worker).
    pub addr: Option<SocketAddr>,
    /// Anything else to pass through.
    pub extra_args: Vec<String>,
    /// The binary; [`paths::gateway_bin`] when `None`.
    pub bin: Option<PathBuf>,
}

impl Default for GatewayOpts {
    fn default() -> Self {
        GatewayOpts {
            demo_delay_ms: 20,
            token: None,
            static_dir: None,
            data_dir: None,
            addr: None,
            extra_args: Vec::new(),
            bin: None,
        }
    }
}

/// A running `aria-gateway`; killed on drop.
pub struct Gateway {
    child: Child,
    addr: SocketAddr,
    output: SharedLog,
    data_dir: PathBuf,
    _temp: Option<TempDir>,
}

impl Gateway {
    /// Starts `aria-gateway --addr 127.0.0.1:0 …` and waits for its
    /// `aria-gateway listening on http://ADDR` line.
    pub fn start(opts: GatewayOpts) -> Gateway {
        let bin = opts.bin.clone().unwrap_or_else(paths::gateway_bin);
        let temp = match opts.data_dir {
            Some(_) => None,
            None => Some(TempDir::new("aria-e2e-data")),
        };
        let data_dir = opts
            .data_dir
            .clone()
            .unwrap_or_else(|| temp.as_ref().unwrap().path().to_path_buf());

        let mut cmd = Command::new(&bin);
        let addr = opts
            .addr
            .map_or("127.0.0.1:0".to_string(), |a| a.to_string());
        cmd.arg("--addr")
            .arg(addr)
            .arg("--data-dir")
            .arg(&data_dir)
            .arg("--demo-delay-ms")
            .arg(opts.demo_delay_ms.to_string());
        if let Some(dir) = &opts.static_dir {
            cmd.arg("--static-dir").arg(dir);
        }
        if let Some(token) = &opts.token {
            cmd.arg("--token").arg(token);
        }
        // Pages served by the test binary's static server talk to it too.
        cmd.arg("--allowed-origin").arg(super::page::page_origin());
        cmd.args(&opts.extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));

        let output: SharedLog = Arc::default();
        let (tx, rx) = mpsc::channel();
        pump_lines(child.stdout.take().unwrap(), output.clone(), Some(tx));
        pump_lines(child.stderr.take().unwrap(), output.clone(), None);

        let addr = match rx.recv_timeout(super::secs(30)) {
            Ok(addr) => addr,
            Err(_) => {
                let status = child.try_wait().ok().flatten();
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{} did not print `aria-gateway listening on http://ADDR` within 30 s \
                     (exit status: {status:?}); its output:\n{}",
                    bin.display(),
                    output.lock().unwrap()
                );
            }
        };
        Gateway {
            child,
            addr,
            output,
            data_dir,
            _temp: temp,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The process id (the bench reads its memory in /proc; no browser
    /// test does).
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `http://ADDR/`, where the gateway serves the client.
    pub fn app_url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// `ws://ADDR/ws`, for `?gateway=` overrides.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    pub fn data_dir(&self) -> &std::path::Path {
        &self.data_dir
    }

    /// Everything the gateway printed so far. The bench reads its seeding
    /// rate from it (bench/scenarios/search.rs); no browser test does.
    #[allow(dead_code)]
    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    pub fn output_handle(&self) -> SharedLog {
        self.output.clone()
    }

    /// Kills the gateway now (e.g. to test reconnects); the data dir stays
    /// until this value is dropped.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Copies a child's output into `log` line by line; the first line that
/// announces the listening address is also sent on `addr_tx`.
pub(crate) fn pump_lines(
    stream: impl Read + Send + 'static,
    log: SharedLog,
    addr_tx: Option<mpsc::Sender<SocketAddr>>,
) {
    std::thread::spawn(move || {
        let mut addr_tx = addr_tx;
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(tx) = &addr_tx {
                if let Some(addr) = parse_listening(&line) {
                    let _ = tx.send(addr);
                    addr_tx = None;
                }
            }
            let mut log = log.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
}

fn parse_listening(line: &str) -> Option<SocketAddr> {
    let rest = line.split("listening on http://").nth(1)?;
    rest.trim().trim_end_matches('/').parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_listening_line() {
        assert_eq!(
            super::parse_listening("aria-gateway listening on http://127.0.0.1:4711"),
            Some("127.0.0.1:4711".parse().unwrap())
        );
        assert_eq!(super::parse_listening("starting"), None);
    }
}

//! The real `aria-gateway` binary as a child process: started on a free
//! port and waited for, killed with SIGKILL, or run until it refuses to start.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A gateway process on a free loopback port.
pub struct Process {
    child: Child,
    pub ws_url: String,
}

/// What a gateway that refused to start said.
pub struct Refusal {
    pub status: ExitStatus,
    pub stderr: String,
}

fn command(data_dir: &Path, step_ms: u64, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aria-gateway"));
    command
        .args(["--addr", "127.0.0.1:0", "--demo-delay-ms"])
        .arg(step_ms.to_string())
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--static-dir")
        .arg(data_dir.join("no-client"))
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null());
    command
}

impl Process {
    /// Starts a gateway whose demo agent steps every `step_ms`, with extra
    /// flags, and waits for its listening line.
    pub fn start(data_dir: &Path, step_ms: u64, args: &[&str]) -> Process {
        let mut child = command(data_dir, step_ms, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start aria-gateway");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.split("listening on http://").nth(1) {
                    let _ = tx.send(addr.trim().to_string());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the gateway printed its listening line");
        Process {
            child,
            ws_url: format!("ws://{addr}/ws"),
        }
    }

    /// Runs a gateway that is expected to refuse to start, until it exits
    /// (at most 30 s).
    pub fn refusal(data_dir: &Path, args: &[&str]) -> Refusal {
        let mut child = command(data_dir, 1, args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start aria-gateway");
        let mut stderr = child.stderr.take().expect("stderr");
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the gateway did not exit within 30 s: it started anyway");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Refusal {
            status,
            stderr: reader.join().expect("stderr reader"),
        }
    }

    /// SIGKILL, and check it really died of it.
    pub fn sigkill(mut self) {
        self.child.kill().expect("SIGKILL");
        let status = self.child.wait().expect("wait");
        assert_eq!(status.signal(), Some(9), "the gateway died of {status:?}");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

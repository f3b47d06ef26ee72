//! A real Hermes Agent (hermes-agent 0.19.0, installed by
//! `scripts/hermes-setup` into `tools/hermes-venv`) on a free loopback port,
//! with its own `HERMES_HOME` pointed at a model server of the test's.
//!
//! ```ignore
//! let mut hermes = Hermes::new()?;                    // Err: not installed
//! let note = hermes.workdir().join("note.txt");       // where its tools work
//! let model = FakeModel::start_with_note(note.to_str().unwrap());
//! // The aria plugin linked to a gateway (`--agent hermes`) listening on
//! // `link` with the secret in `secret_file`:
//! hermes.start_linked(&model.base_url(), "fake-tool", link, &secret_file)?;
//! // Or its API server (`--agent hermes-api --hermes-url {hermes.url()}
//! // --hermes-key {hermes.key()}`):
//! hermes.start(&model.base_url(), "fake-tool")?;      // blocks ~2-5 s
//! ```
//!
//! Std only and blocking, so the root crate's browser tests can include it
//! with `#[path]`. The process is killed and its directory removed on drop.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Environment variable naming another virtual environment to use.
pub const VENV_ENV: &str = "ARIA_HERMES_VENV";
/// Environment variable that lets the Hermes tests pass without Hermes.
pub const SKIP_ENV: &str = "ARIA_SKIP_HERMES";
/// Hermes starts in about 1.5 s warm; a cold first start imports for longer.
const START_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Hermes {
    bin: PathBuf,
    /// Holds `home/` (HERMES_HOME), `work/` (its working directory) and
    /// `hermes.log` (its output).
    dir: PathBuf,
    key: String,
    port: u16,
    child: Option<Child>,
    /// Whether Hermes's model takes images ([`Hermes::with_vision`]).
    vision: bool,
}

/// Whether `ARIA_SKIP_HERMES=1` asks to skip the tests that need Hermes.
pub fn skip_requested() -> bool {
    std::env::var(SKIP_ENV).is_ok_and(|v| v == "1")
}

/// The repository root: the nearest ancestor of this crate holding
/// `scripts/hermes-setup`. This file is also compiled into the client's
/// tests (tests/e2e_hermes.rs), so the crate's dir is read here: the one
/// cargo names to the running test, else the one it was built in.
fn repo_root() -> Option<PathBuf> {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .ancestors()
        .find(|dir| dir.join("scripts/hermes-setup").is_file())
        .map(Path::to_path_buf)
}

/// The `hermes` executable of the virtual environment, or why it is missing.
pub fn hermes_bin() -> Result<PathBuf, String> {
    let venv = match std::env::var_os(VENV_ENV) {
        Some(venv) => PathBuf::from(venv),
        None => repo_root()
            .ok_or("cannot find the repository root (no scripts/hermes-setup above this crate)")?
            .join("tools/hermes-venv"),
    };
    let bin = venv.join("bin/hermes");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "Hermes Agent is not installed: {} does not exist. Run scripts/hermes-setup \
             (about 2 minutes, from PyPI), or set {SKIP_ENV}=1 to skip the tests that need it.",
            bin.display()
        ))
    }
}

impl Hermes {
    /// Prepares a home and a working directory; `Err` says how to install
    /// Hermes if it is missing.
    pub fn new() -> Result<Self, String> {
        let bin = hermes_bin()?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("aria-hermes-{}-{nanos}", std::process::id()));
        for sub in ["home", "work"] {
            std::fs::create_dir_all(dir.join(sub))
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        Ok(Self {
            bin,
            dir,
            // Hermes refuses keys shorter than 16 characters.
            key: format!("aria-test-{nanos:032x}"),
            port: 0,
            child: None,
            vision: false,
        })
    }

    /// Makes Hermes treat its model as one that takes images: it sends
    /// their pixels (else it describes them first with its vision tool).
    pub fn with_vision(&mut self) {
        self.vision = true;
    }

    /// Hermes's `HERMES_HOME` (the plugin keeps its turn log under it).
    pub fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    /// Where Hermes runs (its file tools resolve relative paths here).
    pub fn workdir(&self) -> PathBuf {
        self.dir.join("work")
    }

    /// Starts `hermes gateway run` with its API server on a free port and
    /// `model` of `model_base_url` (an OpenAI-compatible `/v1` URL) as its
    /// model; returns once `/health` answers.
    pub fn start(&mut self, model_base_url: &str, model: &str) -> Result<(), String> {
        let platforms = "platforms:\n  api_server:\n    enabled: true\n";
        self.port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        self.spawn(&config_yaml(model_base_url, model, platforms))?;
        self.wait_until_healthy()
    }

    /// Starts `hermes gateway run` with the aria plugin enabled and linked
    /// to a gateway listening on `link` with the secret in `secret_file`
    /// (as docs/hermes-link.md configures it); returns once the plugin says
    /// it is linked.
    pub fn start_linked(
        &mut self,
        model_base_url: &str,
        model: &str,
        link: SocketAddr,
        secret_file: &Path,
    ) -> Result<(), String> {
        let linked_before = self.links();
        self.spawn_linked(model_base_url, model, link, secret_file)?;
        self.wait_linked(linked_before)
    }

    /// [`Hermes::start_linked`] without waiting for the link (the gateway
    /// may not be up yet).
    pub fn spawn_linked(
        &mut self,
        model_base_url: &str,
        model: &str,
        link: SocketAddr,
        secret_file: &Path,
    ) -> Result<(), String> {
        let platforms = format!(
            "plugins:\n  enabled: [aria]\nplatforms:\n  aria:\n    enabled: true\n    extra:\n      \
             link_address: \"{link}\"\n      link_secret_file: \"{}\"\n\
             display:\n  platforms:\n    aria:\n      streaming: true\n      \
             show_reasoning: true\n      tool_progress: \"off\"\n      \
             interim_assistant_messages: true\n",
            secret_file.display()
        );
        self.spawn(&config_yaml(model_base_url, model, &platforms))
    }

    /// Waits until the plugin linked more often than `before` times.
    pub fn wait_linked(&mut self, before: usize) -> Result<(), String> {
        let started = Instant::now();
        while self.links() <= before {
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if exited.is_some() || started.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "Hermes's aria plugin did not link (exit: {exited:?}); its log:\n{}",
                    self.log()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    /// How many times the plugin linked to a gateway, from Hermes's log.
    pub fn links(&self) -> usize {
        std::fs::read_to_string(self.dir.join("home/logs/gateway.log"))
            .unwrap_or_default()
            .matches("[aria] linked to the gateway")
            .count()
    }

    /// Kills Hermes at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn spawn(&mut self, config: &str) -> Result<(), String> {
        let home = self.dir.join("home");
        let config = if self.vision {
            let model = "model:\n  supports_vision: true\n";
            let config = config.replacen("model:\n", model, 1);
            format!("{config}agent:\n  image_input_mode: native\n")
        } else {
            config.to_string()
        };
        std::fs::write(home.join("config.yaml"), config)
            .map_err(|e| format!("cannot write Hermes's config: {e}"))?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .map_err(|e| format!("cannot create Hermes's log: {e}"))?;
        let log_err = log.try_clone().map_err(|e| e.to_string())?;
        let mut command = Command::new(&self.bin);
        command
            .args(["gateway", "run"])
            .current_dir(self.workdir())
            .env("HERMES_HOME", &home)
            .env("HOME", &self.dir)
            .env("TERMINAL_CWD", self.workdir());
        // This checkout's plugin, wherever the venv's editable install of
        // it points (another worktree's): `PYTHONPATH` comes before it.
        if let Some(plugin) = repo_root().map(|root| root.join("hermes-plugin")) {
            let mut path = std::ffi::OsString::from(plugin);
            if let Some(more) = std::env::var_os("PYTHONPATH") {
                path.push(":");
                path.push(more);
            }
            command.env("PYTHONPATH", path);
        }
        // These variables turn Hermes's API server on: only when asked for.
        if self.port != 0 {
            command
                .env("API_SERVER_KEY", &self.key)
                .env("API_SERVER_HOST", "127.0.0.1")
                .env("API_SERVER_PORT", self.port.to_string());
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.bin.display()))?;
        self.child = Some(child);
        Ok(())
    }

    fn wait_until_healthy(&mut self) -> Result<(), String> {
        let started = Instant::now();
        loop {
            if health_ok(self.port) {
                return Ok(());
            }
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            if exited.is_some() || started.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "Hermes did not come up on port {} (exit: {exited:?}); its log:\n{}",
                    self.port,
                    self.log()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The API server's base URL, for `--hermes-url`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The API server's key, for `--hermes-key`.
    pub fn key(&self) -> &str {
        &self.key
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("hermes.log")
    }

    /// Hermes's output so far, for failure messages.
    pub fn log(&self) -> String {
        let output = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let gateway_log =
            std::fs::read_to_string(self.dir.join("home/logs/gateway.log")).unwrap_or_default();
        format!("{output}\n== home/logs/gateway.log:\n{gateway_log}")
    }
}

impl Drop for Hermes {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Hermes's `config.yaml`: `model` of `model_base_url`, then `platforms`.
/// `context_length` spares Hermes looking the model up online, no tirith
/// spares it downloading that scanner, and manual approvals ask the user
/// about every flagged command (0.19.0's default, `smart`, first asks the
/// model, which would see the requests).
fn config_yaml(model_base_url: &str, model: &str, platforms: &str) -> String {
    format!(
        "model:\n  provider: custom\n  base_url: {model_base_url}\n  api_key: fake-key\n  \
         default: {model}\n  context_length: 65536\n{platforms}\
         approvals:\n  mode: manual\nsecurity:\n  tirith_enabled: false\n"
    )
}

/// Whether `GET /health` answers 200 on the port.
fn health_ok(port: u16) -> bool {
    let wait = Duration::from_secs(2);
    let request = || -> std::io::Result<bool> {
        let mut stream =
            TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], port)), wait)?;
        stream.set_read_timeout(Some(wait))?;
        let get =
            format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
        stream.write_all(get.as_bytes())?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response)?;
        Ok(response.starts_with(b"HTTP/1.1 200"))
    };
    request().unwrap_or(false)
}

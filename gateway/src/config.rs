//! Gateway settings: the library's [`Config`] and the CLI that fills it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

/// The agent that answers messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum AgentKind {
    /// Scripted answers and `/demo …` scenarios, no network.
    #[default]
    Demo,
}

/// Everything [`crate::serve`] needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen; port 0 picks a free port (see `RunningServer::addr`).
    pub addr: SocketAddr,
    /// Shared secret clients must send in `hello.token`; `None` disables auth.
    pub token: Option<String>,
    /// Directory of `aria.sqlite3`, created if missing.
    pub data_dir: PathBuf,
    /// The built web client, served for every path but `/ws`.
    pub static_dir: PathBuf,
    /// Origins allowed to open `/ws` (e.g. `https://chat.example.org`); empty
    /// allows any. Requests without an `Origin` header (non-browser clients)
    /// are always allowed.
    pub allowed_origins: Vec<String>,
    pub agent: AgentKind,
    /// The demo agent's pace: time between streaming snapshots and the unit
    /// of its other waits.
    pub demo_delay: Duration,
}

/// Default pace of the demo agent: a human sees text stream in.
pub const DEFAULT_DEMO_DELAY_MS: u64 = 40;

impl Config {
    /// Defaults: `127.0.0.1:8080`, no token, `./aria-data`, `./dist`, the
    /// demo agent at its human pace.
    pub fn new() -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            token: None,
            data_dir: PathBuf::from("aria-data"),
            static_dir: PathBuf::from("dist"),
            allowed_origins: Vec::new(),
            agent: AgentKind::Demo,
            demo_delay: Duration::from_millis(DEFAULT_DEMO_DELAY_MS),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

/// `aria-gateway`: the reference gateway of the aria chat protocol.
#[derive(Debug, Parser)]
#[command(name = "aria-gateway", version, about)]
pub struct Cli {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Shared secret clients must present; empty or absent disables auth.
    #[arg(long, env = "ARIA_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Directory of the SQLite outbox log (created if missing).
    #[arg(long, default_value = "./aria-data")]
    pub data_dir: PathBuf,
    /// Directory of the built web client.
    #[arg(long, default_value = "dist")]
    pub static_dir: PathBuf,
    /// Origin allowed to open the WebSocket (repeatable); default: any.
    #[arg(long = "allowed-origin", value_name = "URL")]
    pub allowed_origins: Vec<String>,
    /// Agent answering messages.
    #[arg(long, value_enum, default_value_t = AgentKind::Demo)]
    pub agent: AgentKind,
    /// Demo agent's delay per step in milliseconds (streaming interval).
    #[arg(long, default_value_t = DEFAULT_DEMO_DELAY_MS)]
    pub demo_delay_ms: u64,
}

impl From<Cli> for Config {
    fn from(cli: Cli) -> Self {
        Self {
            addr: cli.addr,
            token: cli.token.filter(|t| !t.is_empty()),
            data_dir: cli.data_dir,
            static_dir: cli.static_dir,
            allowed_origins: cli.allowed_origins,
            agent: cli.agent,
            demo_delay: Duration::from_millis(cli.demo_delay_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_maps_to_config() {
        let cli = Cli::parse_from([
            "aria-gateway",
            "--addr",
            "127.0.0.1:0",
            "--token",
            "",
            "--allowed-origin",
            "http://a",
            "--allowed-origin",
            "http://b",
            "--demo-delay-ms",
            "1",
        ]);
        let config = Config::from(cli);
        assert_eq!(config.addr.port(), 0);
        assert_eq!(config.token, None, "an empty token disables auth");
        assert_eq!(config.allowed_origins, ["http://a", "http://b"]);
        assert_eq!(config.demo_delay, Duration::from_millis(1));
    }

    #[test]
    fn cli_defaults_match_config_defaults() {
        let config = Config::from(Cli::parse_from(["aria-gateway"]));
        let defaults = Config::new();
        assert_eq!(config.addr, defaults.addr);
        assert_eq!(config.static_dir, defaults.static_dir);
        assert_eq!(config.demo_delay, defaults.demo_delay);
    }
}

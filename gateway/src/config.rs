//! Gateway settings: the library's [`Config`] and the CLI that fills it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::files::{FileArgs, FileLimits};

/// The agent that answers messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum AgentKind {
    /// Scripted answers and `/demo …` scenarios, no network.
    #[default]
    Demo,
    /// Any OpenAI-compatible Chat Completions server (llama.cpp, Ollama,
    /// vLLM, hosted services).
    #[value(name = "openai")]
    OpenAi,
    /// Hermes Agent's own gateway with the aria plugin (`hermes-plugin/`),
    /// over the Hermes link.
    Hermes,
    /// Hermes Agent through its API server's runs API: the lesser path,
    /// for a Hermes on another host or one that cannot load the plugin.
    #[value(name = "hermes-api")]
    HermesApi,
}

/// Where the `openai` agent sends its requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// Base URL of the API, the part before `/chat/completions`
    /// (e.g. `http://127.0.0.1:8081/v1`).
    pub base_url: String,
    /// `model` of every request; `None` omits it (llama.cpp serves its one
    /// model whatever the name; Ollama and hosted services need it).
    pub model: Option<String>,
    /// Sent as `Authorization: Bearer KEY`.
    pub api_key: Option<String>,
    /// Most characters of logged messages sent as context with each request.
    pub context_chars: usize,
}

/// Where the `hermes` agents find Hermes Agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HermesConfig {
    /// `hermes`: the loopback address the gateway listens on for the
    /// plugin (docs/hermes-link.md).
    pub link: SocketAddr,
    /// `hermes-api`: base URL of the API server (Hermes's default
    /// `http://127.0.0.1:8642`).
    pub base_url: String,
    /// `hermes-api`: Hermes's `API_SERVER_KEY`.
    pub api_key: String,
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
    /// Origins besides the gateway's own allowed to open `/ws` (e.g.
    /// `https://chat.example.org`). Requests without an `Origin` header
    /// (non-browser clients) are always allowed (`origin_policy.rs`).
    pub allowed_origins: Vec<String>,
    /// Host names besides loopback names and the bound IP that browsers may
    /// reach the gateway by (e.g. `chat.example.org` behind a proxy).
    pub allowed_hosts: Vec<String>,
    pub agent: AgentKind,
    /// Settings of the `openai` agent.
    pub openai: OpenAiConfig,
    /// Settings of the `hermes` agent.
    pub hermes: HermesConfig,
    /// The `openai` and `hermes` agents end a turn with an error when their
    /// server sends nothing (not even a keep-alive) for this long.
    pub model_stall: Duration,
    /// The demo agent's pace: time between streaming snapshots and the unit
    /// of its other waits.
    pub demo_delay: Duration,
    /// An approval request nobody answers is resolved as `timeout` after this.
    pub approval_timeout: Duration,
    /// Frames per second one connection may send in the long run.
    pub frames_per_sec: u32,
    /// Frames one connection may send in one burst.
    pub frame_burst: u32,
    /// Sockets one client address (IPv6: one /64) may hold open; 0 is no limit.
    pub max_sockets_per_address: usize,
    /// Most bytes the log's database may grow to; past it writes fail as on
    /// a full disk. `None`: as large as the disk allows.
    pub max_log_bytes: Option<u64>,
    /// Limits of the file store (§13).
    pub files: FileLimits,
}

/// Default pace of the demo agent: a human sees text stream in.
pub const DEFAULT_DEMO_DELAY_MS: u64 = 40;
/// Default of `--model-stall-secs`: longer than Hermes's 30 s keep-alive and
/// than a local model's usual wait before its first token.
pub const DEFAULT_MODEL_STALL_SECS: u64 = 120;
/// Default of `--openai-context-chars`: about 6k tokens, which fits the
/// small context windows local servers often run with.
pub const DEFAULT_CONTEXT_CHARS: usize = 24_000;
/// Default of `--approval-timeout-secs`: time to notice and answer on
/// another device, short enough that a forgotten turn does not hang all day.
pub const DEFAULT_APPROVAL_TIMEOUT_SECS: u64 = 600;
/// Default of `--max-frames-per-sec`: far above what a person's client
/// sends, far below what would let one connection load the gateway.
pub const DEFAULT_FRAMES_PER_SEC: u32 = 20;
/// Default of `--frame-burst`: a reconnect's resend of pending messages plus
/// its history gap fills.
pub const DEFAULT_FRAME_BURST: u32 = 60;
/// Default of `--max-sockets-per-address`: every device and tab of a
/// household behind one NAT, with room to spare.
pub const DEFAULT_MAX_SOCKETS_PER_ADDRESS: usize = 100;
/// Hermes's API server listens here unless told otherwise.
pub const DEFAULT_HERMES_URL: &str = "http://127.0.0.1:8642";
/// The gateway listens for the Hermes plugin here unless told otherwise.
pub const DEFAULT_HERMES_LINK: &str = "127.0.0.1:8644";
/// llama.cpp's `llama-server` default address.
pub const DEFAULT_OPENAI_URL: &str = "http://127.0.0.1:8080/v1";

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
            allowed_hosts: Vec::new(),
            agent: AgentKind::Demo,
            openai: OpenAiConfig {
                base_url: DEFAULT_OPENAI_URL.to_string(),
                model: None,
                api_key: None,
                context_chars: DEFAULT_CONTEXT_CHARS,
            },
            hermes: HermesConfig {
                link: SocketAddr::from(([127, 0, 0, 1], 8644)),
                base_url: DEFAULT_HERMES_URL.to_string(),
                api_key: String::new(),
            },
            model_stall: Duration::from_secs(DEFAULT_MODEL_STALL_SECS),
            demo_delay: Duration::from_millis(DEFAULT_DEMO_DELAY_MS),
            approval_timeout: Duration::from_secs(DEFAULT_APPROVAL_TIMEOUT_SECS),
            frames_per_sec: DEFAULT_FRAMES_PER_SEC,
            frame_burst: DEFAULT_FRAME_BURST,
            max_sockets_per_address: DEFAULT_MAX_SOCKETS_PER_ADDRESS,
            max_log_bytes: None,
            files: FileLimits::default(),
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
    /// Shared secret clients must present; empty or absent disables auth
    /// (allowed only on a loopback address).
    #[arg(long, env = "ARIA_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Without a token: use the one stored in the data dir, making a random
    /// one (printed once) if there is none.
    #[arg(long)]
    pub generate_token: bool,
    /// Directory of the SQLite outbox log (created if missing).
    #[arg(long, default_value = "./aria-data")]
    pub data_dir: PathBuf,
    /// Directory of the built web client.
    #[arg(long, default_value = "dist")]
    pub static_dir: PathBuf,
    /// Origin besides the gateway's own allowed to open the WebSocket
    /// (repeatable).
    #[arg(long = "allowed-origin", value_name = "URL")]
    pub allowed_origins: Vec<String>,
    /// Host name besides loopback names and the bound IP that browsers may
    /// use to reach the gateway (repeatable).
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,
    /// Agent answering messages.
    #[arg(long, value_enum, default_value_t = AgentKind::Demo)]
    pub agent: AgentKind,
    /// Demo agent's delay per step in milliseconds (streaming interval).
    #[arg(long, default_value_t = DEFAULT_DEMO_DELAY_MS)]
    pub demo_delay_ms: u64,
    #[command(flatten)]
    pub seed: crate::seed::SeedArgs,
    /// openai agent: base URL of the Chat Completions API (before
    /// `/chat/completions`), e.g. http://127.0.0.1:11434/v1 for Ollama.
    #[arg(
        long,
        env = "OPENAI_BASE_URL",
        value_name = "URL",
        required_if_eq("agent", "openai")
    )]
    pub openai_url: Option<String>,
    /// openai agent: model name sent with each request.
    #[arg(long, env = "OPENAI_MODEL", value_name = "NAME")]
    pub openai_model: Option<String>,
    /// openai agent: API key (sent as a Bearer token).
    #[arg(
        long,
        env = "OPENAI_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub openai_key: Option<String>,
    /// openai agent: most characters of the thread's logged messages sent as context.
    #[arg(long, default_value_t = DEFAULT_CONTEXT_CHARS, value_name = "N")]
    pub openai_context_chars: usize,
    /// hermes agent: loopback address to listen on for the Hermes plugin.
    #[arg(long, env = "ARIA_HERMES_LINK", default_value = DEFAULT_HERMES_LINK, value_name = "ADDR")]
    pub hermes_link: SocketAddr,
    /// hermes-api agent: base URL of Hermes Agent's API server.
    #[arg(long, env = "HERMES_API_URL", default_value = DEFAULT_HERMES_URL, value_name = "URL")]
    pub hermes_url: String,
    /// hermes-api agent: the API server's key (Hermes's own `API_SERVER_KEY`).
    #[arg(
        long,
        env = "API_SERVER_KEY",
        hide_env_values = true,
        value_name = "KEY",
        required_if_eq("agent", "hermes-api")
    )]
    pub hermes_key: Option<String>,
    /// openai and hermes agents: seconds without a byte from the server
    /// before the turn ends with an error.
    #[arg(long, default_value_t = DEFAULT_MODEL_STALL_SECS, value_name = "SECS")]
    pub model_stall_secs: u64,
    /// Seconds an approval request waits for an answer before it is
    /// resolved as `timeout` (the action is not taken).
    #[arg(long, default_value_t = DEFAULT_APPROVAL_TIMEOUT_SECS, value_name = "SECS")]
    pub approval_timeout_secs: u64,
    /// Frames per second one connection may send in the long run; excess
    /// frames are answered `rate_limited` and dropped.
    #[arg(long, default_value_t = DEFAULT_FRAMES_PER_SEC, value_parser = clap::value_parser!(u32).range(1..), value_name = "N")]
    pub max_frames_per_sec: u32,
    /// Frames one connection may send in one burst.
    #[arg(long, default_value_t = DEFAULT_FRAME_BURST, value_parser = clap::value_parser!(u32).range(1..), value_name = "N")]
    pub frame_burst: u32,
    /// Sockets one client address (IPv6: one /64) may hold open; 0 is no
    /// limit. Behind a reverse proxy every client has the proxy's address.
    #[arg(long, default_value_t = DEFAULT_MAX_SOCKETS_PER_ADDRESS, value_name = "N")]
    pub max_sockets_per_address: usize,
    /// Most mebibytes the log's database may grow to (a quota, so the log
    /// cannot fill the disk); past it sends fail as on a full disk.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "MIB")]
    pub max_log_mib: Option<u64>,
    #[command(flatten)]
    pub files: FileArgs,
}

impl From<Cli> for Config {
    fn from(cli: Cli) -> Self {
        Self {
            addr: cli.addr,
            token: cli.token.filter(|t| !t.is_empty()),
            data_dir: cli.data_dir,
            static_dir: cli.static_dir,
            allowed_origins: cli.allowed_origins,
            allowed_hosts: cli.allowed_hosts,
            agent: cli.agent,
            openai: OpenAiConfig {
                base_url: cli
                    .openai_url
                    .unwrap_or_else(|| DEFAULT_OPENAI_URL.to_string()),
                model: cli.openai_model.filter(|m| !m.is_empty()),
                api_key: cli.openai_key.filter(|k| !k.is_empty()),
                context_chars: cli.openai_context_chars,
            },
            hermes: HermesConfig {
                link: cli.hermes_link,
                base_url: cli.hermes_url,
                api_key: cli.hermes_key.unwrap_or_default(),
            },
            model_stall: Duration::from_secs(cli.model_stall_secs),
            demo_delay: Duration::from_millis(cli.demo_delay_ms),
            approval_timeout: Duration::from_secs(cli.approval_timeout_secs),
            frames_per_sec: cli.max_frames_per_sec,
            frame_burst: cli.frame_burst,
            max_sockets_per_address: cli.max_sockets_per_address,
            max_log_bytes: cli.max_log_mib.map(|mib| mib.saturating_mul(1 << 20)),
            files: cli.files.into(),
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
            "--allowed-host",
            "box.lan",
            "--demo-delay-ms",
            "1",
            "--approval-timeout-secs",
            "7",
            "--max-frames-per-sec",
            "5",
            "--frame-burst",
            "9",
            "--max-sockets-per-address",
            "0",
            "--max-log-mib",
            "3",
        ]);
        let config = Config::from(cli);
        assert_eq!(config.addr.port(), 0);
        assert_eq!(config.token, None, "an empty token disables auth");
        assert_eq!(config.allowed_origins, ["http://a", "http://b"]);
        assert_eq!(config.allowed_hosts, ["box.lan"]);
        assert_eq!(config.demo_delay, Duration::from_millis(1));
        assert_eq!(config.approval_timeout, Duration::from_secs(7));
        assert_eq!(
            (
                config.frames_per_sec,
                config.frame_burst,
                config.max_sockets_per_address
            ),
            (5, 9, 0)
        );
        assert_eq!(config.max_log_bytes, Some(3 << 20));
    }

    #[test]
    fn agent_flags_map_to_config() {
        let cli = Cli::try_parse_from([
            "aria-gateway",
            "--agent",
            "openai",
            "--openai-url",
            "http://127.0.0.1:11434/v1",
            "--openai-model",
            "qwen3:4b",
            "--model-stall-secs",
            "5",
        ])
        .expect("valid flags");
        let config = Config::from(cli);
        assert_eq!(config.agent, AgentKind::OpenAi);
        assert_eq!(config.openai.base_url, "http://127.0.0.1:11434/v1");
        assert_eq!(config.openai.model.as_deref(), Some("qwen3:4b"));
        assert_eq!(config.model_stall, Duration::from_secs(5));

        let cli = Cli::try_parse_from([
            "aria-gateway",
            "--agent",
            "hermes-api",
            "--hermes-key",
            "0123456789abcdef",
        ])
        .expect("valid flags");
        let config = Config::from(cli);
        assert_eq!(config.agent, AgentKind::HermesApi);
        assert_eq!(config.hermes.base_url, DEFAULT_HERMES_URL);
        assert_eq!(config.hermes.api_key, "0123456789abcdef");
        assert!(Cli::try_parse_from(["aria-gateway", "--agent", "hermes-api"]).is_err());

        let cli = Cli::try_parse_from([
            "aria-gateway",
            "--agent",
            "hermes",
            "--hermes-link",
            "127.0.0.1:9100",
        ])
        .expect("valid flags");
        let config = Config::from(cli);
        assert_eq!(config.agent, AgentKind::Hermes);
        assert_eq!(config.hermes.link, SocketAddr::from(([127, 0, 0, 1], 9100)));
    }

    #[test]
    fn cli_defaults_match_config_defaults() {
        let config = Config::from(Cli::parse_from(["aria-gateway"]));
        let defaults = Config::new();
        assert_eq!(config.addr, defaults.addr);
        assert_eq!(config.static_dir, defaults.static_dir);
        assert_eq!(config.demo_delay, defaults.demo_delay);
        assert_eq!(config.approval_timeout, defaults.approval_timeout);
        assert_eq!(config.frames_per_sec, defaults.frames_per_sec);
        assert_eq!(config.frame_burst, defaults.frame_burst);
        assert_eq!(
            config.max_sockets_per_address,
            defaults.max_sockets_per_address
        );
        assert_eq!(config.hermes, defaults.hermes);
    }
}

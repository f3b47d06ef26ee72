//! The reference gateway of the aria chat protocol (`docs/protocol.md`).
//!
//! One process serves the web client's static files and the `/ws` WebSocket,
//! keeps every channel's append-only outbox log in SQLite, broadcasts each
//! frame to all connected devices and runs turns through an agent (the
//! demo, an OpenAI-compatible API or Hermes). [`serve`] starts it in the current Tokio
//! runtime, so tests and other crates can run a real gateway in-process.

mod address_limit;
mod agent;
mod app;
mod approvals;
mod branch_requests;
mod clock;
mod config;
mod connection;
mod device_queue;
mod files;
mod hello_throttle;
mod history;
mod hub;
mod ids;
mod live;
mod memory;
mod message_text;
mod origin_policy;
mod outbox;
mod rate_limit;
mod request_error;
mod requests;
mod search;
mod security_headers;
mod seed;
mod seed_images;
mod server;
mod startup_check;
mod static_files;
mod store;
mod store_error;
mod title;
mod token_file;
mod turns;

pub use config::{AgentKind, Cli, Config, HermesConfig, OpenAiConfig};
pub use files::FileLimits;
pub use origin_policy::InvalidEntry;
pub use seed::{seed_channel, SeedArgs, SEEDED_CHANNEL};
pub use seed_images::{seed_images, IMAGES_CHANNEL};
pub use server::{serve, RunningServer, ServeError};
pub use token_file::{load_or_create_token, StoredToken};

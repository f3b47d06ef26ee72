//! The gateway's tests over real sockets and real processes: one binary
//! (one link of tokio, axum and SQLite instead of one per file), a module
//! per area. `cargo test -p aria-gateway --test gateway -- NAME::` runs one.

mod support;

mod abuse;
mod approvals;
mod around;
mod bad_database;
mod behind;
mod branch_context;
mod branches;
mod channels;
mod connection;
mod disk_full;
mod exposure;
mod file_bench;
mod files;
mod files_bounds;
mod files_hostile;
mod files_messages;
mod files_model;
mod hermes;
mod hermes_api;
mod hermes_files;
mod hermes_link;
mod hermes_link_files;
mod hermes_sessions;
mod migrations;
mod openai;
mod origin;
mod search;
mod sigkill;
mod sigkill_load;
mod static_client;
mod turns;

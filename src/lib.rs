//! aria-web: a chat client for AI-agent gateways (Leptos, compiled to wasm).
//!
//! Data flows one way: socket text → `protocol` decode → `store::Store::apply`
//! (pure) → reactive view state → `ui` components. Everything except `net`
//! and `ui` is plain Rust and tested on the host.

/// The wire types, shared with the reference gateway.
pub use aria_protocol as protocol;

pub mod announce;
pub mod app_update;
pub mod attention;
pub mod deep_link;
pub mod display;
pub mod export;
pub mod net;
pub mod offline;
pub mod render;
pub mod search;
pub mod settings;
pub mod shortcuts;
pub mod store;
#[cfg(test)]
mod test_items;
pub mod ui;

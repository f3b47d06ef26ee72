//! aria-web's client logic, without a browser: everything the app decides
//! (chat state, what is shown and announced, export, the offline copy,
//! search, shortcuts, settings, where to connect) as plain Rust, tested on
//! the host. The `aria-web` crate carries out its effects in the browser.
//!
//! Data flows one way: socket text → `protocol` decode → `store::Store::apply`
//! → effects and changes for the view.

/// The wire types, shared with the reference gateway.
pub use aria_protocol as protocol;

pub mod announce;
pub mod app_update;
pub mod attention;
pub mod deep_link;
pub mod display;
pub mod export;
pub mod files;
pub mod net;
pub mod offline;
pub mod render;
pub mod search;
pub mod settings;
pub mod shortcuts;
pub mod store;
#[cfg(test)]
mod test_items;

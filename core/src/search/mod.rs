//! Search (protocol §10), as plain Rust: what the field asks for and when
//! (`state`), and where a snippet shows the query's words (`highlight`).

pub mod highlight;
mod state;

pub use state::{SearchState, Status, DEBOUNCE_MS, TIMEOUT_MS};

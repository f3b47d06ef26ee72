//! Browser tests of threads: auto-thread relocation,
//! the thread list's order and badges, the thread menu by right-click,
//! long-press (touch) and keyboard, rename/pin/mark read/copy link/delete,
//! deep links with back/forward, two browser sessions on one gateway,
//! export from the menu and keyboard shortcuts.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_threads
//! ```
#![cfg(not(target_arch = "wasm32"))]

#[allow(unused_imports)] // the harness exports helpers this suite does not use
mod support;

mod e2e_threads {
    mod auto_thread;
    mod export;
    mod menu;
    mod sessions;
    mod shortcuts;
    mod sidebar;
}

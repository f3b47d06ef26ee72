//! Offline reading in the browser: the real client and the real gateway
//! behind a TCP proxy (the network), the page served by a static server so
//! that it still loads with the gateway gone.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_offline
//! ```
//!
//! | File | Proves |
//! |---|---|
//! | `reading.rs` | threads opened are kept in IndexedDB; with the gateway stopped a reload shows them, marked offline and sanitized; a message typed then is sent once when it is back, nothing shown twice; "Clear offline copy" leaves nothing to show |
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_offline {
    mod reading;
}

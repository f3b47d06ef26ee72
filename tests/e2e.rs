//! Browser end-to-end tests: the real gateway serving the real `dist/`, in
//! headless Chromium. `./scripts/test` builds both first; to run these alone:
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e
//! ```
//!
//! The harness lives in `tests/support/` (see its module docs).
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e {
    mod chat;
    mod deferred_code;
    mod harness;
    mod timeline;
}

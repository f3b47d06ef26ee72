//! The installable app shell: the service worker
//! precaches the hashed build, the shell loads with the gateway gone, and a
//! new build takes over on the next load and says so; with the offline
//! copy, a whole visit with the gateway stopped (read, type, sent once it is
//! back); and the first paint, the static frame of index.html that the app
//! replaces in place. 127.0.0.1 is a
//! secure context, so the gateway's own origin gets the worker.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_pwa
//! ```
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_pwa {
    mod builds;
    mod first_paint;
    mod offline_shell;
    mod offline_visit;
    mod update;
}

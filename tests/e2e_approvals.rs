//! Browser tests of approvals (§9) against the scripted fake gateway
//! (`support::fake_gateway`, which resolves requests like the real one):
//! the card and each answer, several devices, reloads and drops while a
//! request waits, timeouts and Stop, hostile text, the page title, system
//! notifications while the tab is hidden, and the progress-draft line;
//! and against the real gateway's `/demo approval` scenarios (`demo.rs`),
//! what the agent does after each answer. A real Hermes run with an
//! approval is in `e2e_hermes.rs`.
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_approvals
//! ```
//!
//! A hidden tab is emulated in the page itself: the test overrides
//! `document.visibilityState` (and `document.hidden`) with a getter and
//! fires `visibilitychange`, which is exactly what the app reads; the
//! notification permission is granted through chromedriver's
//! `permissions` endpoint, and `window.Notification` is wrapped to record
//! what the app shows (see `e2e_approvals/helpers.rs`). Nothing in the app
//! is compiled differently for tests.
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_approvals {
    mod answers;
    mod attention;
    mod demo;
    mod devices;
}

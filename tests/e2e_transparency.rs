//! Browser tests of what the agent's work looks like: reasoning,
//! tool cards, commentary, typing, footers, each value of each display
//! setting against the gateway's demo scenarios, and settings persistence.
//! The harness's scripted gateway (`support::fake_gateway`, with a scripted
//! turn) stands in where the demo agent has no scenario (long reasoning, a
//! malformed inline prefix, tool previews that differ from their commands).
//!
//! ```text
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_transparency
//! ```
//!
//! `screenshot_of_a_demo_all_turn` saves `<target>/e2e-artifacts/demo-all.png`;
//! with `ARIA_UPDATE_SCREENSHOT=1` it rewrites docs/screenshot.png instead.
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_transparency {
    mod progress;
    mod reasoning;
    mod settings;
    mod streaming;
    mod tools;
}

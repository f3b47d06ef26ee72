//! Accessibility: axe-core finds no violation in any state of
//! the app, in both themes; a whole visit works with the keyboard alone;
//! screen readers hear finished answers once and failures at once; reduced
//! motion and 200 % text are honoured.
//!
//! ```text
//! scripts/setup   # installs axe-core into tools/axe/
//! trunk build --release --skip-version-check && cargo build -p aria-gateway
//! cargo test --test e2e_a11y
//! ```
#![cfg(not(target_arch = "wasm32"))]

mod support;

mod e2e_a11y {
    mod axe_states;
    mod keyboard;
    mod live_regions;
    mod motion_and_zoom;
}

use std::time::Duration;

fn main() {
    // The mount runs in a task of its own, after the one that compiled and
    // started the wasm: two shorter tasks instead of one long one (the
    // first load's Total Blocking Time, bench/history/2026-11-30-to-12-03.md, "First load: static frame, paint before fetch").
    leptos::prelude::set_timeout(
        || {
            leptos::mount::mount_to_body(aria_web::ui::App);
            aria_web::ui::mark_booted();
        },
        Duration::ZERO,
    );
}

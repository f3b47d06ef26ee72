use std::time::Duration;

fn main() {
    // The mount runs in a task of its own, after the one that compiled and
    // started the wasm: two shorter tasks instead of one long one (the
    // first load's Total Blocking Time, bench/README.md "First load").
    leptos::prelude::set_timeout(
        || {
            leptos::mount::mount_to_body(aria_web::ui::App);
            aria_web::ui::mark_booted();
        },
        Duration::ZERO,
    );
}

//! The connection badge: what the socket is doing, "retry now", and
//! "not encrypted" whenever the gateway is plain `ws://` on another machine.

use std::time::Duration;

use leptos::prelude::*;

use crate::net::Status;
use crate::ui::browser;
use crate::ui::hooks::clock::{use_clock, Clock, ClockOptions};
use crate::ui::wiring::offline;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn ConnectionStatus() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    // Ticks once a second so "reconnecting in N s" counts down.
    let Clock { now } = use_clock(ClockOptions {
        every: Duration::from_secs(1),
    });
    let state = move || match rt.view.status.get() {
        Status::Connecting => "connecting",
        Status::Connected => "connected",
        Status::Reconnecting { .. } => "reconnecting",
        Status::Offline(_) => "offline",
        Status::Unauthorized(_) => "unauthorized",
        Status::Unsupported(_) => "unsupported",
        Status::Held(_) => "held",
    };
    let label = move || match rt.view.status.get() {
        Status::Connecting => "Connecting…".to_string(),
        Status::Connected => "Connected".to_string(),
        Status::Reconnecting { retry_at_ms } => {
            // `now` only ticks once a second: it makes the label count down,
            // but the time itself is read fresh, or a status that just
            // changed would show up to a second too much.
            now.track();
            // Whole seconds as an integer: printing the f64 would pull
            // float formatting into the wasm (bench/history/2026-11-30-to-12-03.md, "Size (2026-12-01, evening)").
            let secs = ((retry_at_ms - browser::now_ms()) / 1000.0).ceil().max(0.0) as u64;
            format!("Reconnecting in {secs} s")
        }
        Status::Offline(why) => format!("Offline: {why}"),
        Status::Unauthorized(why) => format!("Not authorized: {why} Check the token in Settings."),
        Status::Unsupported(why) => format!("Incompatible gateway: {why}"),
        Status::Held(why) => format!("Not connected: {why}"),
    };
    let can_retry = move || {
        !matches!(
            rt.view.status.get(),
            Status::Connected | Status::Connecting | Status::Held(_)
        )
    };
    let exposed = move || {
        rt.gateway
            .with(|g| g.as_ref().is_some_and(|g| g.is_exposed()))
    };
    // Threads shown from the offline copy while the gateway is away.
    let from_copy = move || rt.offline_view.get().restored && offline::unreachable(rt);
    view! {
        <div class="conn-status" data-testid="conn-status" data-state=state>
            <span class="conn-dot" aria-hidden="true"></span>
            <span class="conn-label">{label}</span>
            <Show when=exposed>
                <span class="conn-plaintext" data-testid="conn-plaintext"
                    title="ws:// to another machine: anyone on the network path can read this connection">"not encrypted"</span>
            </Show>
            <Show when=from_copy>
                <span class="conn-offline" data-testid="conn-offline">"offline copy, read-only"</span>
            </Show>
            <Show when=can_retry>
                <button type="button" class="link-button" on:click=move |_| rt.retry_connection()>"Retry now"</button>
            </Show>
        </div>
    }
}

//! One tool call: a compact line (spinner, ✓ or ✗, duration) that expands
//! in place to the full arguments and output, each with a copy button;
//! the calls that ran under it (a sub-agent's) fold inside it.

use leptos::prelude::*;

use crate::render::{self, tool_line, Detail};
use crate::settings::{ProgressDetail, ToolDetail};
use crate::store::{Row, RowBody, ToolCall, ToolState};
use crate::ui::components::nested_calls::NestedCalls;
use crate::ui::components::tool_detail::ToolDetailView;
use crate::ui::wiring::runtime::Runtime;

/// The one-line summary's budget in characters.
const LINE_CHARS: usize = 160;

#[component]
pub fn ToolCard(row: RwSignal<Row>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let call = Memo::new(move |_| match &row.read().body {
        RowBody::Tool(t) => Some(t.clone()),
        _ => None,
    });
    let everything = move || {
        rt.settings
            .with(|s| s.tool_detail == ToolDetail::Everything)
    };
    // `None`: follow the setting; `Some`: the reader's choice.
    let opened = RwSignal::new(None::<bool>);
    let open = move || opened.get().unwrap_or_else(everything);

    let state = move || match call.with(|c| c.as_ref().map(|c| c.state)) {
        Some(ToolState::Running) | None => "running",
        Some(ToolState::Ok) => "ok",
        Some(ToolState::Failed) => "failed",
        Some(ToolState::Unknown) => "unknown",
    };
    let icon = move || match state() {
        "ok" => "✓",
        "failed" => "✗",
        "unknown" => "?",
        _ => "",
    };
    let line = move || {
        let raw = rt
            .settings
            .with(|s| s.progress.detail == ProgressDetail::Raw);
        call.with(|c| {
            c.as_ref().map(|c| {
                tool_line(
                    c.emoji.as_deref(),
                    &c.name,
                    &c.preview,
                    &c.args,
                    if raw { Detail::Raw } else { Detail::Explain },
                    LINE_CHARS,
                )
            })
        })
    };
    let duration = move || {
        call.with(|c| match c.as_ref() {
            Some(ToolCall {
                state: ToolState::Unknown,
                ..
            }) => "unknown outcome".to_string(),
            Some(ToolCall {
                duration: Some(d), ..
            }) => render::duration(*d),
            _ => String::new(),
        })
    };
    let note = move || {
        call.with(|c| {
            c.as_ref()
                .filter(|c| c.state == ToolState::Running)
                .and_then(|c| c.notes.last().cloned())
        })
    };
    view! {
        <div class="tool-card" data-state=state class:open=open>
            <button type="button" class="tool-line" aria-expanded=move || open().to_string()
                on:click=move |_| opened.set(Some(!open()))>
                <span class="tool-status" role="img" aria-label=state>{icon}</span>
                <span class="tool-text">{line}</span>
                <span class="tool-duration">{duration}</span>
            </button>
            {move || note().map(|n| view! { <div class="tool-note">{n}</div> })}
            <Show when=open>
                <ToolDetailView call />
            </Show>
            <NestedCalls parent=row.with_untracked(|r| r.key.clone()) card=nested_card />
        </div>
    }
}

/// A call nested under this one, drawn as a card of its own.
fn nested_card(row: RwSignal<Row>) -> AnyView {
    view! { <ToolCard row /> }.into_any()
}

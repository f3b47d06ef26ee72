//! One tool call: a compact line (spinner, ✓ or ✗, duration) that expands
//! in place to the full arguments and output, each with a copy button.

use leptos::prelude::*;

use crate::render::{self, tool_line, Detail};
use crate::settings::{ProgressDetail, ToolDetail};
use crate::store::{Row, RowBody, ToolCall, ToolState};
use crate::ui::components::copy_button::CopyButton;
use crate::ui::wiring::runtime::Runtime;

/// Output is shown in chunks of this many bytes, more on request, so a
/// 256 KiB output never lands in the DOM at once.
const OUTPUT_CHUNK: usize = 16 * 1024;
/// Arguments longer than this are cut in the expanded view.
const ARGS_MAX: usize = 64 * 1024;
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
        </div>
    }
}

#[component]
fn ToolDetailView(call: Memo<Option<ToolCall>>) -> impl IntoView {
    let args = move || call.with(|c| c.as_ref().map(|c| render::args_pretty(&c.args, ARGS_MAX)));
    // Copied in full: the view cuts long arguments.
    let all_args = Signal::derive(move || {
        call.with(|c| c.as_ref().map(|c| render::args_pretty(&c.args, usize::MAX)))
            .unwrap_or_default()
    });
    let name = move || call.with(|c| c.as_ref().map(|c| c.name.clone()));
    let output = Signal::derive(move || {
        call.with(|c| {
            c.as_ref()
                .map(|c| c.output.clone().unwrap_or_else(|| c.output_preview.clone()))
        })
        .unwrap_or_default()
    });
    view! {
        <div class="tool-detail">
            <div class="tool-detail-label">"Tool"</div>
            <div class="tool-name">{name}</div>
            <div class="tool-detail-label">"Arguments"
                <CopyButton label="Copy arguments" text=all_args class="tool-copy" /></div>
            <pre class="tool-args">{args}</pre>
            <div class="tool-detail-label">"Output"
                <CopyButton label="Copy output" text=output class="tool-copy" /></div>
            <OutputBox text=output />
        </div>
    }
}

/// A scrollable output box that renders big outputs a chunk at a time.
#[component]
fn OutputBox(#[prop(into)] text: Signal<String>) -> impl IntoView {
    let shown = RwSignal::new(OUTPUT_CHUNK);
    let visible = move || {
        text.with(|t| {
            let mut end = shown.get().min(t.len());
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            t[..end].to_string()
        })
    };
    let rest = move || text.with(|t| t.len().saturating_sub(shown.get()));
    view! {
        <pre class="tool-output" tabindex="0">{visible}</pre>
        <Show when=move || { rest() > 0 }>
            <button type="button" class="link-button show-more"
                on:click=move |_| shown.update(|s| *s += OUTPUT_CHUNK * 4)>
                {move || format!("Show more ({} KB left)", rest().div_ceil(1024))}
            </button>
        </Show>
        <Show when=move || text.with(|t| t.is_empty())>
            <span class="muted">"(no output)"</span>
        </Show>
    }
}

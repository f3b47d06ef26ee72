//! A tool call's expanded view: its name, the arguments (cut past a
//! limit, copied in full) and the output, each with a copy button.

use leptos::prelude::*;

use crate::render;
use crate::store::ToolCall;
use crate::ui::components::copy_button::CopyButton;
use crate::ui::components::tool_output::OutputBox;

/// Arguments longer than this are cut in the expanded view.
const ARGS_MAX: usize = 64 * 1024;

#[component]
pub fn ToolDetailView(call: Memo<Option<ToolCall>>) -> impl IntoView {
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

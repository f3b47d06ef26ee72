//! The agent's answer (full width): markdown, reasoning above, the files
//! it sent, and below it the model, tokens, Regenerate and Copy.

use leptos::prelude::*;

use crate::render::{self, completed_prefix_len, pending_inline_reasoning, split_inline_reasoning};
use crate::settings::StreamingMode;
use crate::store::{Row, RowBody};
use crate::ui::browser;
use crate::ui::components::copy_button::CopyButton;
use crate::ui::components::markdown_view::MarkdownView;
use crate::ui::components::message_files::files_view;
use crate::ui::components::reasoning_block::ReasoningBlock;
use crate::ui::components::steer_button::SteerButton;
use crate::ui::wiring::runtime::Runtime;

/// The answer's text split from inline reasoning, as shown right now.
#[derive(Clone, PartialEq, Default)]
struct AnswerParts {
    reasoning: Option<String>,
    body: String,
    streaming: bool,
    interim: bool,
    model: Option<String>,
    tokens: Option<u64>,
}

#[component]
pub fn AnswerBubble(row: RwSignal<Row>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let parts = Memo::new(move |_| {
        let block_mode = rt.settings.with(|s| s.streaming == StreamingMode::Block);
        row.with(|r| {
            let RowBody::Assistant(a) = &r.body else {
                return AnswerParts::default();
            };
            let (reasoning, answer) = match (&a.reasoning, a.streaming) {
                (Some(r), _) => (Some(r.as_str()), a.text.as_str()),
                (None, true) => match pending_inline_reasoning(&a.text) {
                    Some(r) => (Some(r), ""),
                    None => split_inline_reasoning(&a.text),
                },
                (None, false) => split_inline_reasoning(&a.text),
            };
            // Block mode: advance only at completed blocks.
            let body = if a.streaming && block_mode {
                &answer[..completed_prefix_len(answer).min(answer.len())]
            } else {
                answer
            };
            AnswerParts {
                reasoning: reasoning
                    .filter(|r| !r.trim().is_empty())
                    .map(str::to_string),
                body: body.to_string(),
                streaming: a.streaming,
                interim: a.interim,
                model: a.model.clone(),
                tokens: a.tokens,
            }
        })
    });
    let streaming = Signal::derive(move || parts.with(|p| p.streaming));
    // Blocks of a burst still waiting for a frame (markdown_view.rs): the
    // answer reads as streaming (cursor, `data-streaming`, no footer) until
    // all of its text is on the page.
    let pacing = RwSignal::new(false);
    let appearing = Signal::derive(move || streaming.get() || pacing.get());
    let reasoning = Signal::derive(move || parts.with(|p| p.reasoning.clone().unwrap_or_default()));
    let has_reasoning = move || parts.with(|p| p.reasoning.is_some());
    let body = Signal::derive(move || parts.with(|p| p.body.clone()));
    // An answer that finishes on screen gets its footer a frame after its
    // last text: the frame that ends a stream already lays out its last
    // blocks and the end of the turn (cursor, stop button, typing), and
    // the footer's controls made it the stream's dearest (bench/README.md).
    // The frame's delay also runs for an answer mounted finished (its
    // footer already shown): a thread's history runs this code on the
    // app's first load, so an answer that finishes while only the first
    // load is there needs nothing of the deferred part (tests/e2e/
    // deferred_code.rs).
    let footer = RwSignal::new(!streaming.get_untracked());
    Effect::new(move |_| {
        let done = !appearing.get();
        if !done {
            footer.set(false);
        }
        request_animation_frame(move || {
            footer.try_set(done);
        });
    });
    let files = Memo::new(move |_| match &row.read().body {
        RowBody::Assistant(a) => a.files.clone(),
        _ => Box::default(),
    });
    // A logged answer of a turn the gateway named can be regenerated.
    let regenerable = move || {
        row.with(|r| match &r.body {
            RowBody::Assistant(a) if !a.streaming && !a.interim && !a.other_role => {
                r.seq.and(r.turn.clone())
            }
            _ => None,
        })
    };
    let regenerate = move |turn: String| {
        if let Some(channel) = rt.view.active.get_untracked() {
            let id = browser::random_id("r_");
            rt.act(|s| s.regenerate(&channel, &turn, id));
        }
    };
    view! {
        <article class="msg msg-assistant" class:interim=move || parts.with(|p| p.interim)
            data-streaming=move || appearing.get().then_some("true")>
            <Show when=has_reasoning>
                <ReasoningBlock text=reasoning live=streaming />
            </Show>
            <div class="msg-body">
                <MarkdownView text=body live=streaming pacing=pacing />
                <Show when=move || appearing.get()>
                    <span class="cursor" aria-hidden="true"></span>
                </Show>
            </div>
            {move || files.with(|f| (!f.is_empty()).then(|| files_view(f)))}
            <Show when=move || footer.get()>
                <footer class="msg-footer">
                    {move || parts.with(|p| p.model.clone()).map(|m| view! { <span class="model">{m}</span> })}
                    {move || parts.with(|p| p.tokens).map(|t| view! { <span class="tokens">{render::tokens(t)}</span> })}
                    {move || regenerable().map(|turn| {
                        let turn = StoredValue::new(turn);
                        view! {
                            <SteerButton label="Regenerate" testid="regenerate"
                                on_press=move || regenerate(turn.get_value()) />
                        }
                    })}
                    <CopyButton label="Copy answer" text=body class="answer-copy" />
                </footer>
            </Show>
        </article>
    }
}

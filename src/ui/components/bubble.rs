//! Message bubbles: the user's (tinted, right), the agent's answer (full
//! width, markdown, reasoning above, model and tokens below) and commentary
//! (dimmed, smaller, no footer). A finished answer's footer has a button
//! that copies its markdown.

use leptos::prelude::*;

use crate::render::{self, completed_prefix_len, pending_inline_reasoning, split_inline_reasoning};
use crate::settings::StreamingMode;
use crate::store::{Row, RowBody, SendState};
use crate::ui::components::copy_button::CopyButton;
use crate::ui::components::markdown_view::MarkdownView;
use crate::ui::components::reasoning_block::ReasoningBlock;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn UserBubble(row: RwSignal<Row>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let user = move || match &row.read().body {
        RowBody::User(u) => Some(u.clone()),
        _ => None,
    };
    let text = move || user().map(|u| u.text).unwrap_or_default();
    let state = move || user().map(|u| u.send).unwrap_or(SendState::Delivered);
    let cmid = move || user().and_then(|u| u.client_msg_id).unwrap_or_default();
    view! {
        <div class="msg msg-user" class:pending=move || state() == SendState::Pending
            class:failed=move || matches!(state(), SendState::Failed(_))>
            <div class="msg-text">{text}</div>
            {move || match state() {
                SendState::Pending => view! { <div class="msg-meta">"Sending…"</div> }.into_any(),
                SendState::Failed(why) => view! {
                    <div class="msg-meta send-error">
                        <span>{why}</span>
                        <button type="button" class="link-button" data-testid="retry-send"
                            on:click=move |_| { let id = cmid(); rt.act(|s| s.retry(&id)); }>"Retry"</button>
                        <button type="button" class="link-button"
                            on:click=move |_| { let id = cmid(); rt.act(|s| s.discard(&id)); }>"Discard"</button>
                    </div>
                }.into_any(),
                SendState::Delivered => ().into_any(),
            }}
        </div>
    }
}

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
    let reasoning = Signal::derive(move || parts.with(|p| p.reasoning.clone().unwrap_or_default()));
    let has_reasoning = move || parts.with(|p| p.reasoning.is_some());
    let body = Signal::derive(move || parts.with(|p| p.body.clone()));
    let footer = move || !streaming.get();
    view! {
        <article class="msg msg-assistant" class:interim=move || parts.with(|p| p.interim)
            data-streaming=move || streaming.get().then_some("true")>
            <Show when=has_reasoning>
                <ReasoningBlock text=reasoning live=streaming />
            </Show>
            <div class="msg-body">
                <MarkdownView text=body live=streaming />
                <Show when=move || streaming.get()>
                    <span class="cursor" aria-hidden="true"></span>
                </Show>
            </div>
            <Show when=footer>
                <footer class="msg-footer">
                    {move || parts.with(|p| p.model.clone()).map(|m| view! { <span class="model">{m}</span> })}
                    {move || parts.with(|p| p.tokens).map(|t| view! { <span class="tokens">{render::tokens(t)}</span> })}
                    <CopyButton label="Copy answer" text=body class="answer-copy" />
                </footer>
            </Show>
        </article>
    }
}

#[component]
pub fn CommentaryBubble(row: RwSignal<Row>) -> impl IntoView {
    let text = Signal::derive(move || match &row.read().body {
        RowBody::Commentary(c) => c.clone(),
        _ => String::new(),
    });
    view! {
        <div class="msg msg-commentary">
            <MarkdownView text />
        </div>
    }
}

//! Message bubbles: the user's (tinted, right), the agent's answer (full
//! width, markdown, reasoning above, model and tokens below) and commentary
//! (dimmed, smaller, no footer). A logged user message can be edited in
//! place; a finished answer's footer can regenerate it and copies its
//! markdown.

use leptos::prelude::*;

use crate::render::{self, completed_prefix_len, pending_inline_reasoning, split_inline_reasoning};
use crate::settings::StreamingMode;
use crate::store::{Row, RowBody, SendState};
use crate::ui::browser;
use crate::ui::components::copy_button::CopyButton;
use crate::ui::components::edit_box::EditBox;
use crate::ui::components::markdown_view::MarkdownView;
use crate::ui::components::reasoning_block::ReasoningBlock;
use crate::ui::components::steer_button::SteerButton;
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
    let key = row.with_untracked(|r| r.key.clone());
    let editing = {
        let key = key.clone();
        Memo::new(move |_| rt.view.steering.editing.with(|e| e.as_ref() == Some(&key)))
    };
    // Only a logged message can be edited: the gateway names it.
    let logged_id = move || {
        user()
            .filter(|u| u.send == SendState::Delivered)
            .and_then(|u| u.message_id)
            .filter(|_| row.with(|r| r.seq.is_some()))
    };
    // Changes only when the box opens or closes: it keeps its draft
    // while the row updates.
    let edit_id = Memo::new(move |_| editing.get().then(logged_id).flatten());
    let row_text = move || {
        row.with_untracked(|r| match &r.body {
            RowBody::User(u) => u.text.clone(),
            _ => String::new(),
        })
    };
    let open_editor = move || {
        let key = row.with_untracked(|r| r.key.clone());
        rt.view.steering.editing.set(Some(key));
    };
    view! {
        <div class="msg msg-user" class:pending=move || state() == SendState::Pending
            class:failed=move || matches!(state(), SendState::Failed(_))
            class:editing=editing>
            {move || match edit_id.get() {
                Some(id) => view! {
                    <EditBox row_key=key.clone() message_id=id text=row_text() />
                }.into_any(),
                None => view! { <div class="msg-text">{text}</div> }.into_any(),
            }}
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
                SendState::Delivered if logged_id().is_some() && !editing.get() => view! {
                    <div class="msg-meta msg-actions">
                        <SteerButton label="Edit" testid="edit-message" on_press=open_editor />
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

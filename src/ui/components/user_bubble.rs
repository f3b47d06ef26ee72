//! The user's message bubble (tinted, right): its text and files, where
//! its send stands (sending, failed with Retry and Discard), and, once
//! logged, an Edit button that opens the editor in place.

use leptos::prelude::*;

use crate::protocol::FileRef;
use crate::store::{Row, RowBody, SendState};
use crate::ui::components::edit_box::EditBox;
use crate::ui::components::message_files::files_view;
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
    let files = Memo::new(move |_| match &row.read().body {
        RowBody::User(u) => u.files.clone(),
        _ => Box::default(),
    });
    let state = move || user().map(|u| u.send).unwrap_or(SendState::Delivered);
    let cmid = move || user().and_then(|u| u.client_msg_id).unwrap_or_default();
    let editing = {
        let key = row.with_untracked(|r| r.key.clone());
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
    let open_editor = move || {
        let key = row.with_untracked(|r| r.key.clone());
        rt.view.steering.editing.set(Some(key));
    };
    view! {
        <div class="msg msg-user" class:pending=move || state() == SendState::Pending
            class:failed=move || matches!(state(), SendState::Failed(_))
            class:editing=editing>
            {move || match edit_id.get() {
                Some(id) => editor(row, id, files.get_untracked().to_vec(), rt),
                None => view! { <div class="msg-text">{text}</div> }.into_any(),
            }}
            // While the box is open, the files show in it, each removable.
            {move || {
                let shown = !editing.get();
                files.with(|f| (shown && !f.is_empty()).then(|| files_view(f)))
            }}
            {move || match state() {
                SendState::Pending => view! { <div class="msg-meta">"Sending…"</div> }.into_any(),
                SendState::Failed(why) => send_failed(why, rt, cmid),
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

/// Where a send that failed stands, with Retry and Discard. Never inlined,
/// like [`editor`]: a first visit shows logged messages, so this code
/// stays out of the first load (docs/build.md).
#[inline(never)]
fn send_failed(
    why: String,
    rt: Runtime,
    cmid: impl Fn() -> String + Copy + Send + Sync + 'static,
) -> AnyView {
    view! {
        <div class="msg-meta send-error">
            <span>{why}</span>
            <button type="button" class="link-button" data-testid="retry-send"
                on:click=move |_| { let id = cmid(); rt.act(|s| s.retry(&id)); }>"Retry"</button>
            <button type="button" class="link-button"
                on:click=move |_| { let id = cmid(); rt.act(|s| s.discard(&id)); }>"Discard"</button>
        </div>
    }
    .into_any()
}

/// The editor in place of the text (never inlined, like [`send_failed`]).
/// It opens with a refused edit's text, files taken off and reason, else
/// with the message's text and all its files.
#[inline(never)]
fn editor(row: RwSignal<Row>, message_id: String, files: Vec<FileRef>, rt: Runtime) -> AnyView {
    let refused = rt.view.steering.refused.with_untracked(|r| {
        r.as_ref()
            .filter(|r| r.message_id == message_id)
            .map(|r| (r.text.clone(), r.removed.clone(), Some(r.why.clone())))
    });
    let (text, removed, refusal) = refused.unwrap_or_else(|| {
        let text = row.with_untracked(|r| match &r.body {
            RowBody::User(u) => u.text.clone(),
            _ => String::new(),
        });
        (text, Vec::new(), None)
    });
    let row_key = row.with_untracked(|r| r.key.clone());
    view! { <EditBox row_key message_id text files removed refusal /> }.into_any()
}

//! Commentary: the agent's interim beats, dimmed and smaller, no footer.

use leptos::prelude::*;

use crate::store::{Row, RowBody};
use crate::ui::components::markdown_view::MarkdownView;

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

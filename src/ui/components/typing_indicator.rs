//! The agent's typing dots, while the open thread's turn says it types.

use leptos::prelude::*;

use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn TypingIndicator() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let typing = move || rt.view.turn.with(|t| t.as_ref().is_some_and(|t| t.typing));
    view! {
        <Show when=typing>
            <div class="typing" data-testid="typing" role="img" aria-label="The agent is typing">
                <span></span><span></span><span></span>
            </div>
        </Show>
    }
}

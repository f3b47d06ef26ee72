//! "💭 Reasoning" above an answer: monospace, copyable, collapsible. Long
//! blocks start collapsed when the setting says so.

use leptos::prelude::*;

use crate::render::should_start_collapsed;
use crate::ui::components::copy_button::CopyButton;
use crate::ui::wiring::runtime::Runtime;

#[component]
pub fn ReasoningBlock(
    #[prop(into)] text: Signal<String>,
    #[prop(into)] live: Signal<bool>,
) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let auto = rt.settings.with_untracked(|s| s.reasoning_auto_collapse);
    let collapsed = RwSignal::new(auto && text.with_untracked(|t| should_start_collapsed(t)));
    // While it streams, a block that grows long folds once (unless the
    // reader already chose).
    let touched = RwSignal::new(false);
    Effect::new(move |_| {
        let long = text.with(|t| should_start_collapsed(t));
        if long
            && !touched.get_untracked()
            && rt.settings.with_untracked(|s| s.reasoning_auto_collapse)
        {
            collapsed.set(true);
        }
    });
    let toggle = move || {
        touched.set(true);
        collapsed.update(|c| *c = !*c);
    };
    view! {
        <section class="reasoning" class:collapsed=move || collapsed.get() class:live=move || live.get()>
            <div class="reasoning-head">
                <button type="button" class="reasoning-toggle" aria-expanded=move || (!collapsed.get()).to_string()
                    on:click=move |_| toggle()>
                    <span aria-hidden="true">{move || if collapsed.get() { "▸" } else { "▾" }}</span>
                    " 💭 Reasoning"
                </button>
                <CopyButton label="Copy reasoning" text class="reasoning-copy" />
            </div>
            <Show when=move || !collapsed.get()>
                <pre class="reasoning-body">{move || text.get()}</pre>
            </Show>
        </section>
    }
}

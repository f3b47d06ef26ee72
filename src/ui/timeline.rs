//! The scrolling list of rows of the open thread. Follows new output only
//! while the reader is at the bottom; otherwise offers a "new messages"
//! pill. Scrolling near the top loads older pages.

use std::cell::Cell;
use std::rc::Rc;

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use super::progress_draft::ProgressDraft;
use super::row_view::RowView;
use super::runtime::Runtime;

/// How close to the bottom (px) still counts as "at the bottom".
const BOTTOM_SLACK: i32 = 48;
/// How close to the top (px) starts loading the previous page.
const TOP_PRELOAD: i32 = 600;

#[component]
pub fn Timeline() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let scroller = NodeRef::<Div>::new();
    let content = NodeRef::<Div>::new();
    let at_bottom = StoredValue::new_local(Rc::new(Cell::new(true)));
    let unseen = RwSignal::new(false);

    let scroll_to_bottom = move || {
        if let Some(el) = scroller.get_untracked() {
            el.set_scroll_top(el.scroll_height());
        }
        unseen.set(false);
    };

    let on_scroll = move |_| {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let bottom = el.scroll_height() - el.scroll_top() - el.client_height() <= BOTTOM_SLACK;
        at_bottom.get_value().set(bottom);
        if bottom {
            unseen.set(false);
        }
        if el.scroll_top() < TOP_PRELOAD {
            if let Some(id) = rt.view.active.get_untracked() {
                rt.act(|s| s.load_older(&id));
            }
        }
    };

    // Content grows (streaming, new rows, images): stay pinned to the
    // bottom if the reader was there, else tell them something arrived.
    Effect::new(move |_| {
        let Some(inner) = content.get() else { return };
        let follow = at_bottom.get_value();
        let callback = Closure::<dyn FnMut()>::new(move || {
            if follow.get() {
                if let Some(el) = scroller.get_untracked() {
                    el.set_scroll_top(el.scroll_height());
                }
            } else {
                unseen.set(true);
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&inner);
        }
        // The timeline lives as long as the page: observer and callback too.
        callback.forget();
    });

    // A newly opened thread starts at its newest message.
    Effect::new(move |_| {
        rt.view.active.track();
        at_bottom.get_value().set(true);
        request_animation_frame(scroll_to_bottom);
    });

    let beginning = move || {
        let p = rt.view.paging.get();
        p.loaded && !p.has_older
    };
    let loading = move || rt.view.paging.get().loading;
    let empty = move || rt.view.order.with(|o| o.is_empty());

    view! {
        <div class="timeline" data-testid="timeline" node_ref=scroller on:scroll=on_scroll>
            <div class="timeline-inner" node_ref=content>
                <Show when=loading>
                    <div class="history-marker" role="status">"Loading earlier messages…"</div>
                </Show>
                <Show when=move || beginning() && !empty()>
                    <div class="history-marker" data-testid="beginning">"Beginning of thread"</div>
                </Show>
                <Show when=move || empty() && rt.view.active.with(|a| a.is_none())>
                    <div class="empty-state">
                        <h2>"What can the agent do for you?"</h2>
                        <p>"Your first message starts a new thread, named by the agent."</p>
                    </div>
                </Show>
                <div class="rows" aria-live="polite" aria-relevant="additions">
                    <For each=move || rt.view.order.get() key=|k| k.clone() let:key>
                        <RowView row_key=key />
                    </For>
                </div>
                <ProgressDraft />
                <TypingIndicator />
            </div>
            <Show when=move || unseen.get()>
                <button type="button" class="new-messages-pill" data-testid="new-messages"
                    on:click=move |_| {
                        at_bottom.get_value().set(true);
                        scroll_to_bottom();
                    }>"New messages ↓"</button>
            </Show>
        </div>
    }
}

#[component]
fn TypingIndicator() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let typing = move || rt.view.turn.with(|t| t.as_ref().is_some_and(|t| t.typing));
    view! {
        <Show when=typing>
            <div class="typing" data-testid="typing" aria-label="The agent is typing">
                <span></span><span></span><span></span>
            </div>
        </Show>
    }
}

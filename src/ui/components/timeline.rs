//! The scrolling list of rows of the open thread. Only the rows near the
//! screen are mounted (see [`virtual_list`]), so a thread of any length
//! costs what fits on screen. Follows new output only while the reader is
//! at the bottom; otherwise offers a "new messages" pill. Scrolling near the
//! top loads older pages without moving what the reader sees.

mod heights;
mod keyed_rows;
mod metrics;
mod virtual_list;
mod window;

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use crate::store::{Row, RowBody, RowKey, SendState};
use crate::ui::components::progress_draft::ProgressDraft;
use crate::ui::components::row_view::RowView;
use crate::ui::components::typing_indicator::TypingIndicator;
use crate::ui::components::work_expander::ExpandedTurns;
use crate::ui::wiring::row_mounts::{MountSink, RowMounts};
use crate::ui::wiring::runtime::Runtime;
use keyed_rows::KeyedRows;
use virtual_list::{After, Dom, VirtualList};

/// The rows' mounts go to the virtual list.
struct ListMounts(StoredValue<VirtualList, LocalStorage>);

impl MountSink for ListMounts {
    fn mounted(&self, key: &RowKey, el: web_sys::Element) {
        self.0.try_update_value(|l| l.mounted(key, el));
    }

    fn unmounted(&self, key: &RowKey) {
        self.0.try_update_value(|l| l.unmounted(key));
    }
}

#[component]
pub fn Timeline() -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let order = rt.view.order;
    let list = StoredValue::new_local(VirtualList::new());
    provide_context(RowMounts::new(ListMounts(list)));
    provide_context(ExpandedTurns::new());
    let window_keys = list.with_value(|l| l.window_keys);
    let unseen = RwSignal::new(false);
    let refresh_queued = StoredValue::new_local(false);

    let scroller = NodeRef::<Div>::new();
    let content = NodeRef::<Div>::new();
    let rows = NodeRef::<Div>::new();
    let top_spacer = NodeRef::<Div>::new();
    let bottom_spacer = NodeRef::<Div>::new();

    // What every event handler does with the list's answer.
    let follow_up = move |after: After| {
        if after.appended {
            // The reader's own message brings them to the end.
            if newest_row(rt).is_some_and(is_own_pending) {
                order.with_untracked(|o| list.try_update_value(|l| l.follow(o)));
            }
        }
        let following = list.with_value(|l| l.following);
        // A window short of the end offers "Jump to latest" instead.
        let detached = rt.view.paging.with_untracked(|p| p.has_newer);
        let show_pill = !following && !detached && (after.appended || unseen.get_untracked());
        if unseen.get_untracked() != show_pill {
            unseen.set(show_pill);
        }
        if after.near_top {
            if let Some(id) = rt.view.active.get_untracked() {
                rt.act(|s| s.load_older(&id));
            }
        }
        if after.near_bottom && rt.view.paging.with_untracked(|p| p.has_newer) {
            if let Some(id) = rt.view.active.get_untracked() {
                rt.act(|s| s.load_newer(&id));
            }
        }
        if after.refresh && !refresh_queued.get_value() {
            refresh_queued.set_value(true);
            request_animation_frame(move || {
                refresh_queued.set_value(false);
                order.with_untracked(|o| list.try_update_value(|l| l.refresh(o)));
            });
        }
    };

    // The window's rows, in order, moving none that stay (see keyed_rows).
    let owner = Owner::current().unwrap_or_default();
    let keyed = StoredValue::new_local(None::<KeyedRows>);
    Effect::new(move |_| {
        let keys = window_keys.get();
        let (Some(r), Some(b)) = (rows.get(), bottom_spacer.get()) else {
            return;
        };
        keyed.update_value(|k| {
            k.get_or_insert_with(|| KeyedRows::new(r.into(), b.into(), owner.clone()))
                .update(&keys, |key| view! { <RowView row_key=key /> }.into_any());
        });
    });

    // Hooks the list up to its elements and a ResizeObserver, once; both
    // go with the timeline.
    let on_resize_fn = StoredValue::new_local(None::<Closure<dyn FnMut(js_sys::Array)>>);
    on_cleanup(move || {
        list.try_update_value(VirtualList::detach);
        on_resize_fn.try_set_value(None);
    });
    Effect::new(move |_| {
        let (Some(s), Some(c), Some(r), Some(t), Some(b)) = (
            scroller.get(),
            content.get(),
            rows.get(),
            top_spacer.get(),
            bottom_spacer.get(),
        ) else {
            return;
        };
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Some(after) = list.try_update_value(|l| l.on_resize(&entries)) {
                follow_up(after);
            }
        });
        let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) else {
            return;
        };
        on_resize_fn.set_value(Some(on_resize));
        // Scroller: screen size; content: markers and the draft appearing.
        observer.observe(&s);
        observer.observe(&c);
        list.update_value(|l| {
            l.attach(Dom {
                scroller: s.into(),
                top_spacer: t.into(),
                bottom_spacer: b.into(),
                rows: r.into(),
                observer,
            })
        });
        let after = order.with_untracked(|o| {
            list.try_update_value(|l| l.on_order(&rt.view.take_order_edits(), o))
        });
        if let Some(after) = after {
            follow_up(after);
        }
    });

    // Rows came, went or moved; then, if asked, a jump to one of them
    // (after the edits, which may have brought it).
    let jumped = StoredValue::new_local(None::<u64>);
    Effect::new(move |_| {
        order.track();
        let focus = rt.view.focus.get();
        let edits = rt.view.take_order_edits();
        if !edits.is_empty() {
            let after = order.with_untracked(|o| list.try_update_value(|l| l.on_order(&edits, o)));
            if let Some(after) = after {
                follow_up(after);
            }
        }
        if let Some((key, n)) = focus {
            if jumped.get_value() != Some(n) {
                jumped.set_value(Some(n));
                order.with_untracked(|o| list.try_update_value(|l| l.jump_to(&key, o)));
                unseen.set(false);
            }
        }
    });

    let on_scroll = move |_| {
        let after = order.with_untracked(|o| list.try_update_value(|l| l.on_scroll(o)));
        if let Some(after) = after {
            follow_up(after);
        }
    };
    let jump_to_end = move |_| {
        order.with_untracked(|o| list.try_update_value(|l| l.follow(o)));
        unseen.set(false);
    };
    let jump_to_latest = move |_| {
        if let Some(id) = rt.view.active.get_untracked() {
            rt.act(|s| s.jump_to_latest(&id));
        }
    };
    let detached = move || rt.view.paging.with(|p| p.has_newer);
    let loading_newer = move || rt.view.paging.with(|p| p.loading_newer && p.has_newer);

    let beginning = move || {
        let p = rt.view.paging.get();
        p.loaded && !p.has_older
    };
    let loading = move || rt.view.paging.get().loading;
    let empty = move || order.with(|o| o.is_empty());

    view! {
        <div class="timeline" data-testid="timeline" tabindex="0" role="region" aria-label="Messages"
            node_ref=scroller on:scroll=on_scroll>
            <div class="timeline-inner" node_ref=content>
                <Show when=loading>
                    <div class="history-marker">"Loading earlier messages…"</div>
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
                <div class="rows" node_ref=rows>
                    <div class="rows-spacer" node_ref=top_spacer></div>
                    <div class="rows-spacer" node_ref=bottom_spacer></div>
                </div>
                <Show when=loading_newer>
                    <div class="history-marker">"Loading later messages…"</div>
                </Show>
                <ProgressDraft />
                <TypingIndicator />
            </div>
            <Show when=detached>
                <button type="button" class="new-messages-pill" data-testid="jump-latest"
                    on:click=jump_to_latest>"Jump to latest ↓"</button>
            </Show>
            <Show when=move || unseen.get() && !detached()>
                <button type="button" class="new-messages-pill" data-testid="new-messages"
                    on:click=jump_to_end>"New messages ↓"</button>
            </Show>
        </div>
    }
}

fn newest_row(rt: Runtime) -> Option<RwSignal<Row>> {
    rt.view
        .order
        .with_untracked(|o| o.last().and_then(|k| rt.view.row(k)))
}

fn is_own_pending(row: RwSignal<Row>) -> bool {
    row.with_untracked(|r| matches!(&r.body, RowBody::User(u) if u.send == SendState::Pending))
}

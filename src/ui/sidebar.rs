//! The thread list: pinned first, then newest activity first. Each thread
//! has a menu on right-click, long-press, the context-menu key or Shift+F10.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use web_sys::{KeyboardEvent, MouseEvent, PointerEvent};

use super::browser;
use super::runtime::Runtime;
use super::search_box::SearchBox;
use super::thread_menu::{MenuAt, ThreadMenu};
use super::view_state::ChannelSummary;

/// How long a touch must rest on a thread to open its menu.
const LONG_PRESS: Duration = Duration::from_millis(500);
/// How far (px) a finger may move before the press counts as a scroll.
const LONG_PRESS_SLOP: f64 = 10.0;

#[component]
pub fn Sidebar(drawer_open: RwSignal<bool>) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let menu = RwSignal::new(None::<MenuAt>);
    let renaming = RwSignal::new(None::<String>);
    let sorted = Memo::new(move |_| {
        let pins = rt.settings.with(|s| s.pins.clone());
        let mut list = rt.view.channels.get();
        list.sort_by(|a, b| {
            let pa = pins.contains(&a.id);
            let pb = pins.contains(&b.id);
            pb.cmp(&pa)
                .then(b.updated_at.cmp(&a.updated_at))
                .then_with(|| a.id.cmp(&b.id))
        });
        list
    });

    // The rename field gone (committed or cancelled), the focus goes back
    // to that thread's link, also once the new title comes back from the
    // gateway (a new item: the title is part of its key); until the user
    // puts the focus anywhere else.
    let refocus = RefocusLink(StoredValue::new(None));
    Effect::new(move |was: Option<Option<String>>| {
        let now = renaming.get();
        if let (Some(Some(id)), None) = (&was, &now) {
            refocus.0.set_value(Some(id.clone()));
        }
        now
    });
    let _focusin = window_event_listener(leptos::ev::focusin, move |ev| {
        let on_link = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|el| el.closest(".thread-item").ok().flatten())
            .and_then(|li| li.get_attribute("data-channel-id"));
        if on_link != refocus.0.get_value() {
            refocus.0.set_value(None);
        }
    });
    provide_context(refocus);

    view! {
        <nav class="sidebar" data-testid="sidebar" aria-label="Threads">
            <div class="sidebar-head">
                <span class="brand">"aria"</span>
                <a class="new-thread" data-testid="new-thread" href="#/"
                    on:click=move |_| {
                        rt.act(|s| s.open(None));
                        drawer_open.set(false);
                    }>
                    "+ New thread"
                </a>
            </div>
            <SearchBox drawer_open />
            <ul class="thread-list">
                <For each=move || sorted.get() key=|c| c.clone() let:c>
                    <ThreadItem c menu renaming />
                </For>
            </ul>
            <ThreadMenu menu renaming />
        </nav>
    }
}

#[component]
fn ThreadItem(
    c: ChannelSummary,
    menu: RwSignal<Option<MenuAt>>,
    renaming: RwSignal<Option<String>>,
) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let id = c.id.clone();
    let is_active = {
        let id = id.clone();
        Memo::new(move |_| rt.view.active.with(|a| a.as_deref() == Some(id.as_str())))
    };
    let pinned = {
        let id = id.clone();
        Memo::new(move |_| rt.settings.with(|s| s.is_pinned(&id)))
    };
    let is_renaming = {
        let id = id.clone();
        Memo::new(move |_| renaming.with(|r| r.as_deref() == Some(id.as_str())))
    };
    let title = if c.title.trim().is_empty() {
        "Untitled".to_string()
    } else {
        c.title.clone()
    };

    let open_menu = {
        let id = id.clone();
        move |x: f64, y: f64| {
            menu.set(Some(MenuAt {
                channel_id: id.clone(),
                x,
                y,
            }))
        }
    };
    let on_contextmenu = {
        let open_menu = open_menu.clone();
        move |ev: MouseEvent| {
            ev.prevent_default();
            open_menu(f64::from(ev.client_x()), f64::from(ev.client_y()));
        }
    };
    let on_keydown = {
        let open_menu = open_menu.clone();
        move |ev: KeyboardEvent| {
            if ev.key() == "ContextMenu" || (ev.key() == "F10" && ev.shift_key()) {
                ev.prevent_default();
                if let Some(el) = ev
                    .current_target()
                    .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                {
                    let r = el.get_bounding_client_rect();
                    open_menu(r.left() + 16.0, r.bottom());
                }
            }
        }
    };

    // Long-press for touch and pen: a timer that a move, lift or cancel
    // stops; when it fires, the click that follows is swallowed.
    let press = StoredValue::new_local(Rc::new(PressState::default()));
    let on_pointerdown = {
        let open_menu = open_menu.clone();
        move |ev: PointerEvent| {
            let state = press.get_value();
            if ev.pointer_type() == "mouse" {
                // A mouse click is never the tail of a long-press.
                state.fired.set(false);
                return;
            }
            state
                .start
                .set(Some((f64::from(ev.client_x()), f64::from(ev.client_y()))));
            state.fired.set(false);
            let (x, y) = (f64::from(ev.client_x()), f64::from(ev.client_y()));
            let open_menu = open_menu.clone();
            let timer_state = state.clone();
            let handle = set_timeout_with_handle(
                move || {
                    if timer_state.start.take().is_some() {
                        timer_state.fired.set(true);
                        open_menu(x, y);
                    }
                },
                LONG_PRESS,
            )
            .ok();
            if let Some(old) = state.timer.replace(handle) {
                old.clear();
            }
        }
    };
    let cancel_press = move || {
        let state = press.get_value();
        state.start.set(None);
        if let Some(t) = state.timer.take() {
            t.clear();
        }
    };
    let on_pointermove = move |ev: PointerEvent| {
        let state = press.get_value();
        if let Some((x, y)) = state.start.get() {
            let (dx, dy) = (f64::from(ev.client_x()) - x, f64::from(ev.client_y()) - y);
            if dx.hypot(dy) > LONG_PRESS_SLOP {
                cancel_press();
            }
        }
    };
    let on_click = move |ev: MouseEvent| {
        if press.get_value().fired.replace(false) {
            ev.prevent_default();
        }
    };
    // Lifting the finger after a long-press must not count as a tap: no
    // emulated mousedown (which would move the focus out of the menu to
    // this link) and no click.
    let on_touchend = move |ev: leptos::ev::TouchEvent| {
        if press.get_value().fired.get() {
            ev.prevent_default();
        }
    };

    // Enter and leaving the field commit; Escape cancels. Closing the field
    // (after either) blurs it: that blur must not commit again, nor commit
    // what Escape discarded.
    let commit_rename = {
        let id = id.clone();
        move |value: String| {
            if renaming.get_untracked().as_deref() != Some(id.as_str()) {
                return;
            }
            let id = id.clone();
            renaming.set(None);
            rt.act(|s| s.rename(&id, &value));
        }
    };
    let on_rename_key = {
        let commit = commit_rename.clone();
        move |ev: KeyboardEvent| match ev.key().as_str() {
            "Enter" => {
                ev.prevent_default();
                commit(event_target_value(&ev));
            }
            "Escape" => renaming.set(None),
            _ => {}
        }
    };
    let rename_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = rename_input.get() {
            let _ = el.focus();
            el.select();
        }
    });

    let link = NodeRef::<leptos::html::A>::new();
    if let Some(refocus) = use_context::<RefocusLink>() {
        let id = id.clone();
        Effect::new(move |_| {
            if let Some(a) = link.get() {
                if refocus.0.with_value(|r| r.as_deref() == Some(id.as_str())) {
                    browser::refocus(Some(a.into()));
                }
            }
        });
    }

    view! {
        <li class="thread-item" data-channel-id=id.clone() class:active=move || is_active.get()>
            <Show when=move || is_renaming.get() fallback={
                let title = title.clone();
                let id = id.clone();
                move || view! {
                    <a href=browser::channel_href(Some(&id)) node_ref=link
                        aria-current=move || is_active.get().then_some("page")
                        aria-haspopup="menu"
                        on:contextmenu=on_contextmenu.clone()
                        on:keydown=on_keydown.clone()
                        on:pointerdown=on_pointerdown.clone()
                        on:pointermove=on_pointermove
                        on:pointerup=move |_| cancel_press()
                        on:pointercancel=move |_| cancel_press()
                        on:touchend=on_touchend
                        on:click=on_click>
                        <span class="thread-title">
                            <Show when=move || pinned.get()><span class="pin" role="img" aria-label="Pinned">"📌"</span></Show>
                            {title.clone()}
                        </span>
                        <span class="thread-preview">{c.preview.clone()}</span>
                        <span class="thread-badges">
                            <Show when=move || { c.needs_you > 0 }>
                                <span class="badge needs-you" data-testid="needs-you">"needs you"</span>
                            </Show>
                            <Show when=move || c.busy>
                                <span class="badge busy" data-testid="busy" role="img" aria-label="Agent working"></span>
                            </Show>
                            <Show when=move || { c.unread > 0 }>
                                <span class="badge unread" data-testid="unread" role="img" aria-label=format!("{} unread", c.unread)>{c.unread}</span>
                            </Show>
                        </span>
                    </a>
                }
            }>
                <input class="rename-input" node_ref=rename_input aria-label="Thread title" maxlength="120"
                    value=title.clone()
                    on:keydown=on_rename_key.clone()
                    on:blur={
                        let commit = commit_rename.clone();
                        move |ev| commit(event_target_value(&ev))
                    } />
            </Show>
        </li>
    }
}

/// The thread whose link should get the focus back when it (re)appears.
#[derive(Clone, Copy)]
struct RefocusLink(StoredValue<Option<String>>);

#[derive(Default)]
struct PressState {
    start: Cell<Option<(f64, f64)>>,
    fired: Cell<bool>,
    timer: Cell<Option<TimeoutHandle>>,
}

//! One thread in the list: its title, preview, unread and pin marks, and
//! its menu on right-click, long-press, the context-menu key or Shift+F10.

use std::time::Duration;

use leptos::prelude::*;
use web_sys::{KeyboardEvent, MouseEvent, PointerEvent};

use crate::ui::browser;
use crate::ui::components::thread_menu::MenuAt;
use crate::ui::hooks::long_press::{use_long_press, LongPressOptions};
use crate::ui::wiring::runtime::Runtime;
use crate::ui::wiring::view_state::ChannelSummary;

/// How long a touch must rest on a thread to open its menu.
const LONG_PRESS: Duration = Duration::from_millis(500);
/// How far (px) a finger may move before the press counts as a scroll.
const LONG_PRESS_SLOP: f64 = 10.0;

#[component]
pub fn ThreadItem(
    id: String,
    menu: RwSignal<Option<MenuAt>>,
    renaming: RwSignal<Option<String>>,
) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    // This thread's fields, each its own memo: a change to one wakes only
    // what shows it.
    let summary = {
        let id = id.clone();
        Memo::new(move |_| {
            rt.view
                .channels
                .with(|cs| cs.iter().find(|c| c.id == id).cloned())
                .unwrap_or_default()
        })
    };
    let field = move |f: fn(&ChannelSummary) -> u32| Memo::new(move |_| summary.with(f));
    let unread = field(|c| c.unread);
    let needs_you = field(|c| c.needs_you);
    let busy = Memo::new(move |_| summary.with(|c| c.busy));
    let preview = Memo::new(move |_| summary.with(|c| c.preview.clone()));
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
    let title = Memo::new(move |_| {
        summary.with(|c| {
            if c.title.trim().is_empty() {
                "Untitled".to_string()
            } else {
                c.title.clone()
            }
        })
    });

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

    // Long-press for touch and pen opens the menu too.
    let press = use_long_press(
        LongPressOptions {
            delay: LONG_PRESS,
            slop: LONG_PRESS_SLOP,
        },
        open_menu.clone(),
    );

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
                let id = id.clone();
                move || view! {
                    <a href=browser::channel_href(Some(&id)) node_ref=link
                        aria-current=move || is_active.get().then_some("page")
                        aria-haspopup="menu"
                        on:contextmenu=on_contextmenu.clone()
                        on:keydown=on_keydown.clone()
                        on:pointerdown=move |ev: PointerEvent| press.pointer_down(&ev)
                        on:pointermove=move |ev: PointerEvent| press.pointer_move(&ev)
                        on:pointerup=move |_| press.cancel()
                        on:pointercancel=move |_| press.cancel()
                        on:touchend=move |ev| press.touch_end(&ev)
                        on:click=move |ev: MouseEvent| press.click(&ev)>
                        <span class="thread-title">
                            <Show when=move || pinned.get()><span class="pin" role="img" aria-label="Pinned">"📌"</span></Show>
                            {move || title.get()}
                        </span>
                        <span class="thread-preview">{move || preview.get()}</span>
                        <span class="thread-badges">
                            <Show when=move || { needs_you.get() > 0 }>
                                <span class="badge needs-you" data-testid="needs-you">"needs you"</span>
                            </Show>
                            <Show when=move || busy.get()>
                                <span class="badge busy" data-testid="busy" role="img" aria-label="Agent working"></span>
                            </Show>
                            <Show when=move || { unread.get() > 0 }>
                                <span class="badge unread" data-testid="unread" role="img" aria-label=move || format!("{} unread", unread.get())>{move || unread.get()}</span>
                            </Show>
                        </span>
                    </a>
                }
            }>
                <input class="rename-input" node_ref=rename_input aria-label="Thread title" maxlength="120"
                    value=title.get_untracked()
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
pub struct RefocusLink(pub StoredValue<Option<String>>);

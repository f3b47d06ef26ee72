//! The thread context menu (right-click, long-press, context-menu key or
//! Shift+F10): rename, pin, mark read, copy link, export, delete with a
//! confirm.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::export::Format;
use crate::ui::browser;
use crate::ui::wiring::offline;
use crate::ui::wiring::runtime::Runtime;

/// Where the menu opens and for which thread.
#[derive(Debug, Clone, PartialEq)]
pub struct MenuAt {
    pub channel_id: String,
    pub x: f64,
    pub y: f64,
}

/// Margin kept between the menu and the viewport edges, in px.
const EDGE: f64 = 8.0;

#[component]
pub fn ThreadMenu(
    menu: RwSignal<Option<MenuAt>>,
    renaming: RwSignal<Option<String>>,
) -> impl IntoView {
    let rt = expect_context::<Runtime>();
    let el = NodeRef::<Div>::new();
    let confirming = RwSignal::new(false);
    // What had the focus before the menu took it, to give it back.
    let back = StoredValue::new_local(None::<web_sys::HtmlElement>);
    let close = move || {
        confirming.set(false);
        menu.set(None);
        browser::refocus(back.try_update_value(Option::take).flatten());
    };

    // Keep the menu inside the viewport, then focus its first item.
    Effect::new(move |_| {
        let (Some(at), Some(node)) = (menu.get(), el.get()) else {
            return;
        };
        let Some(w) = web_sys::window() else { return };
        let vw = w.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        let vh = w
            .inner_height()
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let style = web_sys::HtmlElement::style(&node);
        // Twice: placed near the right edge, the menu has less room, so a
        // long item may wrap and make it taller than first measured.
        for _ in 0..2 {
            let rect = node.get_bounding_client_rect();
            let x = at.x.min(vw - rect.width() - EDGE).max(EDGE);
            let y = at.y.min(vh - rect.height() - EDGE).max(EDGE);
            let _ = style.set_property("left", &crate::render::px(x));
            let _ = style.set_property("top", &crate::render::px(y));
        }
        let outside = browser::focused().filter(|f| !node.contains(Some(f)));
        if outside.is_some() {
            back.set_value(outside);
        }
        if let Some(first) = node.query_selector("[role=menuitem]").ok().flatten() {
            if let Ok(first) = first.dyn_into::<web_sys::HtmlElement>() {
                let _ = first.focus();
            }
        }
    });

    // Escape or a click anywhere else closes it.
    let _outside = window_event_listener(leptos::ev::pointerdown, move |ev| {
        let inside = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
            .is_some_and(|t| el.get_untracked().is_some_and(|m| m.contains(Some(&t))));
        if !inside && menu.get_untracked().is_some() {
            close();
        }
    });
    let on_key = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "Escape" => {
            ev.prevent_default();
            close();
        }
        "ArrowDown" | "ArrowUp" => {
            ev.prevent_default();
            move_focus(el, ev.key() == "ArrowDown");
        }
        _ => {}
    };

    let id = move || {
        menu.with(|m| m.as_ref().map(|m| m.channel_id.clone()))
            .unwrap_or_default()
    };
    let pinned = move || rt.settings.with(|s| s.is_pinned(&id()));
    let exporting = move || rt.export.with(Option::is_some);
    // Renaming and deleting need the gateway: the offline copy is read-only.
    let offline = move || offline::unreachable(rt);
    let act = move |action: &str| {
        let channel = id();
        match action {
            "rename" => renaming.set(Some(channel)),
            "pin" => {
                let mut s = rt.settings.get_untracked();
                s.toggle_pin(&channel);
                rt.save_settings(s);
            }
            "read" => rt.act(|s| {
                s.mark_read(&channel);
                Vec::new()
            }),
            "copy-link" => {
                let base = browser::location()
                    .and_then(|l| l.href().ok())
                    .map(|h| h.split('#').next().unwrap_or_default().to_string())
                    .unwrap_or_default();
                let _ = browser::copy_to_clipboard(&format!(
                    "{base}{}",
                    browser::channel_href(Some(&channel))
                ));
            }
            "export-md" => rt.export_thread(&channel, Format::Markdown),
            "export-json" => rt.export_thread(&channel, Format::Json),
            "delete" => {
                confirming.set(true);
                return;
            }
            "delete-confirm" => rt.act(|s| s.delete(&channel)),
            _ => {}
        }
        close();
    };

    view! {
        <Show when=move || menu.with(|m| m.is_some())>
            <div class="thread-menu" role="menu" data-testid="thread-menu" aria-label="Thread actions"
                node_ref=el on:keydown=on_key on:contextmenu=|ev| ev.prevent_default()>
                <Show when=move || !confirming.get() fallback=move || view! {
                    <p class="menu-confirm">"Delete this thread for everyone?"</p>
                    <button type="button" role="menuitem" class="danger" data-action="delete-confirm"
                        on:click=move |_| act("delete-confirm")>"Delete"</button>
                    <button type="button" role="menuitem" data-action="cancel" on:click=move |_| close()>"Cancel"</button>
                }>
                    <button type="button" role="menuitem" data-action="rename" disabled=offline on:click=move |_| act("rename")>"Rename"</button>
                    <button type="button" role="menuitem" data-action="pin" on:click=move |_| act("pin")>
                        {move || if pinned() { "Unpin" } else { "Pin" }}
                    </button>
                    <button type="button" role="menuitem" data-action="read" on:click=move |_| act("read")>"Mark read"</button>
                    <button type="button" role="menuitem" data-action="copy-link" on:click=move |_| act("copy-link")>"Copy link"</button>
                    <button type="button" role="menuitem" data-action="export-md" disabled=exporting on:click=move |_| act("export-md")>"Export as Markdown"</button>
                    <button type="button" role="menuitem" data-action="export-json" disabled=exporting on:click=move |_| act("export-json")>"Export as JSON"</button>
                    <button type="button" role="menuitem" class="danger" data-action="delete" disabled=offline on:click=move |_| act("delete")>"Delete…"</button>
                </Show>
            </div>
        </Show>
    }
}

fn move_focus(menu: NodeRef<Div>, down: bool) {
    let Some(node) = menu.get_untracked() else {
        return;
    };
    let Ok(items) = node.query_selector_all("[role=menuitem]") else {
        return;
    };
    let n = items.length();
    if n == 0 {
        return;
    }
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element());
    let current = (0..n).find(|i| {
        items
            .item(*i)
            .zip(active.as_ref())
            .is_some_and(|(item, a)| item.is_same_node(Some(a)))
    });
    let next = match current {
        Some(i) if down => (i + 1) % n,
        Some(i) => (i + n - 1) % n,
        None => 0,
    };
    if let Some(el) = items
        .item(next)
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

//! The one global keydown listener: reads the press and the focus, asks
//! [`crate::shortcuts::action`] what it means and does it. Removed when
//! the app unmounts.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};

use crate::shortcuts::{action, neighbour, Action, Context, Press};
use crate::ui::browser;
use crate::ui::wiring::runtime::Runtime;

/// The search field (another part of the app may or may not show one).
const SEARCH_INPUT: &str = "search-input";
/// What has the keyboard while it is open.
const MODAL: &str = "dialog[open], [role=dialog], [role=menu]";

pub fn install(rt: Runtime, help_open: RwSignal<bool>) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.default_prevented() {
            return;
        }
        let (key, code) = (ev.key(), ev.code());
        let press = Press {
            key: &key,
            code: &code,
            ctrl: ev.ctrl_key(),
            meta: ev.meta_key(),
            alt: ev.alt_key(),
            shift: ev.shift_key(),
            composing: crate::shortcuts::ime_owns(ev.is_composing(), ev.key_code()),
        };
        let Some(act) = action(&press, context(rt, &ev)) else {
            return;
        };
        ev.prevent_default();
        run(rt, help_open, act);
    });
    on_cleanup(move || handle.remove());
}

fn context(rt: Runtime, ev: &KeyboardEvent) -> Context {
    let target = ev.target().and_then(|t| t.dyn_into::<HtmlElement>().ok());
    let typing = target.as_ref().is_some_and(|el| {
        matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
            || el.is_content_editable()
    });
    let composer = target
        .as_ref()
        .filter(|el| el.id() == "composer-input")
        .and_then(|el| {
            el.dyn_ref::<web_sys::HtmlTextAreaElement>()
                .map(|t| t.value())
        });
    let modal = document()
        .and_then(|d| d.query_selector(MODAL).ok().flatten())
        .is_some();
    Context {
        typing,
        in_composer: composer.is_some(),
        composer_empty: composer.is_some_and(|text| text.is_empty()),
        busy: active_busy(rt).is_some(),
        modal,
    }
}

/// The open thread, if its agent is working.
fn active_busy(rt: Runtime) -> Option<String> {
    let id = rt.view.active.get_untracked()?;
    rt.view
        .channels
        .with_untracked(|cs| cs.iter().any(|c| c.id == id && c.busy))
        .then_some(id)
}

fn run(rt: Runtime, help_open: RwSignal<bool>, act: Action) {
    match act {
        Action::Help => help_open.set(true),
        Action::Search => {
            if let Some(el) = document()
                .and_then(|d| d.get_element_by_id(SEARCH_INPUT))
                .and_then(|e| e.dyn_into::<HtmlElement>().ok())
            {
                let _ = el.focus();
            }
        }
        Action::NewThread => {
            go(None);
            focus_composer();
        }
        Action::FocusComposer => focus_composer(),
        Action::StopTurn => {
            if let Some(id) = active_busy(rt) {
                rt.act(|s| s.cancel_turn(&id));
            }
        }
        Action::EditLast => edit_last(rt),
        Action::Regenerate => regenerate_last(rt),
        Action::PreviousThread | Action::NextThread => {
            let step = if act == Action::NextThread { 1 } else { -1 };
            let list = thread_order();
            // The hash, not the open thread: a press right after another
            // has changed the hash before its hashchange has opened it.
            let (current, _) = browser::hash_target();
            if let Some(id) = neighbour(&list, current.as_deref(), step) {
                go(Some(id));
            }
        }
    }
}

/// Opens the edit box of the open thread's last own message.
fn edit_last(rt: Runtime) {
    let Some(id) = rt.view.active.get_untracked() else {
        return;
    };
    let steering = rt.view.steering;
    if steering.blocker.get_untracked().is_some() {
        return;
    }
    if let Some(last) = rt.read(|s| s.last_editable(&id)).flatten() {
        steering.editing.set(Some(last.key));
    }
}

/// Regenerates the open thread's last answer.
fn regenerate_last(rt: Runtime) {
    let Some(id) = rt.view.active.get_untracked() else {
        return;
    };
    if let Some(turn) = rt.read(|s| s.last_answer_turn(&id)).flatten() {
        let cmid = browser::random_id("r_");
        rt.act(|s| s.regenerate(&id, &turn, cmid));
    }
}

/// The threads in the order the sidebar shows them.
fn thread_order() -> Vec<String> {
    let Some(items) = document().and_then(|d| {
        d.query_selector_all("[data-testid=sidebar] .thread-item[data-channel-id]")
            .ok()
    }) else {
        return Vec::new();
    };
    (0..items.length())
        .filter_map(|i| items.item(i)?.dyn_into::<web_sys::Element>().ok())
        .filter_map(|el| el.get_attribute("data-channel-id"))
        .collect()
}

/// Opens a thread as its link in the sidebar would (a history entry; the
/// app's hashchange listener opens it).
fn go(channel: Option<&str>) {
    if let Some(location) = browser::location() {
        let _ = location.set_hash(&browser::channel_href(channel));
    }
}

fn focus_composer() {
    if let Some(el) = browser::composer() {
        let _ = el.focus();
    }
}

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

//! The app shell's service worker (`sw.js`, made by scripts/precache from
//! js/sw.js): registered on secure contexts only (the browser allows it
//! nowhere else), and a failed registration only costs the offline shell,
//! never the app. Plus the "Updated to a new version" notice when this load
//! is a newer build than the last one.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::app_update::{self, SEEN_BUILD_KEY, UPDATED};
use crate::ui::browser;
use crate::ui::components::live_regions::Announcer;

const SCRIPT: &str = "sw.js";

/// Registers `sw.js` for the page's directory, in the background, once
/// the page has loaded: its install fetches every file of the shell again,
/// which must not compete with the first load's own requests.
pub fn register() {
    let Some(window) = web_sys::window() else {
        return;
    };
    if window
        .document()
        .is_some_and(|d| d.ready_state() == "complete")
    {
        register_now(&window);
        return;
    }
    let on_load = Closure::once_into_js(|| {
        if let Some(window) = web_sys::window() {
            register_now(&window);
        }
    });
    // `load` fires once per page, so the closure is called at most once.
    let _ = window.add_event_listener_with_callback("load", on_load.unchecked_ref());
}

fn register_now(window: &web_sys::Window) {
    let navigator = window.navigator();
    let supported =
        js_sys::Reflect::has(&navigator, &JsValue::from_str("serviceWorker")).unwrap_or(false);
    if !window.is_secure_context() || !supported {
        return;
    }
    let registering = navigator.service_worker().register(SCRIPT);
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = JsFuture::from(registering).await {
            let why = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| format!("{e:?}"));
            browser::log_warning(&format!("no offline shell: {SCRIPT} not registered: {why}"));
        }
    });
}

/// This build's name: its hashed wasm file, from boot.js's tag.
fn current_build() -> Option<String> {
    web_sys::window()?
        .document()?
        .get_element_by_id("aria-boot")?
        .get_attribute("data-wasm")
}

/// Shown (and said once through the polite live region) when this load is
/// a newer build than the previous one; dismissible.
#[component]
pub fn UpdateNotice() -> impl IntoView {
    let current = current_build().unwrap_or_default();
    let previous = browser::load(SEEN_BUILD_KEY);
    let updated = app_update::is_update(previous.as_deref(), &current);
    if !current.is_empty() {
        browser::save(SEEN_BUILD_KEY, &current);
    }
    let shown = RwSignal::new(updated);
    if updated {
        let say = expect_context::<Announcer>();
        // After the live region is on the page: text it starts with is not
        // announced.
        set_timeout(
            move || say.polite(UPDATED),
            std::time::Duration::from_millis(500),
        );
    }
    move || {
        shown.get().then(|| {
            view! {
                <div class="notice notice-info" data-testid="update-notice">
                    <span>{UPDATED}</span>
                    <button type="button" class="icon-button" aria-label="Dismiss"
                        on:click=move |_| shown.set(false)>"×"</button>
                </div>
            }
        })
    }
}

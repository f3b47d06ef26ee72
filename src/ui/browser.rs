//! Small wrappers over browser APIs the app uses: storage, clock, ids,
//! location. Failures (storage disabled, no window) degrade quietly.

use wasm_bindgen::JsValue;

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        // Quota errors leave the previous value; nothing else to do.
        let _ = s.set_item(key, value);
    }
}

/// A random id from the browser's CSPRNG (falls back to Math.random).
pub fn random_id(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    let filled = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .and_then(|c| c.get_random_values_with_u8_array(&mut bytes).ok())
        .is_some();
    if !filled {
        for b in &mut bytes {
            *b = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

/// The id this browser keeps for itself across sessions (§2 `device_id`).
pub fn device_id() -> String {
    const KEY: &str = "aria.device_id";
    match load(KEY) {
        Some(id) if !id.is_empty() => id,
        _ => {
            let id = random_id("d_");
            save(KEY, &id);
            id
        }
    }
}

pub fn location() -> Option<web_sys::Location> {
    web_sys::window().map(|w| w.location())
}

/// A query parameter of the page URL, e.g. `?gateway=`.
pub fn query_param(name: &str) -> Option<String> {
    let search = location()?.search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get(name)
}

/// How streamed answers render (`?render=`, read once per page).
pub fn render_mode() -> crate::render::RenderMode {
    thread_local! {
        static MODE: crate::render::RenderMode =
            crate::render::RenderMode::from_param(query_param("render").as_deref());
    }
    MODE.with(|mode| *mode)
}

/// The thread named by the URL hash `#/t/<channel_id>`, if any.
pub fn hash_channel() -> Option<String> {
    let hash = location()?.hash().ok()?;
    let id = hash.strip_prefix("#/t/")?;
    let id = js_sys::decode_uri_component(id).ok()?.as_string()?;
    (!id.is_empty()).then_some(id)
}

pub fn channel_href(channel_id: Option<&str>) -> String {
    match channel_id {
        Some(id) => format!("#/t/{}", String::from(js_sys::encode_uri_component(id))),
        None => "#/".to_string(),
    }
}

/// Points the URL at a thread without a new history entry (the app moved
/// there by itself, e.g. auto-threading).
pub fn replace_hash(channel_id: Option<&str>) {
    let Some(w) = web_sys::window() else { return };
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&channel_href(channel_id)));
    }
}

/// Whether the page runs inside a frame (or cannot tell, which counts as
/// framed): another page could then overlay it to trick the user's clicks.
pub fn is_framed() -> bool {
    let Some(w) = web_sys::window() else {
        return true;
    };
    match w.top() {
        Ok(Some(top)) => !js_sys::Object::is(&top, &w.self_()),
        _ => true,
    }
}

/// The focused element, to give the focus back to after a dialog (`None`
/// when nothing is, i.e. the body).
pub fn focused() -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    web_sys::window()?
        .document()?
        .active_element()?
        .dyn_into::<web_sys::HtmlElement>()
        .ok()
        .filter(|el| el.tag_name() != "BODY")
}

/// Gives the focus back to `el` on the next frame (when a closing dialog's
/// inert page can take it), if it is still in the page and nothing else
/// took the focus meanwhile; else to the composer.
pub fn refocus(el: Option<web_sys::HtmlElement>) {
    leptos::prelude::request_animation_frame(move || {
        if focused().is_some() {
            return;
        }
        let el = el.filter(|el| el.is_connected()).or_else(composer);
        if let Some(el) = el {
            let _ = el.focus();
        }
    });
}

/// The composer's text field, where the focus goes by default.
pub fn composer() -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    web_sys::window()?
        .document()?
        .query_selector("form[data-testid=composer] textarea")
        .ok()??
        .dyn_into::<web_sys::HtmlElement>()
        .ok()
}

pub fn copy_to_clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

pub fn log_warning(text: &str) {
    web_sys::console::warn_1(&JsValue::from_str(text));
}

/// Sets `data-theme` on `<html>`; CSS follows the system when it is absent.
pub fn apply_theme(theme: Option<&str>) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let _ = match theme {
        Some(t) => root.set_attribute("data-theme", t),
        None => root.remove_attribute("data-theme"),
    };
}

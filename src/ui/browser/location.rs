//! The page's URL: query parameters and the hash that names a thread or
//! an item (`#/t/<channel_id>/<seq>`), read and written.

use wasm_bindgen::JsValue;

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

/// The thread and maybe the item named by the URL hash (see
/// [`crate::deep_link`]).
pub fn hash_target() -> (Option<String>, Option<u64>) {
    let hash = location().and_then(|l| l.hash().ok()).unwrap_or_default();
    let Some((id, seq)) = crate::deep_link::parse(&hash) else {
        return (None, None);
    };
    let id = js_sys::decode_uri_component(id)
        .ok()
        .and_then(|s| s.as_string())
        .filter(|id| !id.is_empty());
    match id {
        Some(id) => (Some(id), seq),
        None => (None, None),
    }
}

/// Points the URL at one item of a thread, as a new history entry (the
/// reader chose it: Back returns to where they were).
pub fn push_item_hash(channel_id: &str, seq: u64) {
    let Some(w) = web_sys::window() else { return };
    let url = format!("{}/{seq}", channel_href(Some(channel_id)));
    if let Ok(history) = w.history() {
        let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&url));
    }
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

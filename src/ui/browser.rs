//! Small wrappers over browser APIs the app uses: storage, clock, ids,
//! location. Failures (storage disabled, no window) degrade quietly.

use wasm_bindgen::closure::Closure;
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

/// Writes `text` to the clipboard; the promise settles with the outcome.
pub fn copy_to_clipboard(text: &str) -> Option<js_sys::Promise> {
    web_sys::window().map(|w| w.navigator().clipboard().write_text(text))
}

/// An export's parts (see [`crate::export::Parts`]): a page's text as a JS
/// string, out of the wasm heap, as soon as it exists, and each run of
/// pages one Blob, which only references its parts' data (no 30 MB copy
/// or concatenation at the end). Making a Blob waits for the browser
/// process (a page's Blob took 13-135 ms on a loaded machine), so there is
/// one per run, not per page. A run whose Blob fails stays the array of its
/// parts, which [`push_parts`] flattens.
pub struct FileParts;

impl crate::export::Parts for FileParts {
    type Part = JsValue;

    fn keep(&mut self, text: String) -> JsValue {
        JsValue::from_str(&text)
    }

    fn join(&mut self, run: Vec<JsValue>, sep: &'static str) -> JsValue {
        let seq = js_sys::Array::new();
        push_parts(&seq, &run, sep);
        match web_sys::Blob::new_with_blob_sequence(&seq) {
            Ok(blob) => blob.into(),
            Err(_) => seq.into(),
        }
    }
}

/// Appends `parts` to `seq` with `sep` between them.
fn push_parts(seq: &js_sys::Array, parts: &[JsValue], sep: &str) {
    let between = (!sep.is_empty()).then(|| JsValue::from_str(sep));
    for (i, part) in parts.iter().enumerate() {
        if let Some(between) = between.as_ref().filter(|_| i > 0) {
            seq.push(between);
        }
        if js_sys::Array::is_array(part) {
            js_sys::Array::from(part).for_each(&mut |p, _, _| {
                seq.push(&p);
            });
        } else {
            seq.push(part);
        }
    }
}

/// Saves an export as a file: a Blob of its parts in order (see
/// [`FileParts`]), an object URL, a click on an `<a download>`; the URL is
/// revoked once the download had time to start.
pub fn download(file: crate::export::File<JsValue>) {
    use wasm_bindgen::JsCast;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let seq = js_sys::Array::new();
    seq.push(&JsValue::from_str(&file.head));
    push_parts(&seq, &file.pages, file.sep);
    seq.push(&JsValue::from_str(file.tail));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(file.mime);
    let Ok(blob) = web_sys::Blob::new_with_blob_sequence_and_options(&seq, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(a) = doc
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(&file.name);
        a.click();
    }
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(2),
    );
}

/// The local time zone's offset east of UTC, in minutes.
pub fn utc_offset_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}

/// Runs `f` once, when the page is next idle (`requestIdleCallback`).
pub fn when_idle(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    if let Some(w) = web_sys::window() {
        let f = Closure::once_into_js(f);
        let _ = w.request_idle_callback(f.unchecked_ref());
    }
}

/// Lays `html` out once in a new element of `class` (which the CSS keeps
/// off screen and unpainted), then removes it: the fonts and the layout
/// code it needs are ready after that. `html` must be the sanitizer's.
pub fn lay_out_once(class: &str, html: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(el), Some(body)) = (doc.create_element("div"), doc.body()) else {
        return;
    };
    el.set_class_name(class);
    let _ = el.set_attribute("aria-hidden", "true");
    el.set_inner_html(html);
    let _ = body.append_child(&el);
    // Reading a size lays it out now.
    let _ = el.get_bounding_client_rect();
    el.remove();
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

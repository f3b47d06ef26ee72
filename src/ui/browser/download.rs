//! Saving an export as a file, built from Blobs out of the wasm heap.

use wasm_bindgen::JsValue;

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
/// [`FileParts`]), saved by [`save_blob`].
pub fn download(file: crate::export::File<JsValue>) {
    let seq = js_sys::Array::new();
    seq.push(&JsValue::from_str(&file.head));
    push_parts(&seq, &file.pages, file.sep);
    seq.push(&JsValue::from_str(file.tail));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(file.mime);
    let Ok(blob) = web_sys::Blob::new_with_blob_sequence_and_options(&seq, &options) else {
        return;
    };
    save_blob(&blob, &file.name);
}

/// Saves a Blob as a file named `name`: an object URL, a click on an
/// `<a download>`; the URL is revoked once the download had time to start.
pub fn save_blob(blob: &web_sys::Blob, name: &str) {
    use wasm_bindgen::JsCast;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Some(a) = doc
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(2),
    );
}

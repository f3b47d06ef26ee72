//! `blob:` URLs of bytes received: the only way a stored file reaches the
//! page, as an `<img>` of a raster type or a download, never as a document.

/// A `blob:` URL of `bytes` typed `mime`; revoke it with [`revoke`].
pub fn object_url(bytes: &[u8], mime: &str) -> Option<String> {
    let blob = blob(bytes, mime)?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}

/// A `blob:` URL of a picked file (a thumbnail before it is sent).
pub fn file_url(file: &web_sys::File) -> Option<String> {
    web_sys::Url::create_object_url_with_blob(file).ok()
}

pub fn revoke(url: &str) {
    let _ = web_sys::Url::revoke_object_url(url);
}

/// Saves `bytes` under `name`, typed as opaque bytes so that the browser
/// only saves them.
pub fn save(bytes: &[u8], name: &str) {
    if let Some(blob) = blob(bytes, "application/octet-stream") {
        super::save_blob(&blob, name);
    }
}

fn blob(bytes: &[u8], mime: &str) -> Option<web_sys::Blob> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).ok()
}

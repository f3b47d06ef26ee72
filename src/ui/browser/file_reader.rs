//! Reading the bytes of a picked, pasted or dropped file: the whole file
//! into an `ArrayBuffer` outside the wasm heap (the browser reads it off
//! the main thread), and one chunk at a time into the heap to send it.

use wasm_bindgen_futures::JsFuture;

/// The whole file, read by the browser.
pub async fn read_all(blob: &web_sys::Blob) -> Result<js_sys::Uint8Array, String> {
    match JsFuture::from(blob.array_buffer()).await {
        Ok(buffer) => Ok(js_sys::Uint8Array::new(&buffer)),
        Err(_) => Err("the file could not be read".into()),
    }
}

/// The bytes `start..end` of what [`read_all`] returned, copied into the
/// wasm heap (clamped to the bytes there are).
pub fn slice(bytes: &js_sys::Uint8Array, start: u64, end: u64) -> Vec<u8> {
    let len = u64::from(bytes.length());
    let (start, end) = (start.min(len) as u32, end.min(len) as u32);
    bytes.subarray(start, end).to_vec()
}

/// The files of a `FileList` (an `<input type=file>`, a drop).
pub fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.item(i)).collect()
}

/// The files a paste or a drop carries (a screenshot pasted is one).
pub fn transfer_files(data: Option<web_sys::DataTransfer>) -> Vec<web_sys::File> {
    let Some(data) = data else {
        return Vec::new();
    };
    let items = data.items();
    let from_items: Vec<web_sys::File> = (0..items.length())
        .filter_map(|i| items.get(i))
        .filter(|item| item.kind() == "file")
        .filter_map(|item| item.get_as_file().ok().flatten())
        .collect();
    if from_items.is_empty() {
        files_of(data.files())
    } else {
        from_items
    }
}

/// Whether a drag carries files (not text or a link being dragged).
pub fn carries_files(data: Option<web_sys::DataTransfer>) -> bool {
    data.is_some_and(|d| {
        d.types()
            .iter()
            .any(|t| t.as_string().is_some_and(|t| t == "Files"))
    })
}

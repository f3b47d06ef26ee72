//! The bytes of files attached to a message not yet sent, kept in
//! IndexedDB (the `uploads` store of `offline_db.rs`, as the `File` itself
//! with its name, type, size and digest), so that after a reload their
//! uploads go on. Failures are logged: the draft then only loses its files.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::IdbTransactionMode;

use super::offline_db::{transact, UPLOADS};

/// One kept file.
pub struct KeptFile {
    pub upload_id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
    pub sha256: String,
    pub blob: web_sys::Blob,
}

/// Keeps `file`, then calls `then` once the write has committed or failed.
pub fn put(file: &KeptFile, then: impl FnOnce() + 'static) {
    let record = js_sys::Object::new();
    let fields: [(&str, JsValue); 5] = [
        ("name", file.name.as_str().into()),
        ("mime", file.mime.as_str().into()),
        ("size", (file.size as f64).into()),
        ("sha256", file.sha256.as_str().into()),
        ("blob", file.blob.clone().into()),
    ];
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&record, &key.into(), &value);
    }
    let key = JsValue::from_str(&file.upload_id);
    transact(
        UPLOADS,
        IdbTransactionMode::Readwrite,
        move |store| {
            store.put_with_key(&record, &key)?;
            Ok(Box::new(|| ()))
        },
        Box::new(move |done| {
            warn_on_error(done);
            then();
        }),
    );
}

pub fn delete(upload_ids: Vec<String>) {
    if upload_ids.is_empty() {
        return;
    }
    transact(
        UPLOADS,
        IdbTransactionMode::Readwrite,
        move |store| {
            for id in &upload_ids {
                store.delete(&JsValue::from_str(id))?;
            }
            Ok(Box::new(|| ()))
        },
        Box::new(warn_on_error),
    );
}

/// The kept files of these uploads (those found, in order).
pub fn get(upload_ids: Vec<String>, then: impl FnOnce(Vec<KeptFile>) + 'static) {
    transact(
        UPLOADS,
        IdbTransactionMode::Readonly,
        move |store| {
            let reqs = upload_ids
                .iter()
                .map(|id| store.get(&JsValue::from_str(id)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Box::new(move || {
                reqs.iter()
                    .zip(upload_ids)
                    .filter_map(|(r, id)| kept(id, r.result().ok()?))
                    .collect()
            }))
        },
        Box::new(move |found| match found {
            Ok(files) => then(files),
            Err(e) => {
                warn_on_error(Err(e));
                then(Vec::new())
            }
        }),
    );
}

fn kept(upload_id: String, record: JsValue) -> Option<KeptFile> {
    let field = |key: &str| js_sys::Reflect::get(&record, &key.into()).ok();
    Some(KeptFile {
        upload_id,
        name: field("name")?.as_string()?,
        mime: field("mime")?.as_string()?,
        size: field("size")?.as_f64()? as u64,
        sha256: field("sha256")?.as_string()?,
        blob: field("blob")?.dyn_into().ok()?,
    })
}

fn warn_on_error(done: Result<(), JsValue>) {
    if let Err(e) = done {
        super::log_warning(&format!("aria: kept files: {e:?}"));
    }
}

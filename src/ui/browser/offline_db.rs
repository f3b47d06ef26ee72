//! IndexedDB as a plain key → text store for the offline copy (the
//! `records` store; the records are JSON text, see `offline/record.rs`),
//! and the bytes of files attached to a message not yet sent (the
//! `uploads` store, see `upload_outbox.rs`). Callbacks,
//! not futures (the app has no async runtime otherwise): each operation is
//! one transaction whose end (`complete` or `abort`) calls back once.
//! Every failure is an `Err` the caller logs, never a panic (a private
//! window may refuse IndexedDB).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{IdbDatabase, IdbKeyRange, IdbObjectStore, IdbRequest, IdbTransactionMode};

use crate::offline::Writes;

const DB_NAME: &str = "aria-offline";
/// 1: `records`; 2: `uploads` too.
const DB_VERSION: u32 = 2;
const STORE: &str = "records";
pub(super) const UPLOADS: &str = "uploads";

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

pub(super) type Done<T> = Box<dyn FnOnce(Result<T, JsValue>)>;

/// One JS function for two events of which exactly one fires (`success`
/// or `error`, `complete` or `abort`): it runs `f` with the event's type
/// and is freed after.
fn once(f: impl FnOnce(String) + 'static) -> js_sys::Function {
    Closure::once_into_js(move |ev: web_sys::Event| f(ev.type_())).unchecked_into()
}

/// The database, opened (and created) once per page.
fn with_db(then: Done<IdbDatabase>) {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return then(Ok(db));
    }
    let factory = match web_sys::window().map(|w| w.indexed_db()) {
        Some(Ok(Some(f))) => f,
        _ => return then(Err("IndexedDB is not available".into())),
    };
    let req = match factory.open_with_u32(DB_NAME, DB_VERSION) {
        Ok(r) => r,
        Err(e) => return then(Err(e)),
    };
    let upgrading = req.clone();
    let on_upgrade = Closure::once_into_js(move || {
        if let Some(db) = upgrading
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
        {
            // Each store that an older version did not have.
            let names = db.object_store_names();
            for store in [STORE, UPLOADS] {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    let opened = req.clone();
    let done = once(move |_| {
        let db = opened.result().and_then(|r| r.dyn_into::<IdbDatabase>());
        if let Ok(db) = &db {
            DB.with(|d| *d.borrow_mut() = Some(db.clone()));
        }
        then(db)
    });
    req.set_onsuccess(Some(&done));
    req.set_onerror(Some(&done));
}

/// Runs `work` in one transaction on `store` and calls `then` with its
/// result once the transaction has committed (an `Err` if it aborted).
pub(super) fn transact<T: 'static>(
    store: &'static str,
    mode: IdbTransactionMode,
    work: impl FnOnce(&IdbObjectStore) -> Result<Box<dyn FnOnce() -> T>, JsValue> + 'static,
    then: Done<T>,
) {
    with_db(Box::new(move |db| {
        let run = || {
            let tx = db?.transaction_with_str_and_mode(store, mode)?;
            let result = work(&tx.object_store(store)?)?;
            Ok((tx, result))
        };
        let (tx, result) = match run() {
            Ok(ok) => ok,
            Err(e) => return then(Err(e)),
        };
        let end = once(move |kind| match kind.as_str() {
            "complete" => then(Ok(result())),
            _ => then(Err(format!("the transaction ended in {kind}").into())),
        });
        tx.set_oncomplete(Some(&end));
        tx.set_onabort(Some(&end));
    }));
}

/// The texts kept under `keys` (`None`: no record, or not text).
pub fn get_all(
    keys: Vec<String>,
    then: impl FnOnce(Result<Vec<Option<String>>, JsValue>) + 'static,
) {
    transact(
        STORE,
        IdbTransactionMode::Readonly,
        move |store| {
            let reqs = keys
                .iter()
                .map(|k| store.get(&JsValue::from_str(k)))
                .collect::<Result<Vec<IdbRequest>, _>>()?;
            Ok(Box::new(move || {
                reqs.iter()
                    .map(|r| r.result().ok().and_then(|v| v.as_string()))
                    .collect()
            }))
        },
        Box::new(then),
    );
}

/// Puts and deletes records, all or nothing.
pub fn write(writes: Writes, then: impl FnOnce(Result<(), JsValue>) + 'static) {
    transact(
        STORE,
        IdbTransactionMode::Readwrite,
        move |store| {
            for key in &writes.delete {
                store.delete(&JsValue::from_str(key))?;
            }
            for (key, text) in &writes.put {
                store.put_with_key(&JsValue::from_str(text), &JsValue::from_str(key))?;
            }
            Ok(Box::new(|| ()))
        },
        Box::new(then),
    );
}

/// Deletes every record with a key in `[from, to)`.
pub fn delete_range(from: String, to: String, then: impl FnOnce(Result<(), JsValue>) + 'static) {
    transact(
        STORE,
        IdbTransactionMode::Readwrite,
        move |store| {
            let range = IdbKeyRange::bound_with_lower_open_and_upper_open(
                &JsValue::from_str(&from),
                &JsValue::from_str(&to),
                false,
                true,
            )?;
            store.delete(&range)?;
            Ok(Box::new(|| ()))
        },
        Box::new(then),
    );
}

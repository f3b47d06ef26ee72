//! IndexedDB as a plain key → text store for the offline copy (one object
//! store; the records are JSON text, see `offline/record.rs`). Requests
//! are awaited through a promise each; every failure is an `Err` the
//! caller logs, never a panic (a private window may refuse IndexedDB).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbKeyRange, IdbRequest, IdbTransaction, IdbTransactionMode};

use crate::offline::Writes;

const DB_NAME: &str = "aria-offline";
const DB_VERSION: u32 = 1;
const STORE: &str = "records";

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// Waits for a request's `success` (or `error`) and gives its result.
async fn done(req: &IdbRequest) -> Result<JsValue, JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        req.set_onsuccess(Some(&resolve));
        req.set_onerror(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    req.set_onsuccess(None);
    req.set_onerror(None);
    outcome?;
    req.result()
}

/// Waits for a transaction to commit.
async fn committed(tx: &IdbTransaction) -> Result<(), JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onerror(Some(&reject));
        tx.set_onabort(Some(&reject));
    });
    JsFuture::from(promise).await.map(drop)
}

/// The database, opened (and created) once per page.
async fn db() -> Result<IdbDatabase, JsValue> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()?
        .ok_or("IndexedDB is not available")?;
    let req = factory.open_with_u32(DB_NAME, DB_VERSION)?;
    let upgrading = req.clone();
    let on_upgrade = Closure::<dyn FnMut()>::new(move || {
        if let Some(db) = upgrading
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
        {
            // Version 1 is the first: the store does not exist yet.
            let _ = db.create_object_store(STORE);
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    let opened = done(&req).await;
    req.set_onupgradeneeded(None);
    let db: IdbDatabase = opened?.dyn_into()?;
    DB.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn transaction(db: &IdbDatabase, mode: IdbTransactionMode) -> Result<IdbTransaction, JsValue> {
    db.transaction_with_str_and_mode(STORE, mode)
}

/// The texts kept under `keys` (`None`: no record, or not text), read in
/// one transaction.
pub async fn get_all(keys: &[String]) -> Result<Vec<Option<String>>, JsValue> {
    let db = db().await?;
    let tx = transaction(&db, IdbTransactionMode::Readonly)?;
    let store = tx.object_store(STORE)?;
    // All asked at once, then awaited: the transaction stays open while
    // requests are pending.
    let reqs = keys
        .iter()
        .map(|k| store.get(&JsValue::from_str(k)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(reqs.len());
    for req in &reqs {
        out.push(done(req).await?.as_string());
    }
    Ok(out)
}

/// Puts and deletes records, all or nothing.
pub async fn write(writes: &Writes) -> Result<(), JsValue> {
    let db = db().await?;
    let tx = transaction(&db, IdbTransactionMode::Readwrite)?;
    let store = tx.object_store(STORE)?;
    for key in &writes.delete {
        store.delete(&JsValue::from_str(key))?;
    }
    for (key, text) in &writes.put {
        store.put_with_key(&JsValue::from_str(text), &JsValue::from_str(key))?;
    }
    committed(&tx).await
}

/// Deletes every record with a key in `[from, to)`.
pub async fn delete_range(from: &str, to: &str) -> Result<(), JsValue> {
    let db = db().await?;
    let tx = transaction(&db, IdbTransactionMode::Readwrite)?;
    let range = IdbKeyRange::bound_with_lower_open_and_upper_open(
        &JsValue::from_str(from),
        &JsValue::from_str(to),
        false,
        true,
    )?;
    tx.object_store(STORE)?.delete(&range)?;
    committed(&tx).await
}

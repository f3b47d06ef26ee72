//! The offline copy in the page: read when the app first points at a
//! gateway (and shown, if the gateway has not answered by then), written
//! a moment after threads change (never per streamed update: the cache
//! waits for a turn to end), cleared from Settings. Failures are console
//! warnings; the app works the same without the copy.

use leptos::prelude::*;

use crate::net::{Address, Status};
use crate::offline::{gateway_range, index_key, thread_key, Index, OfflineView, ThreadRecord};
use crate::protocol::History;
use crate::store::{Change, Store};
use crate::ui::browser;
use crate::ui::browser::offline_db;
use crate::ui::wiring::runtime::Runtime;

/// How long changes collect before they are written.
const WRITE_DELAY: std::time::Duration = std::time::Duration::from_millis(1500);

/// Whether the app cannot reach its gateway now (not while it is first
/// connecting): what is shown is a copy, read-only.
pub fn unreachable(rt: Runtime) -> bool {
    !matches!(rt.view.status.get(), Status::Connected | Status::Connecting)
}

/// Keeps the copy in step with the runtime: read when it points at a
/// gateway, noted with each batch of the store's changes, written once
/// the gateway is connected. (The runtime does not know this module.)
pub fn install(rt: Runtime) {
    Effect::new(move |_| {
        if let Some(gateway) = rt.gateway.get() {
            target(rt, &gateway);
        }
    });
    Effect::new(move |_| {
        if rt.view.status.with(|s| *s == Status::Connected) {
            connected(rt);
        }
    });
    rt.on_changes(move |changes, store| note(rt, changes, store));
}

/// The app points at `gateway`: on another one than before, its copy is
/// read (and shown, on the first gateway of this page).
fn target(rt: Runtime, gateway: &Address) {
    let url = gateway.url();
    let first = rt.offline.with_value(|c| c.gateway().is_none());
    if rt.offline.try_update_value(|c| c.target(&url)) != Some(true) {
        return;
    }
    offline_db::get_all(vec![index_key(&url)], move |texts| {
        let index = match texts {
            Ok(texts) => texts.into_iter().flatten().next().and_then(|text| {
                Index::decode(&text)
                    .map_err(|why| warn(&url, &format!("its index is ignored: {why}")))
                    .ok()
            }),
            Err(e) => {
                warn(&url, &format!("IndexedDB refused: {e:?}"));
                None
            }
        };
        let ids: Vec<String> = index
            .iter()
            .flat_map(|i| i.recent.iter().map(|r| r.channel_id.clone()))
            .collect();
        let keys = ids.iter().map(|id| thread_key(&url, id)).collect();
        offline_db::get_all(keys, move |texts| {
            let kept = ids
                .iter()
                .zip(texts.unwrap_or_default())
                .filter_map(|(id, text)| {
                    let text = text?;
                    match ThreadRecord::decode(&text, id) {
                        Ok(r) => Some((text.len(), r.page)),
                        Err(why) => {
                            warn(&url, &format!("a thread is ignored: {why}"));
                            None
                        }
                    }
                })
                .collect();
            loaded(rt, &url, index, kept, first);
        });
    });
}

/// The copy of `gateway` was read: the cache knows what is kept, and the
/// store shows it if it may (the page's first gateway, not answering yet).
fn loaded(
    rt: Runtime,
    gateway: &str,
    index: Option<Index>,
    kept: Vec<(usize, History)>,
    may_restore: bool,
) {
    let restore = may_restore && !kept.is_empty() && rt.read(|s| !s.is_online()).unwrap_or(false);
    let channels = index
        .as_ref()
        .map(|i| i.channels.clone())
        .unwrap_or_default();
    let now = browser::now_ms();
    rt.offline
        .update_value(|c| c.loaded(gateway, index, &kept, restore));
    if restore {
        let pages = kept.into_iter().map(|(_, page)| page).collect();
        rt.update(|s| s.restore_offline(channels, pages, now));
    }
    // The thread open now counts as opened.
    let active = rt.read(|s| s.active().map(str::to_string)).flatten();
    rt.offline
        .update_value(|c| c.note(&[Change::Active], active.as_deref(), now));
    show(rt, restore);
    schedule_write(rt);
}

/// The gateway's `ready` arrived.
fn connected(rt: Runtime) {
    if let Some(gateway) = rt.gateway.get_untracked() {
        rt.offline.update_value(|c| c.connected(&gateway.url()));
        schedule_write(rt);
    }
}

/// Notes the store's changes (called with each batch the view gets).
fn note(rt: Runtime, changes: &[Change], store: &Store) {
    let now = browser::now_ms();
    let pending = rt
        .offline
        .try_update_value(|c| {
            c.note(changes, store.active(), now);
            c.pending()
        })
        .unwrap_or(false);
    if pending {
        schedule_write(rt);
    }
}

fn schedule_write(rt: Runtime) {
    if rt.offline_write.get_value() {
        return;
    }
    rt.offline_write.set_value(true);
    set_timeout(
        move || {
            rt.offline_write.set_value(false);
            write(rt);
        },
        WRITE_DELAY,
    );
}

fn write(rt: Runtime) {
    let writes = rt
        .offline
        .try_update_value(|c| rt.read(|s| c.take(s)).flatten())
        .flatten();
    if let Some(writes) = writes {
        let gateway = rt
            .offline
            .with_value(|c| c.gateway().unwrap_or_default().to_string());
        offline_db::write(writes, move |done| {
            if let Err(e) = done {
                warn(&gateway, &format!("not written: {e:?}"));
            }
        });
        show(rt, rt.offline_view.get_untracked().restored);
    }
    // A thread whose turn runs is written when it ends.
    if rt.offline.with_value(|c| c.pending()) {
        schedule_write(rt);
    }
}

/// Settings' "Clear offline copy": this gateway's records go.
pub fn clear(rt: Runtime) {
    let Some(gateway) = rt.offline.try_update_value(|c| c.clear()).flatten() else {
        return;
    };
    show(rt, rt.offline_view.get_untracked().restored);
    let (from, to) = gateway_range(&gateway);
    offline_db::delete_range(from, to, move |done| {
        if let Err(e) = done {
            warn(&gateway, &format!("not cleared: {e:?}"));
        }
    });
}

fn show(rt: Runtime, restored: bool) {
    let kept = rt.offline.with_value(|c| c.summary());
    let next = OfflineView { restored, kept };
    if rt.offline_view.get_untracked() != next {
        rt.offline_view.set(next);
    }
}

fn warn(gateway: &str, what: &str) {
    browser::log_warning(&format!("aria: the offline copy of {gateway}: {what}"));
}

//! Wires the pure store to the browser: socket events in, effects out
//! (frames, navigation, localStorage), and one view sync per animation frame.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::export::{Exporter, Progress, Routed};
use crate::net::{Address, Event, LinkAnswer, Socket};
use crate::offline::{OfflineCache, OfflineView};
use crate::settings::Settings;
use crate::store::{Change, Effect, PendingSend, Store};
use crate::ui::browser;
use crate::ui::browser::notifications;
use crate::ui::wiring::files::{FilesCore, FilesView};
use crate::ui::wiring::view_state::ViewState;
use wasm_bindgen::JsValue;

mod connection;
mod export;
mod file_outbox;
mod files;

use connection::page_address;

/// Where the pending sends are kept. The name is older than the word
/// "pending sends" (the gateway's log is the outbox): sends waiting in a
/// browser from before are still read.
const PENDING_SENDS_KEY: &str = "aria.outbox";
const SETTINGS_KEY: &str = "aria.settings";
const CLIENT: &str = concat!("aria-web/", env!("CARGO_PKG_VERSION"));

struct Core {
    store: Store,
    socket: Option<Socket>,
    /// What the user said in this page about the link's `?gateway=`.
    link: LinkAnswer,
    /// Where the socket is pointed, and with which token.
    target: Option<(Address, Option<String>)>,
    exporter: Exporter<JsValue>,
}

/// A question the app waits on before it connects.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// A link names a gateway that is not the page's own, saved or remembered.
    Link(Address),
    /// The token would travel unencrypted to another machine.
    Plaintext(Address),
}

/// The app's handle, cheap to copy into every component and callback.
#[derive(Clone, Copy)]
pub struct Runtime {
    core: StoredValue<Core, LocalStorage>,
    flush_pending: StoredValue<Rc<Cell<bool>>, LocalStorage>,
    pub view: ViewState,
    pub settings: RwSignal<Settings>,
    /// Something happened while the tab was hidden (the title's marker).
    pub marked: RwSignal<bool>,
    /// The gateway in use or about to be (what the token field is for).
    pub gateway: RwSignal<Option<Address>>,
    pub prompt: RwSignal<Option<Prompt>>,
    /// The thread export running, if any.
    pub export: RwSignal<Option<Progress>>,
    /// What is written to the offline copy (see `wiring/offline.rs`), and
    /// whether a write is scheduled.
    pub(super) offline: StoredValue<OfflineCache, LocalStorage>,
    pub(super) offline_write: StoredValue<bool, LocalStorage>,
    pub offline_view: RwSignal<OfflineView>,
    /// Told each batch of the store's changes, before the view
    /// (see [`Runtime::on_changes`]).
    watcher: StoredValue<Option<Watcher>, LocalStorage>,
    /// Files (§13): what the components read, and what the runtime keeps.
    pub files: FilesView,
    files_core: StoredValue<FilesCore, LocalStorage>,
}

type Watcher = Rc<dyn Fn(&[Change], &Store)>;

impl Runtime {
    /// Builds the store from what this browser kept, and connects.
    pub fn start() -> Runtime {
        let own = page_address().ok();
        let stored = browser::load(SETTINGS_KEY);
        let settings = Settings::from_json(stored.as_deref().unwrap_or_default(), own.as_ref());
        // Keep what an older version saved only in its new form (a global
        // token is now bound to one gateway).
        if stored.is_some_and(|text| text != settings.to_json()) {
            browser::save(SETTINGS_KEY, &settings.to_json());
        }
        let mut store = Store::new();
        let kept: Vec<PendingSend> = browser::load(PENDING_SENDS_KEY)
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default();
        store.restore_pending_sends(kept);
        let rt = Runtime {
            core: StoredValue::new_local(Core {
                store,
                socket: None,
                link: LinkAnswer::Unasked,
                target: None,
                exporter: Exporter::default(),
            }),
            flush_pending: StoredValue::new_local(Rc::new(Cell::new(false))),
            view: ViewState::new(),
            settings: RwSignal::new(settings),
            marked: RwSignal::new(false),
            gateway: RwSignal::new(None),
            prompt: RwSignal::new(None),
            export: RwSignal::new(None),
            offline: StoredValue::new_local(OfflineCache::default()),
            offline_write: StoredValue::new_local(false),
            offline_view: RwSignal::new(OfflineView::default()),
            watcher: StoredValue::new_local(None),
            files: FilesView::new(),
            files_core: StoredValue::new_local(FilesCore::default()),
        };
        rt.open_hash();
        rt.restore_kept_files();
        let socket = Socket::new(move |e| rt.on_socket(e));
        rt.core.update_value(|c| c.socket = Some(socket));
        rt.replan(true);
        rt
    }

    /// Runs a user action on the store and carries out its effects.
    pub fn act(&self, action: impl FnOnce(&mut Store) -> Vec<Effect>) {
        let effects = self
            .core
            .try_update_value(|c| action(&mut c.store))
            .unwrap_or_default();
        self.run(effects);
    }

    /// Opens what the URL hash names: a thread, or one item in place.
    pub fn open_hash(&self) {
        match browser::hash_target() {
            (Some(id), Some(seq)) => self.act(|s| s.open_at(id, seq)),
            (channel, _) => self.act(|s| s.open(channel)),
        }
    }

    /// Changes the store by a user action that sends nothing by itself
    /// and returns what the caller needs (e.g. the search edit to fire).
    pub fn update<T>(&self, f: impl FnOnce(&mut Store) -> T) -> Option<T> {
        let out = self.core.try_update_value(|c| f(&mut c.store));
        self.schedule_flush();
        out
    }

    /// Reads the store (for one-off lookups in event handlers).
    pub fn read<T>(&self, f: impl FnOnce(&Store) -> T) -> Option<T> {
        self.core.try_with_value(|c| f(&c.store))
    }

    pub fn send_message(&self, text: &str) {
        let id = browser::random_id("k_");
        let now = browser::now_ms();
        self.act(|s| s.send(text, id, now));
    }

    /// Saves settings; reconnects when that changes the gateway or token.
    pub fn save_settings(&self, next: Settings) {
        let prev = self.settings.get_untracked();
        browser::save(SETTINGS_KEY, &next.to_json());
        let replan = prev.gateway_url != next.gateway_url
            || prev.tokens != next.tokens
            || prev.trusted_gateways != next.trusted_gateways
            || prev.plaintext_ok != next.plaintext_ok;
        self.settings.set(next);
        if replan {
            self.replan(false);
        }
    }

    fn socket(&self) -> Option<Socket> {
        self.core.try_with_value(|c| c.socket.clone()).flatten()
    }

    fn on_socket(&self, event: Event) {
        match event {
            Event::Frame(frame) => {
                let Some(frame) = self.files_first(frame) else {
                    return;
                };
                let now = browser::now_ms();
                let routed = self.core.try_update_value(|c| c.exporter.route(frame, now));
                match routed {
                    Some(Routed::Page(h)) => self.on_export_page(h),
                    Some(Routed::Store {
                        frame,
                        refresh,
                        request,
                    }) => {
                        self.act(|s| s.apply(frame, now));
                        if refresh {
                            self.send_export(request);
                        }
                    }
                    None => {}
                }
            }
            Event::Dropped(why) => {
                browser::log_warning(&format!("aria: dropped a frame: {why}"));
                self.act(|s| {
                    s.record_dropped(why);
                    Vec::new()
                });
            }
            Event::Status(status) => self.view.status.set(status),
            Event::Lost => {
                self.files_lost();
                self.core.update_value(|c| c.exporter.connection_lost());
                self.act(|s| {
                    s.connection_lost();
                    Vec::new()
                })
            }
        }
    }

    fn run(&self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Send(frame) => {
                    if let Some(socket) = self.socket() {
                        socket.send(&frame);
                    }
                }
                Effect::Navigate(channel) => browser::replace_hash(channel.as_deref()),
                Effect::PersistPendingSends => {
                    if let Some(json) =
                        self.read(|s| serde_json::to_string(s.pending_sends()).unwrap_or_default())
                    {
                        browser::save(PENDING_SENDS_KEY, &json);
                    }
                }
                Effect::Alert(alert) => self.alert(&alert),
            }
        }
        self.schedule_flush();
    }

    /// Coalesces view updates to one per animation frame (except in the
    /// benchmark's per-update baseline, which updates the view at once).
    /// An alert of the store: maybe a notification, and the away marker.
    fn alert(&self, alert: &crate::store::Alert) {
        let channel = alert.channel();
        let thread = self
            .read(|s| s.channel(channel).map(|c| c.meta.title.clone()))
            .flatten()
            .unwrap_or_default();
        let enabled = self.settings.with_untracked(|s| s.notifications);
        if notifications::alert(alert, &thread, enabled) && !self.marked.get_untracked() {
            self.marked.set(true);
        }
    }

    fn schedule_flush(&self) {
        if !browser::render_mode().coalesces() {
            self.flush();
            return;
        }
        let pending = self.flush_pending.get_value();
        if pending.replace(true) {
            return;
        }
        let rt = *self;
        request_animation_frame(move || {
            pending.set(false);
            rt.flush();
        });
    }

    /// `watch` is told every batch of the store's changes (the offline
    /// copy's hook; one watcher).
    pub fn on_changes(&self, watch: impl Fn(&[Change], &Store) + 'static) {
        self.watcher.set_value(Some(Rc::new(watch)));
    }

    fn flush(&self) {
        let view = self.view;
        let rt = *self;
        self.core.update_value(|c| {
            let changes = c.store.take_changes();
            if !changes.is_empty() {
                if let Some(watch) = rt.watcher.with_value(Clone::clone) {
                    watch(&changes, &c.store);
                }
                view.sync(&c.store, changes);
            }
        });
    }
}

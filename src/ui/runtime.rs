//! Wires the pure store to the browser: socket events in, effects out
//! (frames, navigation, localStorage), and one view sync per animation frame.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use super::attention;
use super::browser;
use super::view_state::ViewState;
use crate::net::{gateway_url, Event, PageOrigin, Socket, Target};
use crate::protocol::{Hello, PROTOCOL_VERSION};
use crate::settings::Settings;
use crate::store::{Effect, OutboxEntry, Store};

const OUTBOX_KEY: &str = "aria.outbox";
const SETTINGS_KEY: &str = "aria.settings";
const CLIENT: &str = concat!("aria-web/", env!("CARGO_PKG_VERSION"));

struct Core {
    store: Store,
    socket: Option<Socket>,
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
}

impl Runtime {
    /// Builds the store from what this browser kept, and connects.
    pub fn start() -> Runtime {
        let settings = Settings::from_json(&browser::load(SETTINGS_KEY).unwrap_or_default());
        let mut store = Store::new();
        let kept: Vec<OutboxEntry> = browser::load(OUTBOX_KEY)
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default();
        store.restore_outbox(kept);
        let rt = Runtime {
            core: StoredValue::new_local(Core {
                store,
                socket: None,
            }),
            flush_pending: StoredValue::new_local(Rc::new(Cell::new(false))),
            view: ViewState::new(),
            settings: RwSignal::new(settings.clone()),
            marked: RwSignal::new(false),
        };
        rt.act(|s| s.open(browser::hash_channel()));
        let socket = Socket::new(target(&settings), move |e| rt.on_socket(e));
        rt.core.update_value(|c| c.socket = Some(socket.clone()));
        socket.connect();
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

    /// Reads the store (for one-off lookups in event handlers).
    pub fn read<T>(&self, f: impl FnOnce(&Store) -> T) -> Option<T> {
        self.core.try_with_value(|c| f(&c.store))
    }

    pub fn send_message(&self, text: &str) {
        let id = browser::random_id("k_");
        let now = browser::now_ms();
        self.act(|s| s.send(text, id, now));
    }

    pub fn retry_connection(&self) {
        if let Some(socket) = self.socket() {
            socket.connect();
        }
    }

    /// Simulates a network drop (diagnostics view).
    pub fn drop_connection(&self) {
        if let Some(socket) = self.socket() {
            socket.drop_connection();
        }
    }

    /// Saves settings; reconnects when the address or token changed.
    pub fn save_settings(&self, next: Settings) {
        let prev = self.settings.get_untracked();
        browser::save(SETTINGS_KEY, &next.to_json());
        let reconnect = prev.gateway_url != next.gateway_url || prev.token != next.token;
        self.settings.set(next.clone());
        if reconnect {
            if let Some(socket) = self.socket() {
                socket.retarget(target(&next));
            }
        }
    }

    fn socket(&self) -> Option<Socket> {
        self.core.try_with_value(|c| c.socket.clone()).flatten()
    }

    fn on_socket(&self, event: Event) {
        match event {
            Event::Frame(frame) => {
                let now = browser::now_ms();
                self.act(|s| s.apply(frame, now));
            }
            Event::Dropped(why) => {
                browser::log_warning(&format!("aria: dropped a frame: {why}"));
                self.act(|s| {
                    s.record_dropped(why);
                    Vec::new()
                });
            }
            Event::Status(status) => self.view.status.set(status),
            Event::Lost => self.act(|s| {
                s.connection_lost();
                Vec::new()
            }),
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
                Effect::PersistOutbox => {
                    if let Some(json) =
                        self.read(|s| serde_json::to_string(s.outbox()).unwrap_or_default())
                    {
                        browser::save(OUTBOX_KEY, &json);
                    }
                }
                Effect::Alert(alert) => attention::alert(*self, &alert),
            }
        }
        self.schedule_flush();
    }

    /// Coalesces view updates to one per animation frame (except in the
    /// benchmark's per-update baseline, which updates the view at once).
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

    fn flush(&self) {
        let view = self.view;
        self.core.update_value(|c| {
            let changes = c.store.take_changes();
            if !changes.is_empty() {
                view.sync(&c.store, changes);
            }
        });
    }
}

fn target(settings: &Settings) -> Target {
    let location = browser::location();
    let protocol = location
        .as_ref()
        .and_then(|l| l.protocol().ok())
        .unwrap_or_default();
    let host = location
        .as_ref()
        .and_then(|l| l.host().ok())
        .unwrap_or_default();
    let query = browser::query_param("gateway");
    Target {
        url: gateway_url(
            query.as_deref(),
            &settings.gateway_url,
            &PageOrigin {
                protocol: &protocol,
                host: &host,
            },
        ),
        hello: Hello {
            token: Some(settings.token.clone()).filter(|t| !t.is_empty()),
            device_id: browser::device_id(),
            client: CLIENT.to_string(),
            protocol: PROTOCOL_VERSION,
        },
    }
}

//! Wires the pure store to the browser: socket events in, effects out
//! (frames, navigation, localStorage), and one view sync per animation frame.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::export::{Exporter, Format, Progress, Step};
use crate::net::{plan, Address, Event, LinkAnswer, PageOrigin, Plan, Socket, Status, Target};
use crate::offline::{OfflineCache, OfflineView};
use crate::protocol::{ClientFrame, ErrorCode, Hello, ServerFrame, PROTOCOL_VERSION};
use crate::settings::Settings;
use crate::store::{Change, Effect, PendingSend, Store};
use crate::ui::browser;
use crate::ui::browser::notifications;
use crate::ui::wiring::view_state::ViewState;
use wasm_bindgen::JsValue;

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
    /// What is written to the offline copy (see `ui/offline.rs`), and
    /// whether a write is scheduled.
    pub(super) offline: StoredValue<OfflineCache, LocalStorage>,
    pub(super) offline_write: StoredValue<bool, LocalStorage>,
    pub offline_view: RwSignal<OfflineView>,
    /// Told each batch of the store's changes, before the view
    /// (see [`Runtime::on_changes`]).
    watcher: StoredValue<Option<Watcher>, LocalStorage>,
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
        };
        rt.open_hash();
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

    /// Starts exporting a thread (one export at a time).
    pub fn export_thread(&self, channel: &str, format: Format) {
        let Some((title, total, online)) = self
            .read(|s| {
                let c = s.channel(channel)?;
                Some((c.meta.title.clone(), c.meta.last_seq, s.is_online()))
            })
            .flatten()
        else {
            return;
        };
        let now = browser::now_ms();
        let tz = browser::utc_offset_minutes();
        let first = self
            .core
            .try_update_value(|c| {
                c.exporter
                    .start(channel, &title, format, total, now as i64, tz, online, now)
            })
            .flatten();
        self.send_export(first);
    }

    pub fn cancel_export(&self) {
        self.core.update_value(|c| c.exporter.cancel());
        self.export.set(None);
    }

    /// Sends an export's page request, and shows where it stands.
    fn send_export(&self, request: Option<crate::protocol::HistoryGet>) {
        if let Some(req) = request {
            let sent = self
                .socket()
                .is_some_and(|socket| socket.send(&ClientFrame::HistoryGet(req)));
            if !sent {
                // Not connected after all: asked again after `ready`.
                self.core.update_value(|c| c.exporter.connection_lost());
            }
        }
        let progress = self
            .core
            .try_with_value(|c| c.exporter.progress())
            .flatten();
        if self.export.get_untracked() != progress {
            self.export.set(progress);
        }
    }

    /// An export's page, taken before the store sees it (the store pairs
    /// its own replies with its requests in order).
    fn on_export_page(&self, h: crate::protocol::History) {
        let now = browser::now_ms();
        let step = self
            .core
            .try_update_value(|c| c.exporter.on_page(h, now, &mut browser::FileParts))
            .flatten();
        match step {
            Some(Step::Next(wait_ms)) => {
                self.send_export(None);
                let rt = *self;
                set_timeout(
                    move || {
                        let now = browser::now_ms();
                        let req = rt
                            .core
                            .try_update_value(|c| c.exporter.resume(now))
                            .flatten();
                        rt.send_export(req);
                    },
                    std::time::Duration::from_millis(wait_ms.ceil() as u64),
                );
            }
            Some(Step::Done(file)) => {
                browser::download(file);
                self.send_export(None);
            }
            None => {}
        }
    }

    pub fn retry_connection(&self) {
        self.replan(true);
    }

    /// Simulates a network drop (diagnostics view).
    pub fn drop_connection(&self) {
        if let Some(socket) = self.socket() {
            socket.drop_connection();
        }
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

    /// The user's answer about the gateway a link names: yes (with the
    /// token they entered for it, if any, and "remember"), or no.
    pub fn answer_link(&self, gateway: Address, connect: bool, token: &str, remember: bool) {
        let answer = if connect {
            LinkAnswer::Accepted(gateway.clone())
        } else {
            LinkAnswer::Declined(gateway.clone())
        };
        self.core.update_value(|c| c.link = answer);
        let mut next = self.settings.get_untracked();
        if connect && !token.is_empty() {
            next.set_token(&gateway, token);
        }
        if connect && remember {
            next.trust(&gateway);
        }
        self.save_settings(next);
        self.replan(false);
    }

    /// The user's answer about sending the token unencrypted.
    pub fn answer_plaintext(&self, gateway: Address, send: bool) {
        if send {
            let mut next = self.settings.get_untracked();
            next.allow_plaintext(&gateway);
            self.save_settings(next);
            return;
        }
        self.ask(None);
        self.view.status.set(Status::Offline(format!(
            "the token was not sent, since the connection to {gateway} is not encrypted."
        )));
    }

    /// Decides where to connect and connects, or waits for the user's
    /// answer. `force` reconnects even to the same target ("retry now").
    fn replan(&self, force: bool) {
        let Some(socket) = self.socket() else { return };
        let settings = self.settings.get_untracked();
        let link = browser::query_param("gateway");
        let answer = self
            .core
            .try_with_value(|c| c.link.clone())
            .unwrap_or_default();
        let (protocol, host) = page_location();
        let page = PageOrigin {
            protocol: &protocol,
            host: &host,
        };
        let (address, token) = match plan(link.as_deref(), &page, &settings, &answer) {
            Plan::Connect { address, token } => (address, token),
            Plan::ConfirmLink(address) => {
                self.hold(&socket, None, Prompt::Link(address));
                return;
            }
            Plan::ConfirmPlaintext(address) => {
                self.hold(&socket, Some(address.clone()), Prompt::Plaintext(address));
                return;
            }
            Plan::Unusable(why) => {
                self.stop(&socket, None);
                self.ask(None);
                self.view.status.set(Status::Offline(why));
                return;
            }
        };
        // The link's gateway, once connected to, stays this page's choice:
        // forgetting it in Settings takes effect at the next visit.
        if link.as_deref().and_then(|l| Address::parse(l).ok()) == Some(address.clone()) {
            let accepted = LinkAnswer::Accepted(address.clone());
            self.core.update_value(|c| c.link = accepted);
        }
        self.ask(None);
        self.gateway.set(Some(address.clone()));
        let target = Some((address.clone(), token.clone()));
        let same = self
            .core
            .try_with_value(|c| c.target == target)
            .unwrap_or(false);
        if same && !force {
            return;
        }
        self.core.update_value(|c| c.target = target);
        socket.retarget(Target {
            url: address.url(),
            hello: Hello {
                token,
                device_id: browser::device_id(),
                client: CLIENT.to_string(),
                protocol: PROTOCOL_VERSION,
            },
        });
    }

    /// Disconnects and shows `prompt` until the user answers.
    fn hold(&self, socket: &Socket, gateway: Option<Address>, prompt: Prompt) {
        self.stop(socket, gateway);
        self.ask(Some(prompt));
        self.view
            .status
            .set(Status::Held("waiting for your answer.".into()));
    }

    /// Shows `prompt` (or none); an unchanged one stays as it is, with
    /// what the user typed into it.
    fn ask(&self, prompt: Option<Prompt>) {
        if self.prompt.get_untracked() != prompt {
            self.prompt.set(prompt);
        }
    }

    fn stop(&self, socket: &Socket, gateway: Option<Address>) {
        socket.stop();
        self.core.update_value(|c| c.target = None);
        self.gateway.set(gateway);
    }

    fn socket(&self) -> Option<Socket> {
        self.core.try_with_value(|c| c.socket.clone()).flatten()
    }

    fn on_socket(&self, event: Event) {
        match event {
            Event::Frame(ServerFrame::History(h))
                if self
                    .core
                    .try_with_value(|c| c.exporter.claims(&h))
                    .unwrap_or(false) =>
            {
                self.on_export_page(h);
            }
            Event::Frame(frame) => {
                let now = browser::now_ms();
                let ready = matches!(frame, ServerFrame::Ready(_));
                // A thread that is gone, or a refused request, ends its export.
                let failed = match &frame {
                    ServerFrame::Error(e)
                        if e.client_msg_id.is_none() && e.request_id.is_none() =>
                    {
                        e.channel_id.clone().or_else(|| {
                            // Which frame was refused is not said: it may be the export's.
                            (e.code == ErrorCode::RateLimited)
                                .then(|| self.export.get_untracked().map(|p| p.channel_id))
                                .flatten()
                        })
                    }
                    ServerFrame::ChannelDeleted(d) => Some(d.channel_id.clone()),
                    _ => None,
                };
                self.act(|s| s.apply(frame, now));
                if let Some(id) = failed {
                    self.core.update_value(|c| {
                        c.exporter.abort(&id);
                    });
                    self.send_export(None);
                }
                if ready {
                    let again = self
                        .core
                        .try_update_value(|c| c.exporter.resume(now))
                        .flatten();
                    self.send_export(again);
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

/// `location.protocol` and `location.host`.
fn page_location() -> (String, String) {
    let location = browser::location();
    let protocol = location
        .as_ref()
        .and_then(|l| l.protocol().ok())
        .unwrap_or_default();
    let host = location
        .as_ref()
        .and_then(|l| l.host().ok())
        .unwrap_or_default();
    (protocol, host)
}

/// The page's own gateway, `/ws` on its origin.
fn page_address() -> Result<Address, String> {
    let (protocol, host) = page_location();
    Address::same_origin(&protocol, &host)
}

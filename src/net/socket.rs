//! The connection supervisor: owns the one WebSocket of this tab. Connects,
//! says `hello`, keeps a heartbeat, reconnects with backoff, and hands every
//! decoded frame to the app. Browser-only (web-sys).

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::time::Duration;

use leptos::prelude::{
    set_interval_with_handle, set_timeout_with_handle, IntervalHandle, TimeoutHandle,
};
use wasm_bindgen::prelude::*;
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

use super::backoff::Backoff;
use super::heartbeat::{Beat, Heartbeat};
use super::received_text;
use crate::protocol::{
    ClientFrame, ErrorCode, Hello, Ping, ServerFrame, CLOSE_UNAUTHORIZED,
    CLOSE_UNSUPPORTED_PROTOCOL,
};

/// Ping period (§2); the socket is dead after two unanswered pings.
const PING_EVERY: Duration = Duration::from_secs(20);
/// From opening the socket to `ready`: a gateway (or a path to it) that
/// takes the connection but never answers must not leave the app
/// "connecting" forever.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Connecting,
    Connected,
    /// Waiting to retry; the time is `Date.now()` ms of the next attempt.
    Reconnecting {
        retry_at_ms: f64,
    },
    /// Not trying: the address is unusable.
    Offline(String),
    /// The gateway refused the token; no retry until settings change.
    Unauthorized(String),
    /// The gateway speaks another protocol version; no retry.
    Unsupported(String),
    /// Not connecting until the user answers (why, for the badge).
    Held(String),
}

/// What the supervisor tells the app.
pub enum Event {
    Frame(ServerFrame),
    /// A text frame that could not be decoded (why, for diagnostics).
    Dropped(String),
    Status(Status),
    /// The socket closed: requests in flight are lost.
    Lost,
}

/// Where and as whom to connect.
#[derive(Debug, Clone)]
pub struct Target {
    pub url: String,
    pub hello: Hello,
}

#[derive(Clone)]
pub struct Socket {
    inner: Rc<Inner>,
}

struct Inner {
    /// `None` until the app chose a gateway, and after `stop`.
    target: RefCell<Option<Target>>,
    on_event: Box<dyn Fn(Event)>,
    ws: RefCell<Option<Live>>,
    backoff: RefCell<Backoff>,
    retry: RefCell<Option<TimeoutHandle>>,
    /// The gateway answered with an error that forbids retrying.
    halted: Cell<bool>,
}

/// One open socket and the callbacks that must live as long as it.
struct Live {
    ws: WebSocket,
    ready: Rc<Cell<bool>>,
    heartbeat: Option<IntervalHandle>,
    handshake: Option<TimeoutHandle>,
    _on_open: Closure<dyn FnMut()>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_close: Closure<dyn FnMut(CloseEvent)>,
}

impl Drop for Live {
    fn drop(&mut self) {
        if let Some(h) = self.heartbeat.take() {
            h.clear();
        }
        if let Some(h) = self.handshake.take() {
            h.clear();
        }
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}

impl Socket {
    /// A supervisor with no gateway yet: it connects at `retarget`.
    pub fn new(on_event: impl Fn(Event) + 'static) -> Socket {
        Socket {
            inner: Rc::new(Inner {
                target: RefCell::new(None),
                on_event: Box::new(on_event),
                ws: RefCell::new(None),
                backoff: RefCell::new(Backoff::default()),
                retry: RefCell::new(None),
                halted: Cell::new(false),
            }),
        }
    }

    /// New address or token (or "retry now"): start over, even after an
    /// auth failure.
    pub fn retarget(&self, target: Target) {
        *self.inner.target.borrow_mut() = Some(target);
        self.inner.backoff.borrow_mut().reset();
        Inner::connect(&self.inner);
    }

    /// Closes the socket and stops retrying until the next `retarget`.
    pub fn stop(&self) {
        if let Some(t) = self.inner.retry.borrow_mut().take() {
            t.clear();
        }
        self.inner.target.borrow_mut().take();
        if self.inner.ws.borrow_mut().take().is_some() {
            self.inner.emit(Event::Lost);
        }
    }

    /// Sends a frame if the socket is open and past `hello`; false otherwise.
    pub fn send(&self, frame: &ClientFrame) -> bool {
        let ws = self.inner.ws.borrow();
        match ws.as_ref() {
            Some(live) if live.ready.get() => live.ws.send_with_str(&frame.encode()).is_ok(),
            _ => false,
        }
    }

    /// Closes the socket as if the network dropped (tests and diagnostics).
    pub fn drop_connection(&self) {
        if let Some(live) = self.inner.ws.borrow().as_ref() {
            let _ = live.ws.close();
        }
    }
}

impl Inner {
    fn emit(&self, e: Event) {
        (self.on_event)(e);
    }

    fn connect(this: &Rc<Inner>) {
        if let Some(t) = this.retry.borrow_mut().take() {
            t.clear();
        }
        if this.ws.borrow_mut().take().is_some() {
            this.emit(Event::Lost);
        }
        this.halted.set(false);
        let Some(target) = this.target.borrow().clone() else {
            return;
        };
        let url = target.url;
        this.emit(Event::Status(Status::Connecting));
        let ws = match WebSocket::new(&url) {
            Ok(ws) => ws,
            Err(_) => {
                this.emit(Event::Status(Status::Offline(format!(
                    "Cannot open a connection to {url}."
                ))));
                return;
            }
        };
        ws.set_binary_type(BinaryType::Arraybuffer);
        let ready = Rc::new(Cell::new(false));
        let beats = Rc::new(RefCell::new(Heartbeat::default()));
        let weak = Rc::downgrade(this);

        let on_open = {
            let ws = ws.clone();
            let hello = ClientFrame::Hello(target.hello);
            Closure::<dyn FnMut()>::new(move || {
                let _ = ws.send_with_str(&hello.encode());
            })
        };
        let on_message = {
            let weak = weak.clone();
            let ready = ready.clone();
            let beats = beats.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                // Binary frames are not part of the protocol: ignored.
                let Some(text) = received_text::text_of(&e.data()) else {
                    return;
                };
                if let Some(inner) = weak.upgrade() {
                    inner.on_text(&text, &ready, &beats);
                }
            })
        };
        let on_close = {
            let weak = weak.clone();
            Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
                if let Some(inner) = weak.upgrade() {
                    Inner::on_close(&inner, e.code());
                }
            })
        };
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));

        let heartbeat = {
            let ready = ready.clone();
            let ws = ws.clone();
            let weak = weak.clone();
            set_interval_with_handle(
                move || {
                    if !ready.get() {
                        return;
                    }
                    let beat = beats.borrow_mut().tick();
                    match beat {
                        Beat::Ping => {
                            let ping = ClientFrame::Ping(Ping {
                                t: serde_json::Value::from(js_sys::Date::now()),
                            });
                            let _ = ws.send_with_str(&ping.encode());
                        }
                        Beat::Dead => {
                            if let Some(inner) = weak.upgrade() {
                                Inner::abandon(&inner, &ready);
                            }
                        }
                    }
                },
                PING_EVERY,
            )
            .ok()
        };
        let handshake = {
            let ready = ready.clone();
            set_timeout_with_handle(
                move || {
                    if ready.get() {
                        return;
                    }
                    if let Some(inner) = weak.upgrade() {
                        Inner::abandon(&inner, &ready);
                    }
                },
                HANDSHAKE_TIMEOUT,
            )
            .ok()
        };

        *this.ws.borrow_mut() = Some(Live {
            ws,
            ready,
            heartbeat,
            handshake,
            _on_open: on_open,
            _on_message: on_message,
            _on_close: on_close,
        });
    }

    fn on_text(&self, text: &str, ready: &Cell<bool>, beats: &RefCell<Heartbeat>) {
        let frame = match ServerFrame::decode(text) {
            Ok(f) => f,
            Err(e) => {
                self.emit(Event::Dropped(e.to_string()));
                return;
            }
        };
        match &frame {
            ServerFrame::Ready(_) => {
                ready.set(true);
                self.backoff.borrow_mut().reset();
                self.emit(Event::Status(Status::Connected));
            }
            ServerFrame::Pong(_) => beats.borrow_mut().pong(),
            ServerFrame::Error(e) if e.code == ErrorCode::Unauthorized => {
                self.halted.set(true);
                self.emit(Event::Status(Status::Unauthorized(e.message.clone())));
            }
            ServerFrame::Error(e) if e.code == ErrorCode::UnsupportedProtocol => {
                self.halted.set(true);
                self.emit(Event::Status(Status::Unsupported(e.message.clone())));
            }
            _ => {}
        }
        self.emit(Event::Frame(frame));
    }

    /// Gives up the socket identified by its `ready` flag, if it is still
    /// the current one, without waiting for a closing handshake: on a dead
    /// path the browser would wait up to a minute for it.
    fn abandon(this: &Rc<Inner>, ready: &Rc<Cell<bool>>) {
        let current = this
            .ws
            .borrow()
            .as_ref()
            .is_some_and(|live| Rc::ptr_eq(&live.ready, ready));
        if !current {
            return;
        }
        // Dropping `Live` detaches the callbacks and closes the socket.
        this.ws.borrow_mut().take();
        this.emit(Event::Lost);
        Inner::schedule_retry(this);
    }

    fn on_close(this: &Rc<Inner>, code: u16) {
        this.ws.borrow_mut().take();
        this.emit(Event::Lost);
        if code == CLOSE_UNAUTHORIZED || code == CLOSE_UNSUPPORTED_PROTOCOL || this.halted.get() {
            if !this.halted.get() {
                let status = if code == CLOSE_UNAUTHORIZED {
                    Status::Unauthorized("The gateway refused the token.".into())
                } else {
                    Status::Unsupported("The gateway speaks another protocol version.".into())
                };
                this.emit(Event::Status(status));
            }
            return;
        }
        Inner::schedule_retry(this);
    }

    /// Waits the next backoff delay (shown as "reconnecting in N s"), then
    /// connects again.
    fn schedule_retry(this: &Rc<Inner>) {
        let delay = this
            .backoff
            .borrow_mut()
            .next_delay_ms(js_sys::Math::random());
        let retry_at_ms = js_sys::Date::now() + f64::from(delay);
        this.emit(Event::Status(Status::Reconnecting { retry_at_ms }));
        let weak: Weak<Inner> = Rc::downgrade(this);
        let handle = set_timeout_with_handle(
            move || {
                if let Some(inner) = weak.upgrade() {
                    Inner::connect(&inner);
                }
            },
            Duration::from_millis(u64::from(delay)),
        )
        .ok();
        *this.retry.borrow_mut() = handle;
    }
}

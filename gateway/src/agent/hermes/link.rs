//! The gateway's end of the Hermes link (docs/hermes-link.md): a loopback
//! TCP listener the plugin connects to, authenticated by the secret's
//! hello, carrying one JSON object per line each way.
//!
//! One plugin connection is live at a time (a newer one replaces it). Each
//! running turn registers its thread here and receives that thread's
//! events; when the connection ends, every registered turn hears that it
//! was lost. The listener outlives connections, so a restarted Hermes
//! links again by itself.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use subtle::ConstantTimeEq;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};

use super::wire::{self, Command, Event, Hello};

/// Longest line read from the plugin: a tool's output is capped at 256 KiB
/// of characters by the plugin, up to 4 bytes each, plus JSON escapes.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Time the plugin has to say hello after connecting.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// What a registered turn hears.
#[derive(Debug)]
pub enum Heard {
    Event(Event),
    /// The plugin sent a line about this thread that cannot be used.
    Garbled(String),
    /// The link ended (Hermes stopped, restarted or broke it).
    Lost(String),
}

#[derive(Clone)]
pub struct Link {
    shared: Arc<Shared>,
}

struct Shared {
    secret: String,
    state: Mutex<State>,
    linked: watch::Sender<bool>,
    /// Set when the gateway stops: the listener and connections close.
    closed: watch::Sender<bool>,
}

#[derive(Default)]
struct State {
    /// The live connection's outgoing lines and its number.
    writer: Option<(u64, mpsc::UnboundedSender<String>)>,
    next_connection: u64,
    /// Thread -> (the gateway's turn id, where its events go).
    turns: HashMap<String, (String, mpsc::UnboundedSender<Heard>)>,
    /// Threads waiting for Hermes's title of their session.
    titles: HashMap<String, oneshot::Sender<String>>,
}

/// A turn's registration; dropping it unregisters the thread.
pub struct Registration {
    link: Link,
    chat_id: String,
    turn_id: String,
    pub heard: mpsc::UnboundedReceiver<Heard>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut state = self.link.state();
        if state
            .turns
            .get(&self.chat_id)
            .is_some_and(|(turn, _)| *turn == self.turn_id)
        {
            state.turns.remove(&self.chat_id);
        }
    }
}

impl Link {
    /// Listens on `addr`, which must be a loopback address. Binds at once
    /// (so a taken port fails the gateway's start); must be called inside
    /// a Tokio runtime.
    pub fn listen(addr: SocketAddr, secret: String) -> std::io::Result<(Self, SocketAddr)> {
        if !addr.ip().is_loopback() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the Hermes link must listen on loopback, not {addr}"),
            ));
        }
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let listener = TcpListener::from_std(listener)?;
        let bound = listener.local_addr()?;
        let link = Self {
            shared: Arc::new(Shared {
                secret,
                state: Mutex::new(State::default()),
                linked: watch::channel(false).0,
                closed: watch::channel(false).0,
            }),
        };
        tokio::spawn(link.clone().accept_all(listener));
        Ok((link, bound))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain maps behind: keep going.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits up to `wait` for a plugin to be linked.
    pub async fn linked_within(&self, wait: Duration) -> bool {
        let mut linked = self.shared.linked.subscribe();
        tokio::time::timeout(wait, linked.wait_for(|l| *l))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Routes the thread's events to the returned registration from now on.
    pub fn register(&self, chat_id: &str, turn_id: &str) -> Registration {
        let (tx, heard) = mpsc::unbounded_channel();
        self.state()
            .turns
            .insert(chat_id.to_string(), (turn_id.to_string(), tx));
        Registration {
            link: self.clone(),
            chat_id: chat_id.to_string(),
            turn_id: turn_id.to_string(),
            heard,
        }
    }

    /// The title Hermes gives the thread's session, when it does (it
    /// comes after a turn, outside of it).
    pub fn await_title(&self, chat_id: &str) -> oneshot::Receiver<String> {
        let (tx, rx) = oneshot::channel();
        self.state().titles.insert(chat_id.to_string(), tx);
        rx
    }

    /// Sends a command to the live plugin; `Err` when none is linked.
    pub fn send(&self, command: &Command) -> Result<(), String> {
        let state = self.state();
        let Some((_, writer)) = &state.writer else {
            return Err("Hermes is not linked to the gateway".into());
        };
        writer
            .send(command.line())
            .map_err(|_| "the link to Hermes just closed".to_string())
    }

    /// Closes the listener and the live connection (the gateway stops; a
    /// linked plugin reconnects to the next one).
    pub fn close(&self) {
        self.shared.closed.send_replace(true);
    }

    /// Resolves once [`Link::close`] was called.
    async fn closing(&self) {
        let mut closed = self.shared.closed.subscribe();
        let _ = closed.wait_for(|c| *c).await;
    }

    async fn accept_all(self, listener: TcpListener) {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = self.closing() => return,
            };
            match accepted {
                Ok((stream, peer)) if peer.ip().is_loopback() => {
                    tokio::spawn(self.clone().serve(stream));
                }
                // Unreachable with a loopback bind, but never trusted.
                Ok((_, peer)) => tracing::warn!(%peer, "refused a Hermes link from off this host"),
                Err(e) => {
                    tracing::warn!("accepting a Hermes link failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    async fn serve(self, stream: TcpStream) {
        let (read, mut write) = stream.into_split();
        let mut reader = BufReader::new(read);
        let hello = tokio::time::timeout(HELLO_TIMEOUT, read_line(&mut reader)).await;
        let refusal = match hello {
            Ok(Ok(Some(line))) => self.check_hello(&line).err(),
            Ok(Ok(None)) => Some("no hello".to_string()),
            Ok(Err(e)) => Some(format!("unreadable hello: {e}")),
            Err(_) => Some("no hello in time".to_string()),
        };
        if let Some(reason) = refusal {
            tracing::warn!("refused a Hermes link: {reason}");
            let refused = Command::Refused { reason }.line();
            let _ = write.write_all(refused.as_bytes()).await;
            return;
        }
        if write
            .write_all(Command::Welcome.line().as_bytes())
            .await
            .is_err()
        {
            return;
        }
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let number = {
            let mut state = self.state();
            state.next_connection += 1;
            state.writer = Some((state.next_connection, tx));
            state.next_connection
        };
        self.shared.linked.send_replace(true);
        tracing::info!("Hermes linked");
        let writing = async move {
            while let Some(line) = rx.recv().await {
                if write.write_all(line.as_bytes()).await.is_err() {
                    break;
                }
            }
        };
        let why = tokio::select! {
            why = self.route_all(&mut reader) => why,
            () = writing => "the link could not be written".to_string(),
            () = self.closing() => "the gateway is stopping".to_string(),
        };
        self.lost(number, &why);
    }

    fn check_hello(&self, line: &[u8]) -> Result<(), String> {
        let hello: Hello = serde_json::from_slice(line)
            .map_err(|_| "the first line is not a hello".to_string())?;
        if hello.version != wire::VERSION {
            return Err(format!(
                "link version {} is not {}",
                hello.version,
                wire::VERSION
            ));
        }
        let known = self.shared.secret.as_bytes();
        if !bool::from(hello.secret.as_bytes().ct_eq(known)) {
            return Err("wrong secret".into());
        }
        Ok(())
    }

    /// Routes the connection's events until it ends; returns why it ended.
    async fn route_all<R: AsyncRead + Unpin>(&self, reader: &mut BufReader<R>) -> String {
        loop {
            let line = match read_line(reader).await {
                Ok(Some(line)) => line,
                Ok(None) => return "Hermes closed the link".into(),
                Err(e) => return format!("the link broke: {e}"),
            };
            match wire::parse_event(&line) {
                Ok((envelope, Event::Title { title })) => {
                    if let Some(tx) = self.state().titles.remove(&envelope.chat_id) {
                        let _ = tx.send(title);
                    }
                }
                Ok((envelope, event)) => {
                    let state = self.state();
                    // Events of no running turn (a stopped one's last words,
                    // Hermes's own notices) have nowhere to go.
                    if let Some((turn, tx)) = state.turns.get(&envelope.chat_id) {
                        if envelope.turn_id.as_deref() == Some(turn.as_str()) {
                            let _ = tx.send(Heard::Event(event));
                        }
                    }
                }
                Err((Some(chat_id), why)) => {
                    if let Some((_, tx)) = self.state().turns.get(&chat_id) {
                        let _ = tx.send(Heard::Garbled(why));
                    }
                }
                // A line that names no thread: the link cannot be trusted
                // to stay in step any more.
                Err((None, why)) => return format!("Hermes sent {why}"),
            }
        }
    }

    /// Ends connection `number`: its turns hear why, unless a newer
    /// connection replaced it already.
    fn lost(&self, number: u64, why: &str) {
        let mut state = self.state();
        if state.writer.as_ref().map(|(n, _)| *n) != Some(number) {
            return;
        }
        state.writer = None;
        for (_, tx) in state.turns.values() {
            let _ = tx.send(Heard::Lost(why.to_string()));
        }
        drop(state);
        self.shared.linked.send_replace(false);
        tracing::warn!("Hermes link lost: {why}");
    }
}

/// One line without its newline; `None` at the end of the stream. A line
/// longer than [`MAX_LINE_BYTES`] is an error, read no further.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let limit = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX);
    let read = (&mut *reader)
        .take(limit + 1)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        if line.len() > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line longer than {MAX_LINE_BYTES} bytes"),
            ));
        }
        return Ok(None);
    }
    line.pop();
    Ok(Some(line))
}

//! The HTTP server: `/ws` upgrades and the web client's static files.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use aria_protocol::MAX_FRAME_BYTES;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, State};
use axum::http::header::{HOST, ORIGIN};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::app::App;
use crate::config::Config;
use crate::connection;
use crate::files::Files;
use crate::origin_policy::{InvalidEntry, OriginPolicy, Refusal};
use crate::outbox::Outbox;
use crate::security_headers::{self, SecurityHeaders};
use crate::startup_check::{lock_data_dir, DataDirLock};
use crate::static_files;
use crate::store::Store;

/// Hard cap of one WebSocket message. Frames between [`MAX_FRAME_BYTES`] and
/// this get `error {code:"too_large"}` and the socket stays open; only
/// frames past it close the socket (1009), as reading them would mean
/// buffering arbitrary amounts.
const WS_MESSAGE_CAP: usize = 4 * MAX_FRAME_BYTES;
/// A socket's read buffer to start with (tungstenite's default is 128 KiB):
/// it grows for a large frame, and most sockets sit idle with it.
const READ_BUFFER: usize = 4 * 1024;
/// How long shutdown waits for cancelled turns to wrap up.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "refusing to listen on {0} without a token, as anyone on the network could use the \
         agent: set one with --token or ARIA_TOKEN, or let --generate-token make one"
    )]
    OpenToNetwork(SocketAddr),
    #[error(transparent)]
    Policy(#[from] InvalidEntry),
    #[error("cannot open the outbox log in {dir}: {reason}")]
    Store { dir: PathBuf, reason: String },
    #[error("cannot open the file store in {dir}: {source}")]
    Files {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot start the agent: {0}")]
    Agent(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: io::Error,
    },
}

/// A gateway serving in the background of the current Tokio runtime.
pub struct RunningServer {
    addr: SocketAddr,
    /// Released when the server is dropped or shut down.
    _data_dir_lock: DataDirLock,
    app: Arc<App>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<io::Result<()>>,
}

impl RunningServer {
    /// The bound address (with the real port when the config asked for 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`, the base URL of the web client.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `ws://ADDR/ws`, the WebSocket endpoint.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// Cancels running turns and lets them wrap up (a pending approval is
    /// logged as `cancelled`), closes every socket (1001), stops accepting
    /// connections and waits for the listener to stop.
    pub async fn shutdown(self) -> io::Result<()> {
        self.app.turns.cancel_all();
        self.app.turns.wait_idle(SHUTDOWN_GRACE).await;
        self.app.outbox.hub().close();
        // The server task may already be gone; then there is nothing to stop.
        let _ = self.stop.send(());
        self.task.await.map_err(io::Error::other)?
    }
}

/// Opens the log in `config.data_dir`, binds `config.addr` and serves until
/// [`RunningServer::shutdown`].
pub async fn serve(config: Config) -> Result<RunningServer, ServeError> {
    if config.token.is_none() && !config.addr.ip().is_loopback() {
        return Err(ServeError::OpenToNetwork(config.addr));
    }
    let policy = OriginPolicy::new(
        config.addr.ip(),
        &config.allowed_origins,
        &config.allowed_hosts,
    )?;
    let store_error = |e: crate::store::StoreError| ServeError::Store {
        dir: config.data_dir.clone(),
        reason: e.to_string(),
    };
    let data_dir_lock = lock_data_dir(&config.data_dir).map_err(store_error)?;
    let store = Store::open(&config.data_dir).map_err(store_error)?;
    if let Some(bytes) = config.max_log_bytes {
        store.limit_size(bytes).map_err(store_error)?;
    }
    let outbox = Arc::new(Outbox::new(store));
    let files = Files::open(&config.data_dir, config.files.clone()).map_err(|source| {
        ServeError::Files {
            dir: config.data_dir.clone(),
            source,
        }
    })?;
    let files = Arc::new(files);
    sweep_uploads(Arc::downgrade(&files));
    let agent = crate::agent::build(&config).map_err(ServeError::Agent)?;
    let app = Arc::new(App::new(&config, outbox, agent, files));

    let bind_error = |source| ServeError::Bind {
        addr: config.addr,
        source,
    };
    let listener = TcpListener::bind(config.addr).await.map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    let state = Upgrades {
        app: Arc::clone(&app),
        policy: Arc::new(policy),
    };
    let router =
        router(state, &config.static_dir).into_make_service_with_connect_info::<SocketAddr>();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let serving = axum::serve(listener, router).with_graceful_shutdown(async {
            // A dropped sender stops the server as well.
            let _ = stopped.await;
        });
        tokio::select! {
            served = serving => served,
            () = crate::memory::trim_after_releases() => Ok(()),
        }
    });
    tracing::info!(%addr, data_dir = %config.data_dir.display(), "gateway started");
    Ok(RunningServer {
        addr,
        _data_dir_lock: data_dir_lock,
        app,
        stop,
        task,
    })
}

/// Removes expired uploads every minute, until the gateway is gone.
fn sweep_uploads(files: std::sync::Weak<Files>) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        loop {
            every.tick().await;
            match files.upgrade() {
                Some(files) => files.sweep(),
                None => return,
            }
        }
    });
}

/// What the `/ws` handler needs.
#[derive(Clone)]
struct Upgrades {
    app: Arc<App>,
    policy: Arc<OriginPolicy>,
}

fn router(state: Upgrades, static_dir: &Path) -> Router {
    let headers = Arc::new(SecurityHeaders::for_client(static_dir));
    let files = static_files::router(static_dir).layer(middleware::from_fn_with_state(
        headers,
        security_headers::add,
    ));
    Router::new()
        .route("/ws", get(upgrade))
        .with_state(state)
        .fallback_service(files)
}

async fn upgrade(
    State(state): State<Upgrades>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    // A header that is not valid text matches nothing allowed.
    let text = |name| headers.get(name).map(|v| v.to_str().unwrap_or_default());
    if let Err(refusal) = state.policy.check(text(HOST), text(ORIGIN)) {
        let what = match &refusal {
            Refusal::Host(_) => "This host name",
            Refusal::Origin(_) => "This origin",
        };
        tracing::warn!(%peer, "refused WebSocket: {refusal}");
        return (
            StatusCode::FORBIDDEN,
            format!("{what} may not open the gateway's WebSocket.\n"),
        )
            .into_response();
    }
    let app = state.app;
    ws.max_message_size(WS_MESSAGE_CAP)
        .max_frame_size(WS_MESSAGE_CAP)
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| connection::run(app, socket, peer.ip()))
}

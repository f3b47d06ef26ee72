//! The HTTP server: `/ws` upgrades and the web client's static files.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use aria_protocol::MAX_FRAME_BYTES;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::handler::HandlerWithoutStateExt;
use axum::http::header::{CONTENT_TYPE, ORIGIN};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tower_http::services::ServeDir;

use crate::app::App;
use crate::config::Config;
use crate::connection;
use crate::outbox::Outbox;
use crate::store::Store;

/// Hard cap of one WebSocket message. Frames between [`MAX_FRAME_BYTES`] and
/// this get `error {code:"too_large"}` and the socket stays open; only
/// frames past it close the socket (1009), as reading them would mean
/// buffering arbitrary amounts.
const WS_MESSAGE_CAP: usize = 4 * MAX_FRAME_BYTES;
/// How long shutdown waits for cancelled turns to wrap up.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Shown at `/` when `--static-dir` holds no built client.
const CLIENT_NOT_BUILT: &str = "aria-gateway is running, but the web client is not built.\n\n\
Build it with `trunk build --release` in the aria-web checkout and start the gateway with\n\
`--static-dir dist` (the directory holding index.html). The WebSocket endpoint is /ws.\n";

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot open the outbox log in {dir}: {reason}")]
    Store { dir: PathBuf, reason: String },
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
    let store = Store::open(&config.data_dir).map_err(|e| ServeError::Store {
        dir: config.data_dir.clone(),
        reason: e.to_string(),
    })?;
    let outbox = Arc::new(Outbox::new(store));
    let agent = crate::agent::build(&config);
    let app = Arc::new(App::new(&config, outbox, agent));

    let bind_error = |source| ServeError::Bind {
        addr: config.addr,
        source,
    };
    let listener = TcpListener::bind(config.addr).await.map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    let router = router(Arc::clone(&app), &config.static_dir);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                // A dropped sender stops the server as well.
                let _ = stopped.await;
            })
            .await
    });
    tracing::info!(%addr, data_dir = %config.data_dir.display(), "gateway started");
    Ok(RunningServer {
        addr,
        app,
        stop,
        task,
    })
}

fn router(app: Arc<App>, static_dir: &Path) -> Router {
    let files = ServeDir::new(static_dir).fallback(file_not_found.into_service());
    Router::new()
        .route("/ws", get(upgrade))
        .fallback_service(files)
        .with_state(app)
}

async fn upgrade(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    // An Origin header that is not valid text matches no allowed origin.
    let origin = headers.get(ORIGIN).map(|v| v.to_str().unwrap_or_default());
    if !app.origin_allowed(origin) {
        tracing::warn!(
            origin = origin.unwrap_or_default(),
            "refused WebSocket from origin"
        );
        return (
            StatusCode::FORBIDDEN,
            "This origin may not open the gateway's WebSocket.\n",
        )
            .into_response();
    }
    ws.max_message_size(WS_MESSAGE_CAP)
        .max_frame_size(WS_MESSAGE_CAP)
        .on_upgrade(move |socket| connection::run(app, socket))
}

async fn file_not_found(uri: Uri) -> Response {
    if uri.path() == "/" {
        (
            [(CONTENT_TYPE, "text/plain; charset=utf-8")],
            CLIENT_NOT_BUILT,
        )
            .into_response()
    } else {
        (StatusCode::NOT_FOUND, "Not found.\n").into_response()
    }
}

//! HTTP plumbing shared by the `openai` and `hermes` agents: requests that
//! give up when the server stalls or the turn is cancelled, event streams,
//! and the sentences shown to the user when a server fails.

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::{RequestBuilder, Response, StatusCode};

use super::sse::{SseEvent, SseParser};
use super::{Turn, TurnError};

/// A TCP (and TLS) handshake slower than this means the server is not there.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Most bytes read of an error body: enough for any server's explanation.
const MAX_ERROR_BODY_BYTES: usize = 16 * 1024;
/// Most characters of a server's own error message quoted in ours.
const MAX_QUOTE_CHARS: usize = 300;

/// Who is on the other end, as named in messages shown to the user.
#[derive(Debug, Clone, Copy)]
pub struct Server {
    /// Opens a sentence: "The model server".
    pub subject: &'static str,
    /// Inside a sentence: "the model server".
    pub object: &'static str,
    /// Where the API key is set, named when the server refuses it.
    pub key_hint: &'static str,
}

/// Why a request did not give what the turn needs.
#[derive(Debug)]
pub enum Failure {
    /// The turn was cancelled or its channel deleted: stop without a word.
    Turn(TurnError),
    /// The server failed; the sentence is shown in the thread.
    Server(String),
}

impl From<TurnError> for Failure {
    fn from(e: TurnError) -> Self {
        Failure::Turn(e)
    }
}

pub struct Upstream {
    /// An error only if the TLS backend cannot start; every turn then says so.
    client: Result<reqwest::Client, String>,
    server: Server,
    stall: Duration,
}

impl Upstream {
    pub fn new(server: Server, stall: Duration) -> Self {
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| format!("Cannot set up the HTTP client: {}.", root_cause(&e)));
        Self {
            client,
            server,
            stall,
        }
    }

    pub fn client(&self) -> Result<&reqwest::Client, Failure> {
        self.client
            .as_ref()
            .map_err(|reason| Failure::Server(reason.clone()))
    }

    /// How long the server may send nothing before the turn gives up.
    pub fn stall(&self) -> Duration {
        self.stall
    }

    /// Sends `request` and returns the response once its head arrived with
    /// a success status. A cancelled turn drops the request, which closes
    /// the connection: that is how the server learns to stop.
    pub async fn open(
        &self,
        turn: &mut Turn,
        request: RequestBuilder,
    ) -> Result<Response, Failure> {
        let response = self.send(turn, request).await?;
        self.ensure_success(turn, response).await
    }

    /// [`Upstream::open`] without the status check, for callers that handle
    /// some error statuses themselves.
    pub async fn send(
        &self,
        turn: &mut Turn,
        request: RequestBuilder,
    ) -> Result<Response, Failure> {
        let sent = tokio::select! {
            sent = request.send() => sent,
            paused = turn.pause(self.stall) => return Err(self.stalled(paused)),
        };
        sent.map_err(|e| Failure::Server(self.request_error(&e)))
    }

    /// `response` if its status is a success, else the failure it means.
    pub async fn ensure_success(
        &self,
        turn: &mut Turn,
        response: Response,
    ) -> Result<Response, Failure> {
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = match self.read_body(turn, response, MAX_ERROR_BODY_BYTES).await {
            Ok(body) => body,
            Err(Failure::Turn(e)) => return Err(Failure::Turn(e)),
            // The status alone still says what went wrong.
            Err(Failure::Server(_)) => Vec::new(),
        };
        Err(Failure::Server(status_error(self.server, status, &body)))
    }

    /// The body of a non-streamed answer, cut at `limit` bytes.
    pub async fn read_body(
        &self,
        turn: &mut Turn,
        mut response: Response,
        limit: usize,
    ) -> Result<Vec<u8>, Failure> {
        let mut body = Vec::new();
        while body.len() < limit {
            let read = tokio::select! {
                read = response.chunk() => read,
                paused = turn.pause(self.stall) => return Err(self.stalled(paused)),
            };
            match read.map_err(|e| self.broken(&e))? {
                Some(chunk) => body.extend_from_slice(&chunk),
                None => break,
            }
        }
        body.truncate(limit);
        Ok(body)
    }

    fn stalled(&self, paused: Result<(), TurnError>) -> Failure {
        match paused {
            Ok(()) => Failure::Server(format!(
                "{} sent nothing for {} s, so the turn stopped waiting.",
                self.server.subject,
                self.stall.as_secs_f64()
            )),
            Err(e) => Failure::Turn(e),
        }
    }

    fn broken(&self, e: &reqwest::Error) -> Failure {
        Failure::Server(format!(
            "The connection to {} broke before the answer was complete: {}.",
            self.server.object,
            root_cause(e)
        ))
    }

    fn request_error(&self, e: &reqwest::Error) -> String {
        let url = e.url().map_or("its address", |u| u.as_str());
        if e.is_connect() {
            format!(
                "Cannot connect to {} at {url}: {}.",
                self.server.object,
                root_cause(e)
            )
        } else if e.is_timeout() {
            format!("{} at {url} did not answer in time.", self.server.subject)
        } else {
            format!(
                "The request to {} at {url} failed: {}.",
                self.server.object,
                root_cause(e)
            )
        }
    }
}

/// The server-sent events of a streamed response, read as they arrive.
pub struct EventStream {
    response: Response,
    parser: SseParser,
    ready: VecDeque<SseEvent>,
}

impl EventStream {
    pub fn new(response: Response) -> Self {
        Self {
            response,
            parser: SseParser::new(),
            ready: VecDeque::new(),
        }
    }

    /// The next event, `None` once the body ended. Any bytes (a keep-alive
    /// comment too) restart the stall timer.
    pub async fn next(
        &mut self,
        upstream: &Upstream,
        turn: &mut Turn,
    ) -> Result<Option<SseEvent>, Failure> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            let read = tokio::select! {
                read = self.response.chunk() => read,
                paused = turn.pause(upstream.stall) => return Err(upstream.stalled(paused)),
            };
            let Some(chunk) = read.map_err(|e| upstream.broken(&e))? else {
                return Ok(None);
            };
            let events = self.parser.feed(&chunk).map_err(|e| {
                Failure::Server(format!(
                    "{} sent a broken stream: {e}.",
                    upstream.server.subject
                ))
            })?;
            self.ready.extend(events);
        }
    }
}

/// The sentence for an HTTP error status, quoting the server's own message.
pub fn status_error(server: Server, status: StatusCode, body: &[u8]) -> String {
    let code = status.as_u16();
    let detail = match error_message(body) {
        Some(message) => format!(": {message}"),
        None => status
            .canonical_reason()
            .map(|r| format!(" {r}"))
            .unwrap_or_default(),
    };
    let subject = server.subject;
    match code {
        401 | 403 => format!(
            "{subject} refused the API key (HTTP {code}{detail}). Check {}.",
            server.key_hint
        ),
        429 => {
            format!("{subject} is rate limiting or busy (HTTP 429{detail}). Try again in a moment.")
        }
        500..=599 => format!("{subject} failed (HTTP {code}{detail})."),
        _ => format!("{subject} refused the request (HTTP {code}{detail})."),
    }
}

/// The message of an error body: OpenAI's `{"error":{"message"}}`, the
/// `{"error":"…"}`, `{"message"}` and `{"detail"}` of other servers, or
/// plain text; `None` when there is nothing to quote.
fn error_message(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    let from_json = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| {
            [
                v.pointer("/error/message"),
                v.get("error"),
                v.get("message"),
                v.get("detail"),
            ]
            .into_iter()
            .flatten()
            .find_map(|m| m.as_str().map(str::to_string))
        });
    let message = from_json.unwrap_or_else(|| text.to_string());
    let message: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if message.is_empty() || message.starts_with('<') {
        // An HTML error page says nothing the status does not.
        return None;
    }
    Some(cut(&message, MAX_QUOTE_CHARS))
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// The innermost cause ("Connection refused (os error 111)"), which says
/// more than reqwest's own "error sending request".
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: Server = Server {
        subject: "The model server",
        object: "the model server",
        key_hint: "--openai-key",
    };

    #[test]
    fn statuses_read_as_sentences() {
        let openai =
            br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#;
        assert_eq!(
            status_error(MODEL, StatusCode::UNAUTHORIZED, openai),
            "The model server refused the API key (HTTP 401: Incorrect API key provided). \
             Check --openai-key."
        );
        assert_eq!(
            status_error(MODEL, StatusCode::TOO_MANY_REQUESTS, b""),
            "The model server is rate limiting or busy (HTTP 429 Too Many Requests). \
             Try again in a moment."
        );
        assert_eq!(
            status_error(MODEL, StatusCode::SERVICE_UNAVAILABLE, b"<html>down</html>"),
            "The model server failed (HTTP 503 Service Unavailable)."
        );
        assert_eq!(
            status_error(
                MODEL,
                StatusCode::NOT_FOUND,
                br#"{"error":"model 'x' not found"}"#
            ),
            "The model server refused the request (HTTP 404: model 'x' not found)."
        );
    }

    #[test]
    fn quoted_messages_are_short_and_on_one_line() {
        let long = format!("line one\n\n{}", "x".repeat(1000));
        let message = error_message(long.as_bytes()).expect("message");
        assert!(message.starts_with("line one x"));
        assert_eq!(message.chars().count(), MAX_QUOTE_CHARS + 1);
        assert_eq!(error_message(b"  "), None);
        assert_eq!(
            error_message(br#"{"detail":"Not Found"}"#).as_deref(),
            Some("Not Found")
        );
    }

    #[test]
    fn cut_counts_characters() {
        assert_eq!(cut("héllo", 3), "hél…");
        assert_eq!(cut("héllo", 5), "héllo");
    }
}

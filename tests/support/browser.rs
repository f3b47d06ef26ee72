//! Headless Chromium through its own chromedriver, with console capture and
//! failure diagnostics.

use std::future::Future;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::gateway::SharedLog;
use super::paths::{self, TempDir};
use super::{millis, poll_until, secs};

/// One entry of the browser console (`goog:loggingPrefs` browser log).
#[derive(Clone, Debug)]
pub struct LogEntry {
    /// `SEVERE`, `WARNING`, `INFO`, `DEBUG`.
    pub level: String,
    /// `console-api`, `javascript` (uncaught errors), `network`, `security`, …
    pub source: String,
    pub message: String,
}

impl LogEntry {
    /// console.error, uncaught exceptions, failed loads and CSP violations.
    pub fn is_error(&self) -> bool {
        self.level == "SEVERE"
    }
}

impl std::fmt::Display for LogEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{} {}] {}", self.level, self.source, self.message)
    }
}

/// Chromium flags that work as root in a container with no network but
/// loopback (see the project's machine notes).
const CHROMIUM_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-crash-reporter",
    "--disable-breakpad",
    "--window-size=1280,900",
];

/// A chromedriver process in its own process group, so that the Chromium it
/// starts goes down with it.
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    async fn start(log: SharedLog) -> Driver {
        let bin = paths::chromedriver();
        let mut last_problem = String::new();
        // A free port can be taken between our probe and chromedriver's bind.
        for _ in 0..3 {
            let port = free_port();
            let mut child = Command::new(&bin)
                .arg(format!("--port={port}"))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
            super::gateway::pump_lines(child.stdout.take().unwrap(), log.clone(), None);
            super::gateway::pump_lines(child.stderr.take().unwrap(), log.clone(), None);
            let mut driver = Driver { child, port };
            let ready = poll_until("chromedriver /status", secs(15), millis(50), || {
                let port = driver.port;
                async move {
                    let status = http_json(port, "GET", "/status", None).await?;
                    Ok::<_, String>(status["value"]["ready"].as_bool().filter(|r| *r))
                }
            })
            .await;
            match ready {
                Ok(_) => return driver,
                Err(e) => {
                    last_problem = e;
                    if let Ok(Some(_)) = driver.child.try_wait() {
                        continue;
                    }
                    driver.kill();
                }
            }
        }
        panic!(
            "chromedriver ({}) did not become ready: {last_problem}; its output:\n{}",
            bin.display(),
            log.lock().unwrap()
        );
    }

    fn kill(&mut self) {
        // SAFETY: plain syscall; the group id is the one we created for this child.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free loopback port")
}

/// A minimal HTTP/1.1 JSON request to chromedriver, for the endpoints
/// fantoccini has no method for (`/status`, `/se/log`).
async fn http_json(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, String> {
    let exchange = http_exchange(port, method, path, body);
    match tokio::time::timeout(Duration::from_secs(10), exchange).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "no answer from chromedriver to {method} {path} within 10 s"
        )),
    }
}

async fn http_exchange(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, String> {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .map_err(|e| format!("connect to chromedriver: {e}"))?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    // chromedriver says `Connection: close` but keeps the socket open, so
    // read by Content-Length (or chunks) rather than to EOF.
    let mut raw: Vec<u8> = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if let Some(payload) = complete_payload(&raw)? {
            return serde_json::from_str(&payload)
                .map_err(|e| format!("bad JSON from chromedriver ({e}): {payload:?}"));
        }
        let n = stream.read(&mut buf).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err(format!(
                "chromedriver closed the connection mid-answer: {:?}",
                String::from_utf8_lossy(&raw)
            ));
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

/// The body of a complete HTTP answer in `raw`, or `None` if more is due.
fn complete_payload(raw: &[u8]) -> Result<Option<String>, String> {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let rest = &raw[split + 4..];
    let header = |name: &str| {
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == name)
            .map(|(_, v)| v.trim().to_string())
    };
    if let Some(len) = header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| format!("bad Content-Length {len:?}"))?;
        return Ok((rest.len() >= len).then(|| String::from_utf8_lossy(&rest[..len]).into_owned()));
    }
    if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        let text = String::from_utf8_lossy(rest);
        let done = text.starts_with("0\r\n") || text.contains("\r\n0\r\n");
        return Ok(done.then(|| dechunk(&text)));
    }
    Err(format!("HTTP answer without a length: {head:?}"))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A headless Chromium session. Drop kills chromedriver and its Chromium;
/// `close()` ends the session politely first.
pub struct Browser {
    client: Client,
    session_id: String,
    driver: Driver,
    logs: Mutex<Vec<LogEntry>>,
    attached: Mutex<Vec<(String, SharedLog)>>,
    driver_log: SharedLog,
    _profile: TempDir,
}

impl Browser {
    /// Starts chromedriver on a free port and a fresh headless Chromium
    /// (new profile dir, browser console captured).
    pub async fn start() -> Browser {
        Browser::start_with_args(&[]).await
    }

    /// [`start`](Self::start) with more Chromium flags (e.g.
    /// `--host-resolver-rules=…` to give loopback a non-loopback name).
    pub async fn start_with_args(extra: &[&str]) -> Browser {
        let driver_log: SharedLog = Default::default();
        let driver = Driver::start(driver_log.clone()).await;
        let profile = TempDir::new("aria-e2e-chromium");
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": paths::chromium(),
                "args": args,
            },
            "goog:loggingPrefs": { "browser": "ALL" },
        });
        let caps = match caps {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        let client = ClientBuilder::rustls()
            .expect("rustls initialisation")
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "cannot open a Chromium session through chromedriver: {e}; chromedriver said:\n{}",
                    driver_log.lock().unwrap()
                )
            });
        let session_id = client
            .session_id()
            .await
            .ok()
            .flatten()
            .expect("chromedriver gave no session id");
        Browser {
            client,
            session_id,
            driver,
            logs: Mutex::new(Vec::new()),
            attached: Mutex::new(Vec::new()),
            driver_log,
            _profile: profile,
        }
    }

    /// The underlying fantoccini client, for anything the helpers lack.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Adds a process log (e.g. the gateway's output) to failure reports.
    pub fn attach_log(&self, name: &str, log: SharedLog) {
        self.attached.lock().unwrap().push((name.to_string(), log));
    }

    pub async fn goto(&self, url: &str) {
        if let Err(e) = self.client.goto(url).await {
            self.fail(&format!("cannot open {url}: {e}")).await;
        }
    }

    /// Runs `script` (a function body; arguments in `arguments[i]`) in the page.
    pub async fn js(&self, script: &str, args: Vec<Value>) -> Value {
        match self.client.execute(script, args).await {
            Ok(v) => v,
            Err(e) => self.fail(&format!("script failed: {e}\n{script}")).await,
        }
    }

    /// The first element matching `css`, if any (no waiting).
    pub async fn find(&self, css: &str) -> Option<Element> {
        self.client.find(Locator::Css(css)).await.ok()
    }

    /// Waits until an element matches `css` and returns it.
    pub async fn wait_for(&self, css: &str, timeout: Duration) -> Element {
        let what = format!("an element matching `{css}`");
        self.poll(&what, timeout, || self.find(css)).await
    }

    /// Waits until nothing matches `css`.
    pub async fn wait_gone(&self, css: &str, timeout: Duration) {
        let what = format!("no element matching `{css}`");
        self.poll(&what, timeout, || async {
            (self.count(css).await == 0).then_some(())
        })
        .await
    }

    /// How many elements match `css` right now.
    pub async fn count(&self, css: &str) -> usize {
        let v = self
            .js(
                "return document.querySelectorAll(arguments[0]).length;",
                vec![json!(css)],
            )
            .await;
        v.as_u64().unwrap_or(0) as usize
    }

    /// Whether anything matches `css` right now.
    pub async fn exists(&self, css: &str) -> bool {
        self.count(css).await > 0
    }

    /// The `textContent` of the first match of `css`, or `None`.
    pub async fn try_text_of(&self, css: &str) -> Option<String> {
        let v = self
            .js(
                "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
                vec![json!(css)],
            )
            .await;
        v.as_str().map(str::to_string)
    }

    /// The `textContent` of the first match of `css`; fails the test if none.
    pub async fn text_of(&self, css: &str) -> String {
        match self.try_text_of(css).await {
            Some(t) => t,
            None => self.fail(&format!("no element matches `{css}`")).await,
        }
    }

    /// The `textContent` of every match of `css`, in document order.
    pub async fn texts_of(&self, css: &str) -> Vec<String> {
        let v = self
            .js(
                "return Array.from(document.querySelectorAll(arguments[0]), e => e.textContent);",
                vec![json!(css)],
            )
            .await;
        serde_json::from_value(v).unwrap_or_default()
    }

    /// Waits for `css`, then types `text` into it with real key events.
    pub async fn type_into(&self, css: &str, text: &str) {
        let el = self.wait_for(css, secs(10)).await;
        if let Err(e) = el.send_keys(text).await {
            self.fail(&format!("cannot type into `{css}`: {e}")).await;
        }
    }

    /// Presses Enter in the element matching `css`.
    pub async fn press_enter(&self, css: &str) {
        let enter: char = fantoccini::key::Key::Enter.into();
        self.type_into(css, &enter.to_string()).await;
    }

    /// Waits for `css`, then clicks it.
    pub async fn click(&self, css: &str) {
        let el = self.wait_for(css, secs(10)).await;
        if let Err(e) = el.click().await {
            self.fail(&format!("cannot click `{css}`: {e}")).await;
        }
    }

    /// Calls `probe` every 25 ms until it returns `Some`; after `timeout`
    /// the test fails with `what` and full diagnostics.
    pub async fn poll<T, F, Fut>(&self, what: &str, timeout: Duration, mut probe: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Option<T>>,
    {
        let result = poll_until(what, timeout, Duration::from_millis(25), || {
            let fut = probe();
            async move { Ok::<_, std::convert::Infallible>(fut.await) }
        })
        .await;
        match result {
            Ok(v) => v,
            Err(msg) => self.fail(&msg).await,
        }
    }

    /// Sets a browser permission for the page's origin through
    /// chromedriver's `permissions` endpoint (e.g. `notifications`,
    /// `granted`), as if the user had answered the browser's prompt.
    pub async fn set_permission(&self, name: &str, state: &str) {
        let path = format!("/session/{}/permissions", self.session_id);
        let body = json!({"descriptor": {"name": name}, "state": state});
        match http_json(self.driver.port, "POST", &path, Some(&body)).await {
            Ok(v) if v["value"].is_null() => {}
            Ok(v) => {
                self.fail(&format!("cannot set permission {name}: {v}"))
                    .await
            }
            Err(e) => {
                self.fail(&format!("cannot set permission {name}: {e}"))
                    .await
            }
        }
    }

    /// Every console entry since the session started (all levels).
    pub async fn console_logs(&self) -> Vec<LogEntry> {
        if let Err(e) = self.fetch_console().await {
            panic!("cannot read the browser console from chromedriver: {e}");
        }
        self.logs.lock().unwrap().clone()
    }

    /// Moves new console entries into `self.logs` (chromedriver hands each
    /// entry out only once).
    async fn fetch_console(&self) -> Result<(), String> {
        let path = format!("/session/{}/se/log", self.session_id);
        let body = json!({"type": "browser"});
        let v = http_json(self.driver.port, "POST", &path, Some(&body)).await?;
        let fresh = v["value"]
            .as_array()
            .ok_or_else(|| format!("unexpected answer: {v}"))?;
        let mut logs = self.logs.lock().unwrap();
        logs.extend(fresh.iter().map(|e| LogEntry {
            level: e["level"].as_str().unwrap_or_default().to_string(),
            source: e["source"].as_str().unwrap_or_default().to_string(),
            message: e["message"].as_str().unwrap_or_default().to_string(),
        }));
        Ok(())
    }

    /// Console errors since the session started: console.error, uncaught
    /// exceptions, failed loads, CSP violations.
    pub async fn console_errors(&self) -> Vec<LogEntry> {
        self.console_logs()
            .await
            .into_iter()
            .filter(LogEntry::is_error)
            .collect()
    }

    /// Takes out of the console's record the errors whose message holds
    /// `text` (ones a test provokes on purpose, such as loading a revoked
    /// blob: URL) and says how many there were; any other error still
    /// fails the test.
    pub async fn take_console_errors(&self, text: &str) -> usize {
        if let Err(e) = self.fetch_console().await {
            panic!("cannot read the browser console from chromedriver: {e}");
        }
        let mut logs = self.logs.lock().unwrap();
        let before = logs.len();
        logs.retain(|e| !(e.is_error() && e.message.contains(text)));
        before - logs.len()
    }

    /// Fails the test, with diagnostics, if the console has any error.
    pub async fn assert_no_console_errors(&self) {
        let errors = self.console_errors().await;
        if !errors.is_empty() {
            let list: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
            self.fail(&format!(
                "the browser console has errors:\n{}",
                list.join("\n")
            ))
            .await;
        }
    }

    /// Saves a screenshot, the page's HTML and the logs, then panics with
    /// `msg`, the console and where the files are.
    pub async fn fail(&self, msg: &str) -> ! {
        let report = self.save_artifacts().await;
        panic!("{msg}\n{report}");
    }

    /// Writes `<target>/e2e-artifacts/<test>-<n>/{screenshot.png,page.html,logs.txt}`
    /// and returns a short report (console, log tails, the folder).
    pub async fn save_artifacts(&self) -> String {
        let dir = artifact_dir();
        let _ = std::fs::create_dir_all(&dir);
        let mut report = String::new();

        // Best effort: the session may be the thing that broke.
        let short = Duration::from_secs(5);
        if let Ok(Ok(png)) = tokio::time::timeout(short, self.client.screenshot()).await {
            let _ = std::fs::write(dir.join("screenshot.png"), png);
        }
        let html = tokio::time::timeout(
            short,
            self.client
                .execute("return document.documentElement.outerHTML;", vec![]),
        )
        .await;
        if let Ok(Ok(Value::String(html))) = html {
            let _ = std::fs::write(dir.join("page.html"), html);
        }
        if let Ok(Ok(url)) = tokio::time::timeout(short, self.client.current_url()).await {
            report.push_str(&format!("page: {url}\n"));
        }

        let _ = tokio::time::timeout(short, self.fetch_console()).await;
        let console = self.logs.lock().unwrap().clone();
        let mut logs = String::from("== browser console\n");
        for e in &console {
            logs.push_str(&format!("{e}\n"));
        }
        report.push_str(&format!(
            "browser console ({} entries):\n{}",
            console.len(),
            tail(&logs, 30)
        ));
        for (name, log) in self.attached.lock().unwrap().iter() {
            let text = log.lock().unwrap().clone();
            logs.push_str(&format!("== {name}\n{text}\n"));
            report.push_str(&format!("{name} (last lines):\n{}", tail(&text, 30)));
        }
        logs.push_str(&format!(
            "== chromedriver\n{}\n",
            self.driver_log.lock().unwrap()
        ));
        let _ = std::fs::write(dir.join("logs.txt"), logs);
        report.push_str(&format!(
            "screenshot, page.html, logs.txt in {}\n",
            dir.display()
        ));
        report
    }

    /// Takes a screenshot into `path` (PNG).
    pub async fn screenshot(&self, path: impl Into<PathBuf>) {
        let path = path.into();
        match self.client.screenshot().await {
            Ok(png) => std::fs::write(&path, png)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display())),
            Err(e) => self.fail(&format!("screenshot failed: {e}")).await,
        }
    }

    /// Ends the WebDriver session (Chromium exits); drop kills the rest.
    pub async fn close(self) {
        let _ = tokio::time::timeout(Duration::from_secs(10), self.client.clone().close()).await;
    }

    /// Fails the test if the console has any error, then ends the session.
    pub async fn finish(self) {
        self.assert_no_console_errors().await;
        self.close().await;
    }

    /// Reloads the page; fails the test if the browser cannot.
    pub async fn refresh(&self) {
        if let Err(e) = self.client.refresh().await {
            self.fail(&format!("reload failed: {e}")).await;
        }
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let mut out = all[start..].join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// `<target>/e2e-artifacts/<test name>-<n>`: libtest names each test's thread.
fn artifact_dir() -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let test = std::thread::current()
        .name()
        .unwrap_or("e2e")
        .replace("::", "-");
    paths::artifacts_dir().join(format!("{test}-{}", N.fetch_add(1, Ordering::Relaxed)))
}

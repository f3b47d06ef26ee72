//! Open WebUI as the peer: its process (installed by `scripts/webui-setup`
//! into tools/open-webui/venv), started fully offline against the fake
//! model server with a data dir in the bench's temp dir, and the two REST
//! calls the bench needs (sign in, create a chat).

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::http;
use super::sse::MODEL;
use crate::support::paths::{self, TempDir};

/// How long the first start (database migrations, imports) may take.
const START_TIMEOUT: Duration = Duration::from_secs(300);

pub struct OpenWebUi {
    child: Child,
    /// `127.0.0.1:PORT`.
    host: String,
    log: PathBuf,
    _data: TempDir,
}

/// Where `scripts/webui-setup` put the `open-webui` command.
pub fn bin() -> PathBuf {
    std::env::var_os("ARIA_WEBUI_BIN").map_or_else(
        || paths::repo_root().join("tools/open-webui/venv/bin/open-webui"),
        PathBuf::from,
    )
}

impl OpenWebUi {
    /// Starts `open-webui serve` on a free loopback port and waits until
    /// `/health` answers.
    pub async fn start(bin: &Path, model_url: &str) -> Result<OpenWebUi, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let data = TempDir::new("aria-bench-webui");
        let log = data.path().join("open-webui.log");
        let out = File::create(&log).map_err(|e| format!("create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(bin);
        cmd.args(["serve", "--host", "127.0.0.1", "--port", &port.to_string()])
            .envs([
                ("WEBUI_AUTH", "False"),
                ("ENABLE_OLLAMA_API", "False"),
                ("ENABLE_OPENAI_API", "True"),
                ("OPENAI_API_BASE_URL", model_url),
                ("OPENAI_API_KEY", "x"),
                ("OFFLINE_MODE", "True"),
                ("HF_HUB_OFFLINE", "1"),
                ("TRANSFORMERS_OFFLINE", "1"),
                ("RAG_EMBEDDING_ENGINE", "openai"),
                ("RAG_OPENAI_API_BASE_URL", model_url),
                ("RAG_OPENAI_API_KEY", "x"),
                ("DEFAULT_MODELS", MODEL),
                ("ENABLE_VERSION_UPDATE_CHECK", "False"),
                ("ANONYMIZED_TELEMETRY", "False"),
                ("DO_NOT_TRACK", "True"),
                ("SCARF_NO_ANALYTICS", "True"),
            ])
            .env("DATA_DIR", data.path())
            .current_dir(data.path())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        // Its own process group, so stopping it stops any worker it forks.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let mut webui = OpenWebUi {
            child,
            host: format!("127.0.0.1:{port}"),
            log,
            _data: data,
        };
        webui.wait_healthy().await?;
        Ok(webui)
    }

    async fn wait_healthy(&mut self) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < START_TIMEOUT {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "open-webui exited ({status}):\n{}",
                    self.log_tail()
                ));
            }
            if let Ok((200, _)) = http::call(&self.host, "GET", "/health", None, None).await {
                eprintln!(
                    "bench: Open WebUI is up after {:.0} s",
                    started.elapsed().as_secs_f64()
                );
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        Err(format!(
            "open-webui did not answer /health within {} s:\n{}",
            START_TIMEOUT.as_secs(),
            self.log_tail()
        ))
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.host)
    }

    /// The last lines of its output, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// Signs in as the single user that `WEBUI_AUTH=False` makes (the page
    /// signs in the same way) and turns off its "What's new" dialog, which
    /// would cover the composer on the first visit; returns the token.
    pub async fn session(&self) -> Result<String, String> {
        let body = json!({"email": "", "password": ""});
        let (status, reply) = http::call(
            &self.host,
            "POST",
            "/api/v1/auths/signin",
            None,
            Some(&body),
        )
        .await?;
        let token = reply["token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("sign-in answered {status}: {}", cut(&reply)))?;
        let settings = json!({"ui": {"showChangelog": false}});
        let (status, reply) = http::call(
            &self.host,
            "POST",
            "/api/v1/users/user/settings/update",
            Some(&token),
            Some(&settings),
        )
        .await?;
        if status != 200 {
            return Err(format!(
                "settings update answered {status}: {}",
                cut(&reply)
            ));
        }
        Ok(token)
    }

    /// Creates a chat holding `messages` (role, text) as one linear thread
    /// and returns its id; message `i` gets the DOM id `message-m{i}`.
    pub async fn create_chat(
        &self,
        token: &str,
        title: &str,
        messages: &[(String, String)],
    ) -> Result<String, String> {
        let chat = chat_json(title, messages);
        let body = json!({ "chat": chat });
        let (status, reply) = http::call(
            &self.host,
            "POST",
            "/api/v1/chats/new",
            Some(token),
            Some(&body),
        )
        .await?;
        reply["id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("creating the chat answered {status}: {}", cut(&reply)))
    }
}

/// The chat object Open WebUI's frontend keeps: a message tree (here a
/// single branch) plus the same messages as a list.
fn chat_json(title: &str, messages: &[(String, String)]) -> Value {
    let id = |i: usize| format!("m{i}");
    let mut tree = serde_json::Map::new();
    let mut list = Vec::new();
    for (i, (role, text)) in messages.iter().enumerate() {
        let mut m = json!({
            "id": id(i),
            "parentId": if i == 0 { Value::Null } else { json!(id(i - 1)) },
            "childrenIds": if i + 1 < messages.len() { json!([id(i + 1)]) } else { json!([]) },
            "role": role,
            "content": text,
            "timestamp": 1_764_000_000 + i as u64,
        });
        if role == "user" {
            m["models"] = json!([MODEL]);
        } else {
            m["model"] = json!(MODEL);
            m["modelName"] = json!(MODEL);
            m["done"] = json!(true);
        }
        list.push(m.clone());
        tree.insert(id(i), m);
    }
    json!({
        "title": title,
        "models": [MODEL],
        "params": {},
        "history": {"messages": tree, "currentId": messages.len().checked_sub(1).map(id)},
        "messages": list,
        "tags": [],
        "timestamp": 1_764_000_000_000u64,
    })
}

fn cut(v: &Value) -> String {
    v.to_string().chars().take(300).collect()
}

impl Drop for OpenWebUi {
    fn drop(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals the process group this struct started.
        unsafe {
            libc::kill(-pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

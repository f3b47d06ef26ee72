//! The app under measurement: a copy of the release build with the probe
//! loaded first, served by the reference gateway, open in headless Chromium.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::measure::Collected;
use crate::support::paths::TempDir;
use crate::support::{secs, Browser};

/// The probe's file name inside the served copy.
const PROBE: &str = "bench-probe.js";

pub const COMPOSER: &str = "form[data-testid=composer] textarea";
pub const CONNECTED: &str = "[data-testid=conn-status][data-state=connected]";

/// Copies the built client in `dist` and makes its page load the probe
/// before anything else (a classic script runs before the app's module).
pub fn instrumented_dist(dist: &Path, probe_js: &Path) -> TempDir {
    let dir = TempDir::new("aria-bench-dist");
    copy_dir(dist, dir.path());
    std::fs::copy(probe_js, dir.path().join(PROBE)).expect("copy the probe");
    let index = dir.path().join("index.html");
    let html = std::fs::read_to_string(&index).expect("read index.html");
    let tag = format!("<script src=\"/{PROBE}\"></script>\n");
    let at = html
        .find("<script")
        .or_else(|| html.find("</head>"))
        .expect("index.html has a <script> or </head>");
    let html = format!("{}{tag}{}", &html[..at], &html[at..]);
    std::fs::write(&index, html).expect("write index.html");
    // The build's precompressed copies are of the page without the probe;
    // the gateway would prefer them.
    for stale in ["index.html.br", "index.html.gz"] {
        let _ = std::fs::remove_file(dir.path().join(stale));
    }
    dir
}

/// Copies `from` into `to` with its subfolders (`hl/`, the highlighter).
fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read the dist dir") {
        let entry = entry.expect("read the dist dir");
        let target = to.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::create_dir_all(&target).expect("copy the dist dir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy the dist dir");
        }
    }
}

/// Sizes in bytes of what the browser downloads: (file, raw, gzip -9).
pub fn download_sizes(dist: &Path) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dist)
        .expect("read the dist dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "wasm" || e == "js" || e == "css" || e == "html")
        })
        .collect();
    entries.sort();
    for path in entries {
        let raw = std::fs::metadata(&path).map_or(0, |m| m.len());
        let gz = std::process::Command::new("gzip")
            .arg("-9c")
            .arg(&path)
            .output()
            .map_or(0, |o| o.stdout.len() as u64);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push((name, raw, gz));
    }
    out
}

/// A browser tab with the instrumented app.
pub struct Page<'a> {
    pub b: &'a Browser,
}

impl Page<'_> {
    /// Loads `url` afresh and waits until the app is connected.
    pub async fn open(&self, url: &str) {
        // A different page first, so that the same URL reloads for real.
        self.b.goto("about:blank").await;
        self.b.goto(url).await;
        self.b.wait_for(CONNECTED, secs(30)).await;
    }

    /// `performance.now()` in the page.
    pub async fn now(&self) -> f64 {
        self.b
            .js("return performance.now();", vec![])
            .await
            .as_f64()
            .unwrap_or(f64::NAN)
    }

    /// Everything the probe recorded since `since`.
    pub async fn collect(&self, since: f64) -> Collected {
        let v = self
            .b
            .js(
                "return window.__bench.collect(arguments[0]);",
                vec![json!(since)],
            )
            .await;
        match serde_json::from_value(v) {
            Ok(c) => c,
            Err(e) => self.b.fail(&format!("unexpected probe data: {e}")).await,
        }
    }

    /// Types `text` into the composer and sends it.
    pub async fn send(&self, text: &str) {
        self.b.type_into(COMPOSER, text).await;
        self.b.press_enter(COMPOSER).await;
    }

    /// Waits until the app has handled a message of `kind` that started
    /// after `since`, then lets a few frames pass so it is on screen.
    pub async fn wait_message(&self, kind: &str, since: f64, timeout: Duration) {
        let what = format!("a `{kind}` frame");
        self.b
            .poll(&what, timeout, || async {
                let seen = self
                    .b
                    .js(
                        "return window.__bench.socket.some(s => s[0] >= arguments[0] && s[2] === arguments[1]);",
                        vec![json!(since), json!(kind)],
                    )
                    .await;
                seen.as_bool().unwrap_or(false).then_some(())
            })
            .await;
        self.settle().await;
    }

    /// Lets the page render a few frames.
    pub async fn settle(&self) {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    /// Runs `script`, which must call its last argument with the result.
    pub async fn js_async(&self, script: &str, args: Vec<Value>) -> Value {
        match self.b.client().execute_async(script, args).await {
            Ok(v) => v,
            Err(e) => self.b.fail(&format!("async script failed: {e}")).await,
        }
    }

    /// Runs `script` and returns its value.
    pub async fn js(&self, script: &str, args: Vec<Value>) -> Value {
        self.b.js(script, args).await
    }
}

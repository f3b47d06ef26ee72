//! Copies of the built client the tests can serve and change, and what the
//! page says about its service worker.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::paths::{self, TempDir};
use crate::support::ui::connected;
use crate::support::{secs, App, Browser, GatewayOpts};

/// A copy of `dist/` (subdirectories too), for a gateway to serve while
/// the test swaps builds in it.
pub fn copy_of_dist() -> TempDir {
    let dir = TempDir::new("aria-e2e-pwa-dist");
    copy_dir(&paths::dist_dir(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy's dir");
    for entry in std::fs::read_dir(from).expect("read the dist dir") {
        let entry = entry.expect("read the dist dir");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a dist file");
        }
    }
}

/// The build id the served `sw.js` names (its `BUILD` line).
pub fn build_of(dir: &Path) -> String {
    let sw = std::fs::read_to_string(dir.join("sw.js")).expect("dist has sw.js");
    sw.lines()
        .find_map(|l| l.strip_prefix("const BUILD = \""))
        .and_then(|rest| rest.split('"').next())
        .expect("sw.js names its BUILD")
        .to_string()
}

/// Turns the build in `dir` into another one, as a deploy would: the wasm
/// gets a new hashed name (index.html follows) and scripts/precache runs
/// again, so sw.js lists the new name under a new BUILD. The compressed
/// copies follow: the wasm's are renamed, those of the changed files go
/// (the gateway then sends those plain). Returns the new wasm name.
pub fn make_next_build(dir: &Path) -> String {
    let wasm = std::fs::read_dir(dir)
        .expect("read the copy")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with("_bg.wasm"))
        .expect("the build has a wasm file");
    let (stem, _) = wasm.rsplit_once('-').expect("a hashed wasm name");
    let next = format!("{stem}-00112233445566ff_bg.wasm");
    for suffix in ["", ".br", ".gz"] {
        let _ = std::fs::rename(
            dir.join(format!("{wasm}{suffix}")),
            dir.join(format!("{next}{suffix}")),
        );
    }
    let index = dir.join("index.html");
    let html = std::fs::read_to_string(&index).expect("read index.html");
    assert!(html.contains(&wasm), "index.html names {wasm}");
    std::fs::write(&index, html.replace(&wasm, &next)).expect("write index.html");
    for stale in ["index.html.br", "index.html.gz", "sw.js.br", "sw.js.gz"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let status = Command::new("node")
        .arg(paths::repo_root().join("scripts/precache"))
        .arg(dir)
        .status()
        .expect("run node");
    assert!(status.success(), "node scripts/precache failed");
    next
}

/// Waits until a service worker controls the page; returns the names of
/// the page's caches.
pub async fn controlled(b: &Browser) -> Vec<String> {
    b.poll(
        "a service worker controlling the page",
        secs(30),
        || async {
            let v = b
                .js(
                    "return navigator.serviceWorker.controller ? caches.keys() : null;",
                    vec![],
                )
                .await;
            serde_json::from_value::<Option<Vec<String>>>(v)
                .ok()
                .flatten()
        },
    )
    .await
}

/// The shell sw.js lists (its `PRECACHE`), as paths from the origin.
pub fn precache_of(dir: &Path) -> Vec<String> {
    let sw = std::fs::read_to_string(dir.join("sw.js")).expect("dist has sw.js");
    let list = sw
        .split("const PRECACHE = ")
        .nth(1)
        .and_then(|rest| rest.split(";\n").next())
        .expect("sw.js has a PRECACHE list");
    let names: Vec<String> = serde_json::from_str(list).expect("PRECACHE is a JSON list");
    let mut paths: Vec<String> = names.into_iter().map(|n| format!("/{n}")).collect();
    paths.sort();
    paths
}

/// The URLs in the cache `name`, as path and query from the origin, sorted.
pub async fn cached_paths(b: &Browser, name: &str) -> Vec<String> {
    let v: Value = b
        .js(
            "return caches.open(arguments[0]).then(c => c.keys()).then(ks => ks.map(r => { const u = new URL(r.url); return u.pathname + u.search; }));",
            vec![Value::from(name)],
        )
        .await;
    let mut paths: Vec<String> = serde_json::from_value(v).unwrap_or_default();
    paths.sort();
    paths
}

/// The hashed wasm the running page was built with (boot.js's tag).
pub async fn page_wasm(b: &Browser) -> String {
    let v = b
        .js(
            "const t = document.getElementById('aria-boot'); return t ? t.dataset.wasm : null;",
            vec![],
        )
        .await;
    v.as_str()
        .unwrap_or_default()
        .trim_start_matches('/')
        .to_string()
}

/// A copy of `dist/` served by a gateway, and the app opened from it,
/// connected.
pub async fn app_on_copy() -> (TempDir, App) {
    let dist = copy_of_dist();
    let app = App::start_with(GatewayOpts {
        static_dir: Some(dist.path().to_path_buf()),
        ..GatewayOpts::default()
    })
    .await;
    connected(&app.browser).await;
    (dist, app)
}

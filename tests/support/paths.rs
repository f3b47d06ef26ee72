//! Where the artifacts under test live; each error says what to run.

use std::path::{Path, PathBuf};

/// The repository root (the `aria-web` package's manifest dir): the one
/// cargo names to the running test or bench, else the one it was built in.
/// The checkouts of a machine share one target dir (scripts/env), where
/// cargo may run a binary another checkout built (a CI clone since
/// deleted) as fresh.
pub fn repo_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// Cargo's target dir: `CARGO_TARGET_DIR` if set, else `<repo>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                repo_root().join(dir)
            }
        }
        None => repo_root().join("target"),
    }
}

/// Where the built client is expected: `ARIA_DIST`, else `<repo>/dist`.
pub fn dist_path() -> PathBuf {
    std::env::var_os("ARIA_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("dist"))
}

/// The built client: `ARIA_DIST`, else `<repo>/dist`. Panics with the
/// command to run if it has no `index.html`.
pub fn dist_dir() -> PathBuf {
    let dir = dist_path();
    if !dir.join("index.html").is_file() {
        panic!(
            "no built client at {}/index.html: run `trunk build --release --skip-version-check` \
             in the repo root (or ./scripts/test, which builds it), or point ARIA_DIST at a dist dir",
            dir.display()
        );
    }
    dir
}

/// The gateway binary: `ARIA_GATEWAY_BIN`, else `<target>/debug/aria-gateway`.
/// Panics with the command to run if it is missing.
pub fn gateway_bin() -> PathBuf {
    let bin = std::env::var_os("ARIA_GATEWAY_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("debug").join("aria-gateway"));
    if !bin.is_file() {
        panic!(
            "no gateway binary at {}: run `cargo build -p aria-gateway` (or ./scripts/test), \
             or point ARIA_GATEWAY_BIN at one",
            bin.display()
        );
    }
    bin
}

/// chromedriver: `CHROMEDRIVER`, else the one on PATH.
pub fn chromedriver() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROMEDRIVER") {
        return PathBuf::from(p);
    }
    find_on_path("chromedriver").unwrap_or_else(|| {
        panic!(
            "chromedriver not found on PATH: run ./scripts/setup \
             (it installs Debian's chromium and chromium-driver), or set CHROMEDRIVER"
        )
    })
}

/// The Chromium binary: `ARIA_CHROMIUM`, else `/usr/bin/chromium`.
pub fn chromium() -> PathBuf {
    let p = std::env::var_os("ARIA_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !p.is_file() {
        panic!(
            "no Chromium at {}: run ./scripts/setup (apt-get install chromium chromium-driver), \
             or set ARIA_CHROMIUM",
            p.display()
        );
    }
    p
}

/// Where failing tests leave screenshots, page HTML and logs.
pub fn artifacts_dir() -> PathBuf {
    target_dir().join("e2e-artifacts")
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// A fresh, empty directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create temp dir {}: {e}", dir.display()));
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

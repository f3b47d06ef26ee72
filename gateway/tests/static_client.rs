//! How the web client's files are served: the precompressed copy the
//! browser accepts, cache headers by file name, and the security headers
//! (the page's own CSP plus `frame-ancestors`) on every file. The static dir
//! is made here with names like trunk's output, so no build is needed.

use std::path::Path;

use crate::support::{http_request as get, manifest_dir, Gateway, Reply};

const PAGE_CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src data:";
const JS: &str = "aria-web-0123456789abcdef.js";
const WASM: &str = "aria-web-0123456789abcdef_bg.wasm";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Writes a file and, for each encoding given, a marked "compressed" twin.
fn write(dir: &Path, name: &str, body: &str, encodings: &[&str]) {
    std::fs::write(dir.join(name), body).expect("write");
    for ext in encodings {
        std::fs::write(dir.join(format!("{name}.{ext}")), format!("{ext}:{body}")).expect("write");
    }
}

fn client_dir(csp: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let index = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\">\n  \
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\
         <title>aria</title></head><body></body></html>"
    );
    write(dir.path(), "index.html", &index, &["br", "gz"]);
    write(dir.path(), JS, "export default 1;", &["br", "gz"]);
    write(dir.path(), WASM, "\0asm", &["br", "gz"]);
    write(dir.path(), "boot.js", "import('./x.js');", &[]);
    dir
}

async fn serving(dir: &Path) -> Gateway {
    let dir = dir.to_path_buf();
    Gateway::start_with(1, move |c| c.static_dir = dir).await
}

fn assert_security_headers(reply: &Reply, csp: &str, what: &str) {
    let expected = format!("{csp}; frame-ancestors 'none'");
    assert_eq!(
        reply.header("content-security-policy"),
        Some(expected.as_str()),
        "{what}"
    );
    assert_eq!(
        reply.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        reply.header("referrer-policy"),
        Some("no-referrer"),
        "{what}"
    );
    assert_eq!(reply.header("x-frame-options"), Some("DENY"), "{what}");
    let permissions = reply.header("permissions-policy").unwrap_or_default();
    for feature in ["camera=()", "microphone=()", "geolocation=()"] {
        assert!(permissions.contains(feature), "{what}: {permissions}");
    }
    assert!(
        !permissions.contains("notifications"),
        "{what}: {permissions}"
    );
}

#[tokio::test]
async fn the_page_and_a_hashed_asset_carry_the_security_headers() {
    let dir = client_dir(PAGE_CSP);
    let gw = serving(dir.path()).await;
    for path in [
        "/",
        "/index.html",
        &format!("/{JS}"),
        &format!("/{WASM}"),
        "/boot.js",
    ] {
        for accept in ["", "Accept-Encoding: br, gzip\r\n"] {
            let reply = get(gw.server.addr(), path, accept).await;
            assert_eq!(reply.status, 200, "{path}");
            assert_security_headers(&reply, PAGE_CSP, &format!("{path} {accept:?}"));
        }
    }
}

#[tokio::test]
async fn the_header_csp_is_the_one_of_the_real_index_html() {
    let source = manifest_dir().join("../index.html");
    let html = std::fs::read_to_string(&source).expect("index.html");
    let meta = html
        .split("http-equiv=\"Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("index.html has a CSP meta tag");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("index.html"), &html).expect("write");
    let gw = serving(dir.path()).await;
    let reply = get(gw.server.addr(), "/", "").await;
    assert_security_headers(&reply, meta, "/ of the real index.html");
}

/// The diagram renderer (the real js/diagram-frame.html, as
/// scripts/bundle-mermaid puts it) keeps its own policy, may be framed by
/// the page's origin only, and its files beside it get the page's headers.
#[tokio::test]
async fn the_diagram_frame_carries_its_own_policy() {
    let source = manifest_dir().join("../js/diagram-frame.html");
    let html = std::fs::read_to_string(&source).expect("js/diagram-frame.html");
    let meta = html
        .split("http-equiv=\"Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the frame has a CSP meta tag");
    assert!(meta.starts_with("default-src 'none';"), "{meta}");
    let dir = client_dir(PAGE_CSP);
    std::fs::create_dir(dir.path().join("mm")).expect("mm/");
    write(&dir.path().join("mm"), "frame.html", &html, &["br", "gz"]);
    write(&dir.path().join("mm"), "frame.js", "onmessage = null;", &[]);
    let gw = serving(dir.path()).await;
    for accept in ["", "Accept-Encoding: br, gzip\r\n"] {
        let reply = get(gw.server.addr(), "/mm/frame.html", accept).await;
        assert_eq!(reply.status, 200);
        let want = format!("{meta}; frame-ancestors 'self'");
        assert_eq!(reply.header("content-security-policy"), Some(want.as_str()));
        assert_eq!(reply.header("x-frame-options"), Some("SAMEORIGIN"));
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    }
    let script = get(gw.server.addr(), "/mm/frame.js", "").await;
    assert_security_headers(&script, PAGE_CSP, "/mm/frame.js");
    let page = get(gw.server.addr(), "/", "").await;
    assert_security_headers(&page, PAGE_CSP, "/ beside the frame");
}

#[tokio::test]
async fn precompressed_copies_follow_accept_encoding() {
    let dir = client_dir(PAGE_CSP);
    let gw = serving(dir.path()).await;
    let addr = gw.server.addr();
    let index = std::fs::read(dir.path().join("index.html")).expect("index");
    let cases: [(&str, &str, &str, &[u8]); 9] = [
        ("/", "", "text/html", &index),
        ("/", "gz", "text/html", b"gz:"),
        ("/", "br", "text/html", b"br:"),
        ("/index.html", "br", "text/html", b"br:"),
        (
            &format!("/{JS}"),
            "",
            "text/javascript",
            b"export default 1;",
        ),
        (
            &format!("/{JS}"),
            "gz",
            "text/javascript",
            b"gz:export default 1;",
        ),
        (
            &format!("/{JS}"),
            "br",
            "text/javascript",
            b"br:export default 1;",
        ),
        (&format!("/{WASM}"), "br", "application/wasm", b"br:\0asm"),
        // No compressed copy: the file itself, whatever is accepted.
        ("/boot.js", "br", "text/javascript", b"import('./x.js');"),
    ];
    for (path, want, mime, body_start) in cases {
        let accept = match want {
            "" => String::new(),
            "gz" => "Accept-Encoding: gzip\r\n".to_string(),
            _ => "Accept-Encoding: gzip, deflate, br\r\n".to_string(),
        };
        let reply = get(addr, path, &accept).await;
        let what = format!("{path} accepting {accept:?}");
        assert_eq!(reply.status, 200, "{what}");
        assert!(
            reply.body.starts_with(body_start),
            "{what}: {:?}",
            String::from_utf8_lossy(&reply.body)
        );
        let encoding = match (want, path) {
            (_, "/boot.js") | ("", _) => None,
            ("gz", _) => Some("gzip"),
            _ => Some("br"),
        };
        assert_eq!(reply.header("content-encoding"), encoding, "{what}");
        let content_type = reply.header("content-type").unwrap_or_default();
        assert!(content_type.starts_with(mime), "{what}: {content_type}");
        assert_eq!(
            reply.header("vary").map(str::to_ascii_lowercase).as_deref(),
            Some("accept-encoding"),
            "{what}"
        );
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_everything_else_revalidates() {
    let dir = client_dir(PAGE_CSP);
    let gw = serving(dir.path()).await;
    let addr = gw.server.addr();
    for accept in ["", "Accept-Encoding: br\r\n"] {
        for path in [format!("/{JS}"), format!("/{WASM}")] {
            let reply = get(addr, &path, accept).await;
            assert_eq!(reply.header("cache-control"), Some(IMMUTABLE), "{path}");
        }
        for path in ["/", "/index.html", "/boot.js"] {
            let reply = get(addr, path, accept).await;
            assert_eq!(reply.header("cache-control"), Some("no-cache"), "{path}");
        }
    }
    let missing = get(addr, "/aria-web-fedcba9876543210.js", "").await;
    assert_eq!(missing.status, 404);
    assert_ne!(
        missing.header("cache-control"),
        Some(IMMUTABLE),
        "a 404 is not kept for a year"
    );
}

#[tokio::test]
async fn the_service_worker_revalidates_and_the_manifest_is_a_manifest() {
    let dir = client_dir(PAGE_CSP);
    write(dir.path(), "sw.js", "const BUILD = \"b\";", &["br", "gz"]);
    write(
        dir.path(),
        "manifest.webmanifest",
        "{\"name\":\"aria\"}",
        &["br", "gz"],
    );
    let gw = serving(dir.path()).await;
    let addr = gw.server.addr();
    for accept in ["", "Accept-Encoding: gzip\r\n", "Accept-Encoding: br\r\n"] {
        // A new build's worker must be seen on the next load, not in a day.
        let sw = get(addr, "/sw.js", accept).await;
        assert_eq!(sw.status, 200, "sw.js {accept:?}");
        assert_eq!(
            sw.header("cache-control"),
            Some("no-cache"),
            "sw.js {accept:?}"
        );
        let mime = sw.header("content-type").unwrap_or_default();
        assert!(
            mime.starts_with("text/javascript"),
            "sw.js {accept:?}: {mime}"
        );
        assert_security_headers(&sw, PAGE_CSP, "sw.js");

        let manifest = get(addr, "/manifest.webmanifest", accept).await;
        assert_eq!(manifest.status, 200, "manifest {accept:?}");
        assert_eq!(
            manifest.header("content-type"),
            Some("application/manifest+json"),
            "manifest {accept:?}"
        );
        assert_eq!(manifest.header("cache-control"), Some("no-cache"));
    }
}

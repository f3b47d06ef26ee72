//! The web client's files: the brotli or gzip copy made at build time
//! (`scripts/precompress`) when the browser accepts it, and cache headers
//! that let a browser keep the hashed assets for good while always
//! revalidating `index.html`, which names them.

use std::path::Path;

use axum::extract::Request;
use axum::handler::HandlerWithoutStateExt;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, VARY};
use axum::http::{HeaderValue, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tower_http::services::ServeDir;

/// Trunk names assets `NAME-HASH.EXT` (the wasm `NAME-HASH_bg.wasm`): a new
/// build means a new name, so the old one never changes.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else may change under the same name: revalidate each time.
/// That includes the service worker `sw.js` (a new build must be seen on
/// the next load) and `manifest.webmanifest` (sent as
/// `application/manifest+json` by its extension).
const NO_CACHE: &str = "no-cache";

/// Shown at `/` when the static dir holds no built client.
const CLIENT_NOT_BUILT: &str = "aria-gateway is running, but the web client is not built.\n\n\
Build it with `trunk build --release` in the aria-web checkout and start the gateway with\n\
`--static-dir dist` (the directory holding index.html). The WebSocket endpoint is /ws.\n";

/// Every path of `dir`, precompressed copies preferred.
pub fn router(dir: &Path) -> Router {
    let files = ServeDir::new(dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(file_not_found.into_service());
    Router::new()
        .fallback_service(files)
        .layer(middleware::from_fn(cache_headers))
}

/// `Cache-Control` by file name and `Vary`, on the files served.
async fn cache_headers(request: Request, next: Next) -> Response {
    let policy = cache_policy(request.uri().path());
    let mut response = next.run(request).await;
    let status = response.status();
    if status.is_success() || status == StatusCode::NOT_MODIFIED {
        let headers = response.headers_mut();
        headers.insert(CACHE_CONTROL, HeaderValue::from_static(policy));
        // The same URL is sent as brotli, gzip or plain, by Accept-Encoding.
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

fn cache_policy(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or_default();
    if is_hashed(name) {
        IMMUTABLE
    } else {
        NO_CACHE
    }
}

/// Whether a file name carries trunk's content hash: 64-bit seahash in hex
/// before the extension. Shorter runs of hex (`logo-cafe.svg`) are names.
fn is_hashed(name: &str) -> bool {
    let Some((stem, _ext)) = name.split_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let Some((_, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    (12..=16).contains(&hash.len()) && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trunk_hashed_names_are_immutable() {
        for path in [
            "/aria-web-8f3e1c2d5a6b7c9d.js",
            "/aria-web-8f3e1c2d5a6b7c9d_bg.wasm",
            "/base-1a2b3c4d5e6f7a8b.css",
            "/markdown-0123456789abc.css",
            "/aria-web-8f3e1c2d5a6b7c9d.js.br",
            // The markdown module (scripts/build-markdown names it alike).
            "/md/markdown-191eef5f34fb3279.js",
            "/md/markdown-191eef5f34fb3279_bg.wasm",
            // The app's deferred part (scripts/split-wasm).
            "/aria-web-deferred-191eef5f34fb3279.wasm",
        ] {
            assert_eq!(cache_policy(path), IMMUTABLE, "{path}");
        }
    }

    #[test]
    fn other_names_revalidate() {
        for path in [
            "/",
            "/index.html",
            "/boot.js",
            "/manifest.webmanifest",
            "/sw.js",
            "/logo-cafe.svg",
            "/aria-web-8F3E1C2D5A6B7C9D.js",
            "/aria-web-8f3e1c2d5a6b7c9d0.js",
            "/aria-web-8f3e1c2d5a6b7c9x.js",
            "/8f3e1c2d5a6b7c9d",
            "/dir-8f3e1c2d5a6b7c9d/",
        ] {
            assert_eq!(cache_policy(path), NO_CACHE, "{path}");
        }
    }
}

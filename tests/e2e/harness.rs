//! Tests of the e2e harness itself, on small static pages (no gateway), and
//! of the built `dist/` loading under its Content-Security-Policy.

use std::path::Path;

use crate::support::connection::assert_no_crash;
use crate::support::paths::{self, TempDir};
use crate::support::{exclusive, millis, secs, Browser, StaticServer};

/// The same policy as index.html.
const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
                   connect-src 'self' ws: wss:; img-src 'self' https: http: data: blob:; \
                   frame-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

fn page(dir: &Path, body: &str) {
    let html = format!(
        "<!DOCTYPE html><html><head><meta charset=utf-8>\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
         <link rel=icon href=\"data:,\"><title>t</title></head><body>{body}</body></html>"
    );
    std::fs::write(dir.join("index.html"), html).unwrap();
}

#[tokio::test]
async fn a_clean_page_has_no_console_errors_and_the_helpers_work() {
    let _turn = exclusive().await;
    let dir = TempDir::new("aria-e2e-page");
    page(
        dir.path(),
        "<form><textarea id=t></textarea></form><ul></ul><script src=app.js></script>",
    );
    std::fs::write(
        dir.path().join("app.js"),
        r#"
        document.getElementById('t').addEventListener('keydown', ev => {
          if (ev.key === 'Enter') {
            ev.preventDefault();
            const li = document.createElement('li');
            li.className = 'item';
            li.textContent = ev.target.value;
            document.querySelector('ul').append(li);
            ev.target.value = '';
          }
        });
        const p = document.createElement('p');
        p.id = 'ready';
        p.textContent = 'ready';
        document.body.append(p);
        console.log('a harmless log line');
        "#,
    )
    .unwrap();
    let server = StaticServer::serve(dir.path());
    let b = Browser::start().await;
    b.goto(&server.url()).await;

    b.wait_for("#ready", secs(10)).await;
    assert_eq!(b.text_of("#ready").await, "ready");
    b.type_into("#t", "hello aria").await;
    b.press_enter("#t").await;
    b.poll("one .item", secs(5), || async {
        (b.count(".item").await == 1).then_some(())
    })
    .await;
    assert_eq!(b.texts_of(".item").await, vec!["hello aria".to_string()]);
    assert!(!b.exists(".nothing").await);
    assert_eq!(b.try_text_of(".nothing").await, None);

    tokio::time::sleep(millis(300)).await;
    let logs = b.console_logs().await;
    assert!(
        logs.iter()
            .any(|e| e.message.contains("a harmless log line")),
        "console.log was not captured: {logs:?}"
    );
    b.assert_no_console_errors().await;
    b.close().await;
}

#[tokio::test]
async fn console_errors_csp_violations_and_uncaught_exceptions_are_caught() {
    let _turn = exclusive().await;
    let dir = TempDir::new("aria-e2e-page");
    page(
        dir.path(),
        "<script>document.title = 'inline ran';</script>\
         <p style=\"color: red\">styled</p><script src=bad.js></script>",
    );
    std::fs::write(
        dir.path().join("bad.js"),
        r#"
        document.body.dataset.done = 'yes';
        console.error('boom from console.error');
        throw new Error('boom uncaught');
        "#,
    )
    .unwrap();
    let server = StaticServer::serve(dir.path());
    let b = Browser::start().await;
    b.goto(&server.url()).await;
    b.wait_for("body[data-done=yes]", secs(10)).await;

    let wanted = [
        "boom from console.error",
        "boom uncaught",
        "Content Security Policy",
    ];
    let errors = b
        .poll(
            "all three kinds of error in the console",
            secs(10),
            || async {
                let errors = b.console_errors().await;
                wanted
                    .iter()
                    .all(|w| errors.iter().any(|e| e.message.contains(w)))
                    .then_some(errors)
            },
        )
        .await;
    // The inline script was blocked, as our CSP intends.
    assert_ne!(b.js("return document.title;", vec![]).await, "inline ran");
    assert!(errors.iter().all(|e| e.is_error()));
    b.close().await;
}

#[tokio::test]
async fn a_second_browser_is_a_separate_device() {
    let _turn = exclusive().await;
    let dir = TempDir::new("aria-e2e-page");
    page(dir.path(), "<p id=ready>ready</p>");
    let server = StaticServer::serve(dir.path());
    let first = Browser::start().await;
    let second = Browser::start().await;
    first.goto(&server.url()).await;
    second.goto(&server.url()).await;
    first.wait_for("#ready", secs(10)).await;
    second.wait_for("#ready", secs(10)).await;
    first
        .js("localStorage.setItem('device', 'first');", vec![])
        .await;
    let seen = second
        .js("return localStorage.getItem('device');", vec![])
        .await;
    assert!(
        seen.is_null(),
        "profiles are shared between browsers: {seen}"
    );
    first.close().await;
    second.close().await;
}

/// The real build boots under its own CSP (served without a gateway, so the
/// app's failing WebSocket is expected; nothing else may go wrong).
#[tokio::test]
async fn the_built_client_boots_under_its_csp() {
    let _turn = exclusive().await;
    let dist = paths::dist_dir();
    let index = std::fs::read_to_string(dist.join("index.html")).unwrap();
    assert!(
        !index.contains("<script type=\"module\">") && !index.contains("<script>"),
        "dist/index.html has an inline script; the CSP would block it"
    );
    let server = StaticServer::serve(&dist);
    let b = Browser::start().await;
    b.goto(&server.url()).await;
    b.wait_for("html[data-booted=true]", secs(30)).await;
    tokio::time::sleep(millis(300)).await;
    assert_no_crash(&b).await;
    b.close().await;
}

//! The worker caches exactly the build's shell (the hashed wasm, js and
//! css the page loaded among it; nothing fetched at run time, no
//! `?gateway=` navigation), and with the gateway gone a reload still
//! starts the app, which shows that it is not connected.

use serde_json::Value;

use super::builds::{app_on_copy, build_of, cached_paths, controlled, page_wasm, precache_of};
use crate::support::ui::COMPOSER;
use crate::support::{run, secs};

#[test]
fn the_shell_is_precached_and_starts_with_the_gateway_gone() {
    run(|| async {
        let (dist, mut app) = app_on_copy().await;
        let b = &app.browser;
        let caches = controlled(b).await;
        let cache = format!("aria-shell-{}", build_of(dist.path()));
        assert_eq!(caches, vec![cache.clone()], "one shell, named by the build");

        // A navigation with a gateway choice in its query is served, never kept.
        let other = format!("{}?gateway=ws://127.0.0.1:9/ws", app.gateway.app_url());
        b.goto(&other).await;
        b.wait_for("html[data-booted=true]", secs(20)).await;

        let shell = precache_of(dist.path());
        assert_eq!(
            cached_paths(b, &cache).await,
            shell,
            "the cache holds the shell, only"
        );
        let loaded: Value = b
            .js(
                "const t = document.getElementById('aria-boot');
                 return [t.dataset.wasm, t.dataset.js,
                   ...Array.from(document.querySelectorAll('link[rel=stylesheet]'), l => new URL(l.href).pathname)];",
                vec![],
            )
            .await;
        let loaded: Vec<String> = serde_json::from_value(loaded).unwrap_or_default();
        assert!(loaded.len() >= 3, "wasm, js and css: {loaded:?}");
        for file in &loaded {
            assert!(shell.contains(file), "{file} is precached: {shell:?}");
        }
        assert!(shell.contains(&"/index.html".to_string()), "{shell:?}");
        assert!(
            shell
                .iter()
                .any(|p| p.starts_with("/md/markdown-") && p.ends_with("_bg.wasm")),
            "the markdown module is in the shell (offline reading renders): {shell:?}"
        );
        assert!(
            !shell
                .iter()
                .any(|p| p.starts_with("/hl/") || p == "/sw.js" || p.starts_with("/ws")),
            "no highlighter, worker or socket in the shell: {shell:?}"
        );
        app.assert_no_console_errors().await;
        let wasm = page_wasm(b).await;

        app.gateway.kill();
        let b = &app.browser;
        b.goto(&app.gateway.app_url()).await;
        b.wait_for("html[data-booted=true]", secs(20)).await;
        b.wait_for(COMPOSER, secs(10)).await;
        b.wait_for(
            "[data-testid=conn-status]:not([data-state=connected])",
            secs(10),
        )
        .await;
        assert_eq!(page_wasm(b).await, wasm, "the same build, from the cache");
        app.close().await;
    });
}

//! A deploy while the app is open: the next load is the new build, whole
//! (its index.html from the server names only its own hashed files), and
//! says "Updated to a new version" once; meanwhile the new worker installs
//! the new shell and drops the old one. The old build's wasm is gone from
//! the server, so nothing of it can be mixed in.

use super::builds::{app_on_copy, build_of, controlled, make_next_build, page_wasm};
use crate::support::ui::reload_connected;
use crate::support::{run, secs};

const NOTICE: &str = "[data-testid=update-notice]";

#[test]
fn a_new_build_takes_over_on_the_next_load_and_says_so() {
    run(|| async {
        let (dist, app) = app_on_copy().await;
        let b = &app.browser;
        let first = build_of(dist.path());
        assert_eq!(controlled(b).await, vec![format!("aria-shell-{first}")]);
        let old_wasm = page_wasm(b).await;
        assert!(!b.exists(NOTICE).await, "a first visit is no update");

        let new_wasm = make_next_build(dist.path());
        let second = build_of(dist.path());
        assert_ne!(first, second, "the deploy is a new build");

        reload_connected(b).await;
        let running = page_wasm(b).await;
        assert_ne!(running, old_wasm, "the old build after a deploy");
        assert_eq!(running, new_wasm, "the new build runs on the next load");
        b.wait_for(NOTICE, secs(5)).await;
        assert!(b.text_of(NOTICE).await.contains("Updated to a new version"));
        b.poll("the polite region to say so", secs(5), || async {
            b.text_of("[data-testid=live-polite]")
                .await
                .contains("Updated to a new version")
                .then_some(())
        })
        .await;

        let wanted = vec![format!("aria-shell-{second}")];
        b.poll(
            "the new worker to replace the old shell",
            secs(30),
            || async { (controlled(b).await == wanted).then_some(()) },
        )
        .await;

        // Said once: the same build again is no update.
        reload_connected(b).await;
        assert_eq!(page_wasm(b).await, new_wasm);
        assert!(
            !b.exists(NOTICE).await,
            "the notice is for the first load of a build"
        );
        app.finish().await;
    });
}

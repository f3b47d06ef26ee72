//! An item on another branch, reached by search or by a link: the thread
//! opens on its active path, says the item is on another branch and
//! offers "Show this branch"; only that click switches.

use serde_json::json;

use super::helpers::*;
use crate::support::ui::*;
use crate::support::{millis, run, secs, Browser};

const ALPHA: &str = "alpha question";
const BETA: &str = "beta question";
const GAMMA: &str = "gamma question";
const OFFER: &str = "[data-testid=branch-offer]";

/// The seq of the row `key`.
async fn seq_of(b: &Browser, key: &str) -> u64 {
    let v = b
        .js(
            "const r = document.querySelector(arguments[0]); return r ? Number(r.dataset.seq) : null;",
            vec![json!(row(key))],
        )
        .await;
    v.as_u64().unwrap_or(0)
}

/// The seq of the row marked as opened (a hit, a link, a branch shown).
async fn marked(b: &Browser) -> Option<u64> {
    b.js(
        "const r = document.querySelector('[data-testid=timeline] .row[aria-current=true]'); \
         return r ? Number(r.dataset.seq) : null;",
        vec![],
    )
    .await
    .as_u64()
}

/// Clicks "Show this branch" and waits until the item is on the path,
/// marked, and the offer gone.
async fn show_branch(b: &Browser, want: &[&str], seq: u64) {
    b.click("[data-testid=show-branch]").await;
    wait_path(b, want).await;
    b.wait_gone(OFFER, secs(10)).await;
    b.poll("the item shown marked", secs(10), || async {
        (marked(b).await == Some(seq)).then_some(())
    })
    .await;
}

#[test]
fn a_hit_or_a_link_on_another_branch_is_offered_never_switched_to() {
    run(|| async {
        let app = demo_app(5).await;
        let a = &app.browser;
        let id = new_thread_answered(a, ALPHA).await;
        send(a, BETA).await;
        wait_answer_to(a, BETA).await;
        let beta = seq_of(a, &user_row(a, BETA).await).await;
        edit(a, BETA, GAMMA).await;
        wait_answer_to(a, GAMMA).await;
        let gamma = seq_of(a, &user_row(a, GAMMA).await).await;
        wait_path(a, &[ALPHA, GAMMA]).await;

        // The hit of the old message says where it is.
        a.type_into("#search-input", "beta").await;
        let hit = format!("[data-testid=search-hit][data-seq=\"{beta}\"]");
        a.wait_for(&hit, secs(20)).await;
        let label = a
            .text_of(&format!("{hit} [data-testid=hit-other-branch]"))
            .await;
        assert_eq!(label.trim(), "on another branch");
        a.click(&hit).await;
        a.wait_for(OFFER, secs(10)).await;
        // Opening it switched nothing, here or on the gateway.
        tokio::time::sleep(millis(800)).await;
        wait_path(a, &[ALPHA, GAMMA]).await;
        show_branch(a, &[ALPHA, BETA], beta).await;

        // A link to the edit, now off the path, from another browser.
        let other = app
            .open_browser_at(&format!("{}#/t/{id}/{gamma}", app.gateway.app_url()))
            .await;
        connected(&other).await;
        other.wait_for(OFFER, secs(10)).await;
        wait_path(&other, &[ALPHA, BETA]).await;
        let text = other.text_of(OFFER).await;
        assert!(text.contains("on another branch"), "{text}");
        // "Not now" leaves things as they are.
        other.click("[data-testid=branch-offer-dismiss]").await;
        other.wait_gone(OFFER, secs(5)).await;
        wait_path(&other, &[ALPHA, BETA]).await;
        // The link again, and this time the branch is shown; the first
        // browser follows.
        other
            .js("location.hash = '#/t/' + arguments[0]; location.hash = '#/t/' + arguments[0] + '/' + arguments[1];", vec![json!(id), json!(gamma)])
            .await;
        other.wait_for(OFFER, secs(10)).await;
        show_branch(&other, &[ALPHA, GAMMA], gamma).await;
        wait_path(a, &[ALPHA, GAMMA]).await;
        other.finish().await;
        app.finish().await;
    });
}

//! Against the reference gateway (FTS5 search, `around`): a seeded thread
//! of 5,000 items, searched and opened in place; a hostile message
//! searched stays text.

use serde_json::json;

use crate::support::search::*;
use crate::support::ui::*;
use crate::support::{run, secs, App, GatewayOpts};

const HIT: &str = "[data-testid=search-hit]";

async fn seeded_app() -> App {
    let app = App::start_with(GatewayOpts {
        extra_args: vec!["--seed-channel".into(), "5000".into()],
        ..GatewayOpts::default()
    })
    .await;
    connected(&app.browser).await;
    app
}

#[test]
fn a_hit_of_the_real_gateway_opens_its_item_in_place() {
    run(|| async {
        let app = seeded_app().await;
        let b = &app.browser;
        // Turn 700's question is item 3501 (turns of five, from item 1).
        b.type_into("#search-input", "question 700").await;
        let hit = "[data-testid=search-hit][data-channel=c_seed][data-seq=\"3501\"]";
        b.wait_for(hit, secs(20)).await;
        let marks = b.texts_of(&format!("{hit} mark")).await;
        // "Question 700: how does module 700 …": each word marked where it is.
        assert_eq!(
            marks,
            vec!["Question".to_string(), "700".to_string(), "700".to_string()]
        );
        b.click(hit).await;
        b.poll("the marked item on screen", secs(20), || async {
            let marked = b
                .js("const r = document.querySelector('[data-testid=timeline] .row[aria-current=true]'); return r ? Number(r.dataset.seq) : null;", vec![])
                .await;
            (marked == json!(3501) && visible_seqs(b).await.contains(&3501)).then_some(())
        })
        .await;
        assert_eq!(hash(b).await, "#/t/c_seed/3501");
        // Only the window around it is loaded, not the thread's end.
        assert!(!shown_seqs(b).await.contains(&5000));
        assert!(b.exists("[data-testid=jump-latest]").await);
        b.click("[data-testid=jump-latest]").await;
        b.poll("the newest item after Jump to latest", secs(20), || async {
            visible_seqs(b).await.contains(&5000).then_some(())
        })
        .await;
        app.finish().await;
    });
}

#[test]
fn a_hostile_message_found_by_search_stays_text() {
    run(|| async {
        let app = seeded_app().await;
        let b = &app.browser;
        send(
            b,
            "<img src=x onerror=\"window.__pwned=1\"> zebrafish notes",
        )
        .await;
        wait_answers(b, 1).await;
        b.type_into("#search-input", "zebrafish").await;
        b.poll("the hostile hit", secs(20), || async {
            let t = b
                .try_text_of(&format!("{HIT} [data-testid=search-snippet]"))
                .await?;
            t.contains("<img src=x onerror=").then_some(())
        })
        .await;
        let injected = b
            .js(
                "return document.querySelectorAll('.search-results img').length;",
                vec![],
            )
            .await;
        assert_eq!(injected, json!(0));
        assert_eq!(
            b.js("return window.__pwned === undefined;", vec![]).await,
            json!(true)
        );
        let marks = b.texts_of(&format!("{HIT} mark")).await;
        assert!(
            !marks.is_empty() && marks.iter().all(|m| m == "zebrafish"),
            "{marks:?}"
        );
        app.finish().await;
    });
}

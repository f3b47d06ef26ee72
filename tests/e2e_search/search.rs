//! The search field: hits as you type, marked words, inert hostile
//! snippets, paging, keyboard, and a gateway without search.

use serde_json::json;

use crate::support::fake_gateway::FakeOpts;
use crate::support::search::*;
use crate::support::ui::*;
use crate::support::{run, secs};

const FIELD: &str = "#search-input";
const HIT: &str = "[data-testid=search-hit]";

/// A snippet that would run script if it were ever parsed as HTML.
const HOSTILE: &str = "<img src=x onerror=\"window.__pwned=1\"> needle <b>bold</b>";

#[test]
fn hits_show_marked_words_and_hostile_snippets_stay_text() {
    run(|| async {
        // 25 needles (every 8th item), the newest one hostile, in 200 items.
        let fake = big_thread(FakeOpts::default(), 200, |seq| {
            if seq == 200 {
                HOSTILE.to_string()
            } else if seq % 8 == 0 {
                format!("a Needle in item {seq}")
            } else {
                numbered(seq)
            }
        })
        .await;
        let page = fake_page(&fake, "#/").await;
        let b = &page.browser;
        b.type_into(FIELD, "needle").await;
        b.poll("the first page of hits", secs(10), || async {
            (b.count(HIT).await == 20).then_some(())
        })
        .await;
        // Heard once through the page's polite region.
        b.poll("the hit count to be heard", secs(5), || async {
            let heard = b.try_text_of("[data-testid=live-polite]").await?;
            (heard.trim_end_matches('\u{a0}') == "20 results").then_some(())
        })
        .await;
        // Debounced: one search for the whole word, not one per key.
        let searches = fake.received_of("search");
        assert_eq!(searches.len(), 1, "{searches:?}");
        assert_eq!(searches[0]["query"], json!("needle"));
        // Newest first: the hostile item (200) leads, as plain text.
        let first = b
            .text_of(&format!("{HIT}:first-child [data-testid=search-snippet]"))
            .await;
        assert!(first.contains("<img src=x onerror="), "{first}");
        let injected = b
            .js("return document.querySelectorAll('.search-results img, .search-results b').length;", vec![])
            .await;
        assert_eq!(injected, json!(0), "markup in a snippet became elements");
        assert_eq!(
            b.js("return window.__pwned === undefined;", vec![]).await,
            json!(true)
        );
        let marks = b.texts_of(&format!("{HIT} mark")).await;
        assert_eq!(marks.len(), 20);
        assert!(
            marks.iter().all(|m| m.eq_ignore_ascii_case("needle")),
            "{marks:?}"
        );
        assert!(b
            .text_of(&format!("{HIT}:first-child"))
            .await
            .contains("Big thread"));

        // More results: the cursor's page is appended.
        b.click("[data-testid=search-more]").await;
        b.poll("the second page of hits", secs(10), || async {
            (b.count(HIT).await == 25).then_some(())
        })
        .await;
        assert_eq!(fake.received_of("search")[1]["cursor"], json!("20"));
        b.poll("the new hit count to be heard", secs(5), || async {
            let heard = b.try_text_of("[data-testid=live-polite]").await?;
            (heard.trim_end_matches('\u{a0}') == "25 results").then_some(())
        })
        .await;
        b.wait_gone("[data-testid=search-more]", secs(5)).await;
        let seqs: Vec<u64> = b
            .js("return Array.from(document.querySelectorAll('[data-testid=search-hit]')).map(h => Number(h.dataset.seq));", vec![])
            .await
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_u64())
            .collect();
        let expected: Vec<u64> = (1..=200).rev().filter(|s| s % 8 == 0).collect();
        assert_eq!(seqs, expected, "newest first, each hit once");

        // Arrow keys and Enter open the second hit (seq 192) in place.
        b.js(
            "const f = document.querySelector('#search-input'); f.focus();
             for (const k of ['ArrowDown', 'ArrowDown']) f.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));",
            vec![],
        )
        .await;
        b.wait_for(
            "[data-testid=search-hit][aria-selected=true][data-seq=\"192\"]",
            secs(5),
        )
        .await;
        b.js(
            "document.querySelector('#search-input').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));",
            vec![],
        )
        .await;
        wait_marked(b, 192).await;
        assert_eq!(hash(b).await, "#/t/c1/192");

        // Escape clears the field and the hits.
        b.js(
            "document.querySelector('#search-input').dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));",
            vec![],
        )
        .await;
        b.wait_gone(HIT, secs(5)).await;
        assert_eq!(
            b.js(
                "return document.querySelector('#search-input').value;",
                vec![]
            )
            .await,
            json!("")
        );
        page.finish().await;
    });
}

#[test]
fn a_gateway_without_search_says_so() {
    run(|| async {
        let fake = big_thread(
            FakeOpts {
                search: false,
                ..FakeOpts::default()
            },
            5,
            numbered,
        )
        .await;
        let page = fake_page(&fake, "#/").await;
        let b = &page.browser;
        b.type_into(FIELD, "item").await;
        b.poll(
            "the field to say search is unavailable",
            secs(10),
            || async {
                let status = b.try_text_of("[data-testid=search-status]").await?;
                (status == "Search is unavailable on this gateway").then_some(())
            },
        )
        .await;
        let placeholder = b
            .js(
                "return document.querySelector('#search-input').placeholder;",
                vec![],
            )
            .await;
        assert_eq!(placeholder, json!("Search is unavailable on this gateway"));
        // Not a notice: the field says it; the page's two regions stay
        // the only live ones.
        assert_eq!(b.count(".notice").await, 0);
        assert_eq!(
            b.count("[aria-live], [role=status], [role=alert], [role=log]")
                .await,
            2
        );
        page.finish().await;
    });
}

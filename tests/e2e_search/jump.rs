//! Opening an item in place: deep links, two-way paging, Jump to latest,
//! and a gateway that ignores `around`.

use serde_json::json;

use crate::support::fake_gateway::{message_item, FakeOpts};
use crate::support::search::*;
use crate::support::ui::*;
use crate::support::{millis, run, secs};

#[test]
fn a_deep_link_opens_the_item_of_a_5000_item_thread_in_one_round_trip() {
    run(|| async {
        let fake = big_thread(FakeOpts::default(), 5000, numbered).await;
        let page = fake_page(&fake, "#/t/c1/2500").await;
        let b = &page.browser;
        wait_marked(b, 2500).await;
        // The item came with the first reply: `around`, never the newest
        // page (later ones are the window's next pages, asked on arrival).
        let gets = history_gets(&fake);
        assert_eq!(gets[0]["around"], json!(2500), "{gets:?}");
        assert!(
            gets.iter().all(|g| g.get("around").is_some()
                || g.get("after").is_some()
                || g.get("before").is_some()),
            "the thread's end was loaded: {gets:?}"
        );
        assert!(b.exists("[data-testid=jump-latest]").await);
        let shown = shown_seqs(b).await;
        assert!(shown.windows(2).all(|w| w[0] < w[1]), "{shown:?}");
        assert!(shown.iter().all(|s| (2475..2525).contains(s)), "{shown:?}");
        page.finish().await;
    });
}

#[test]
fn paging_both_ways_shows_every_seq_once_in_order() {
    run(|| async {
        let n = 400;
        let fake = big_thread(FakeOpts::default(), n, numbered).await;
        let page = fake_page(&fake, "#/t/c1/200").await;
        let b = &page.browser;
        wait_marked(b, 200).await;
        let mut seen = std::collections::BTreeSet::new();
        let record = |seen: &mut std::collections::BTreeSet<u64>, shown: Vec<u64>| {
            assert!(
                shown.windows(2).all(|w| w[0] < w[1]),
                "out of order or twice: {shown:?}"
            );
            seen.extend(shown);
        };
        // Down to the end of the thread, a screen at a time.
        for _ in 0..400 {
            record(&mut seen, shown_seqs(b).await);
            if seen.contains(&n) && !b.exists("[data-testid=jump-latest]").await {
                break;
            }
            let (_, h, _) = scroll_state(b).await;
            scroll_by(b, h * 0.8).await;
            tokio::time::sleep(millis(60)).await;
        }
        assert!(seen.contains(&n), "never reached the end");
        b.wait_gone("[data-testid=jump-latest]", secs(5)).await;
        // Up to the beginning.
        for _ in 0..600 {
            record(&mut seen, shown_seqs(b).await);
            if seen.contains(&1) && b.exists("[data-testid=beginning]").await {
                break;
            }
            let (_, h, _) = scroll_state(b).await;
            scroll_by(b, -h * 0.8).await;
            tokio::time::sleep(millis(60)).await;
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            (1..=n).collect::<Vec<_>>()
        );
        // Every page asked once: no seq was fetched twice.
        let gets = history_gets(&fake);
        let afters: Vec<u64> = gets.iter().filter_map(|g| g["after"].as_u64()).collect();
        let befores: Vec<u64> = gets.iter().filter_map(|g| g["before"].as_u64()).collect();
        assert!(afters.windows(2).all(|w| w[0] < w[1]), "{afters:?}");
        assert!(befores.windows(2).all(|w| w[0] > w[1]), "{befores:?}");
        page.finish().await;
    });
}

#[test]
fn live_frames_wait_for_jump_to_latest() {
    run(|| async {
        let n = 300;
        let fake = big_thread(FakeOpts::default(), n, numbered).await;
        let page = fake_page(&fake, "#/t/c1/60").await;
        let b = &page.browser;
        wait_marked(b, 60).await;
        // A new message is logged while the reader is far up.
        let mut live = message_item(n + 1, "user", "a live one", None);
        fake.log_item("c1", live.clone());
        live["channel_id"] = json!("c1");
        fake.push(live);
        tokio::time::sleep(millis(300)).await;
        assert!(
            !shown_seqs(b).await.contains(&(n + 1)),
            "shown after a hole"
        );
        b.click("[data-testid=jump-latest]").await;
        b.poll("the newest rows after Jump to latest", secs(10), || async {
            visible_seqs(b).await.contains(&(n + 1)).then_some(())
        })
        .await;
        b.wait_gone("[data-testid=jump-latest]", secs(5)).await;
        let shown = shown_seqs(b).await;
        assert!(shown.windows(2).all(|w| w[0] < w[1]), "{shown:?}");
        page.finish().await;
    });
}

#[test]
fn a_gateway_that_ignores_around_falls_back_to_the_newest_page() {
    run(|| async {
        let fake = big_thread(
            FakeOpts {
                around: false,
                ..FakeOpts::default()
            },
            500,
            numbered,
        )
        .await;
        let page = fake_page(&fake, "#/t/c1/100").await;
        let b = &page.browser;
        b.poll(
            "the notice that jumping is unsupported",
            secs(10),
            || async {
                b.texts_of(".notice")
                    .await
                    .iter()
                    .any(|t| t.contains("cannot open a message in place"))
                    .then_some(())
            },
        )
        .await;
        b.poll("the newest rows", secs(10), || async {
            visible_seqs(b).await.contains(&500).then_some(())
        })
        .await;
        assert!(!b.exists("[data-testid=jump-latest]").await);
        page.finish().await;
    });
}

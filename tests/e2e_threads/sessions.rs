//! Deep links, back/forward, an unknown thread id, and two browser
//! sessions: each message exactly once on both, answers streaming on both,
//! a delete reaching both.

use serde_json::Value;

use crate::support::recorder::*;
use crate::support::threads::*;
use crate::support::ui::*;
use crate::support::{run, secs, App, Browser};

/// Waits until the thread `id` is open: URL, active item, header title.
async fn wait_open(b: &Browser, id: &str, title: &str) {
    let what = format!("thread {id} ({title:?}) to be open");
    b.poll(&what, secs(10), || async {
        let ok = hash_channel(b).await.as_deref() == Some(id)
            && b.exists(&format!("{}.active", item(id))).await
            && chat_title(b).await == title;
        ok.then_some(())
    })
    .await;
}

/// Another browser on the deep link of thread `id`, connected.
async fn open_at_thread(app: &App, id: &str) -> Browser {
    let b = app
        .open_browser_at(&format!("{}#/t/{id}", app.gateway.app_url()))
        .await;
    connected(&b).await;
    b
}

/// How many user bubbles hold exactly `text`.
async fn bubbles_with(b: &Browser, text: &str) -> usize {
    b.texts_of(".msg-user .msg-text")
        .await
        .iter()
        .filter(|t| t.trim() == text)
        .count()
}

#[test]
fn deep_links_back_forward_and_an_unknown_thread() {
    run(|| async {
        let app = demo_app(5).await;
        let b = &app.browser;
        let a = new_thread_answered(b, "first deep thread").await;
        new_thread_pane(b).await;
        let z = new_thread_answered(b, "second deep thread").await;
        let title_a = "First deep thread";
        let title_z = "Second deep thread";
        b.poll("both better titles", secs(10), || async {
            (title_of(b, &a).await.as_deref() == Some(title_a)
                && title_of(b, &z).await.as_deref() == Some(title_z))
            .then_some(())
        })
        .await;

        // A fresh browser opened on a deep link shows that thread.
        let other = open_at_thread(&app, &a).await;
        wait_open(&other, &a, title_a).await;
        other
            .poll("the linked thread's messages", secs(10), || async {
                (bubbles_with(&other, "first deep thread").await == 1
                    && other.exists(".msg-assistant .msg-footer").await)
                    .then_some(())
            })
            .await;
        if bubbles_with(&other, "second deep thread").await != 0 {
            other
                .fail("the deep link shows another thread's messages")
                .await;
        }

        // Back and forward move between threads.
        other.click(&link(&z)).await;
        wait_open(&other, &z, title_z).await;
        other.js("history.back();", vec![]).await;
        wait_open(&other, &a, title_a).await;
        other
            .poll("thread A's messages after Back", secs(10), || async {
                (bubbles_with(&other, "first deep thread").await == 1
                    && bubbles_with(&other, "second deep thread").await == 0)
                    .then_some(())
            })
            .await;
        other.js("history.forward();", vec![]).await;
        wait_open(&other, &z, title_z).await;
        other
            .poll("thread Z's messages after Forward", secs(10), || async {
                (bubbles_with(&other, "second deep thread").await == 1).then_some(())
            })
            .await;
        other.finish().await;

        // An unknown id: a notice, and the new-thread pane.
        let lost = open_at_thread(&app, "c_no_such_thread").await;
        let notice = lost
            .poll("a notice about the unknown thread", secs(10), || async {
                lost.try_text_of(".notice").await
            })
            .await;
        if !notice.contains("does not exist") {
            lost.fail(&format!("unexpected notice: {notice:?}")).await;
        }
        lost.poll("the fallback to the new-thread pane", secs(5), || async {
            let h = hash(&lost).await;
            ((h == "#/" || h.is_empty()) && chat_title(&lost).await == "New thread").then_some(())
        })
        .await;
        if lost.count(".thread-item").await != 2 || lost.exists(".thread-item.active").await {
            lost.fail("after the fallback the thread list should be intact, nothing active")
                .await;
        }
        lost.finish().await;
        app.finish().await;
    })
}

#[test]
fn two_sessions_see_each_message_exactly_once_and_both_stream() {
    run(|| async {
        let app = demo_app(40).await;
        let one = &app.browser;
        let id = new_thread_answered(one, "hello from one").await;

        let two = open_at_thread(&app, &id).await;
        two.poll(
            "the thread's first turn in session two",
            secs(10),
            || async {
                (bubbles_with(&two, "hello from one").await == 1
                    && two.exists(".msg-assistant .msg-footer").await)
                    .then_some(())
            },
        )
        .await;

        // One sends: exactly once on both, the answer streams on both.
        for (from, to, text, answers) in [
            (one, &two, "second message from one", 2usize),
            (&two, one, "a reply from two", 3usize),
        ] {
            start_recorder(from).await;
            start_recorder(to).await;
            send(from, text).await;
            for b in [from, to] {
                b.poll("the message in both sessions", secs(10), || async {
                    (bubbles_with(b, text).await == 1).then_some(())
                })
                .await;
            }
            for b in [from, to] {
                wait_answers(b, answers).await;
            }
            for (who, b) in [("sender", from), ("receiver", to)] {
                if bubbles_with(b, text).await != 1 || b.exists(".msg-user.pending").await {
                    b.fail(&format!(
                        "{who}: {text:?} should show exactly once, delivered"
                    ))
                    .await;
                }
                let recs = records(b).await;
                let max_users = recs
                    .iter()
                    .map(|r| r["users"].as_u64().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
                if max_users as usize > answers {
                    b.fail(&format!(
                        "{who}: at some point {max_users} user bubbles showed for {answers} messages \
                         (a message shown twice):\n{}",
                        show(&recs)
                    ))
                    .await;
                }
                let streamed = recs.iter().any(|r: &Value| r["answerStreaming"] == true);
                if !streamed {
                    b.fail(&format!("{who}: the answer to {text:?} never streamed"))
                        .await;
                }
                if count_answers(b).await != answers {
                    b.fail(&format!("{who}: expected {answers} answers")).await;
                }
            }
        }
        two.finish().await;
        app.finish().await;
    })
}

#[test]
fn delete_asks_first_and_reaches_every_session() {
    run(|| async {
        let app = demo_app(5).await;
        let one = &app.browser;
        let keep = new_thread_answered(one, "keep this thread").await;
        new_thread_pane(one).await;
        let doomed = new_thread_answered(one, "delete this thread").await;

        let two = open_at_thread(&app, &doomed).await;
        two.poll("both threads in session two", secs(10), || async {
            (two.count(".thread-item").await == 2
                && bubbles_with(&two, "delete this thread").await == 1)
                .then_some(())
        })
        .await;

        // Delete… asks; Cancel keeps the thread.
        menu_action(one, &doomed, "delete").await;
        let text = one.text_of(MENU).await;
        if !text.contains("Delete this thread for everyone?")
            || !one
                .exists(&format!("{MENU} [data-action=delete-confirm]"))
                .await
        {
            one.fail(&format!(
                "Delete should ask for a confirmation, the menu says {text:?}"
            ))
            .await;
        }
        one.click(&format!("{MENU} [data-action=cancel]")).await;
        one.wait_gone(MENU, secs(5)).await;
        if one.count(".thread-item").await != 2 {
            one.fail("Cancel deleted the thread").await;
        }

        // Confirmed: gone in both sessions; both leave it.
        menu_action(one, &doomed, "delete").await;
        one.click(&format!("{MENU} [data-action=delete-confirm]"))
            .await;
        for b in [one, &two] {
            b.wait_gone(&item(&doomed), secs(10)).await;
            b.poll("the deleted thread to be closed", secs(5), || async {
                (hash_channel(b).await.is_none() && chat_title(b).await == "New thread")
                    .then_some(())
            })
            .await;
            if order(b).await != vec![keep.clone()] {
                b.fail("the other thread should remain").await;
            }
        }
        two.finish().await;
        app.finish().await;
    })
}

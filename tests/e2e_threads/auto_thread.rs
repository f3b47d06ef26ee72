//! Auto-threading: the first send from the new-thread pane.

use serde_json::{json, Value};

use crate::support::fake_gateway::{FakeGateway, FakeOpts, Step};
use crate::support::recorder::*;
use crate::support::threads::*;
use crate::support::ui::*;
use crate::support::{run, secs};

const FIRST: &str = "please summarize the repository layout for me";
/// The gateway's derived title: the first line, at most 48 characters.
const DERIVED: &str = "please summarize the repository layout for me";
/// The demo's "better" title: filler dropped, capitalized.
const BETTER: &str = "Summarize the repository layout for me";

#[test]
fn the_first_send_jumps_into_a_new_thread_and_its_title_improves() {
    run(|| async {
        // The better title comes 37 steps after the message (~1.5 s).
        let app = demo_app(40).await;
        let b = &app.browser;
        if chat_title(b).await != "New thread" || b.count(".thread-item").await != 0 {
            b.fail("a fresh gateway should open on the empty new-thread pane")
                .await;
        }
        start_recorder(b).await;
        send(b, FIRST).await;
        let id = b
            .poll("the URL to name the new thread", secs(10), || async {
                hash_channel(b).await
            })
            .await;
        b.poll("the sidebar to show the better title", secs(15), || async {
            (title_of(b, &id).await.as_deref() == Some(BETTER)).then_some(())
        })
        .await;
        b.poll("the header to show the better title", secs(5), || async {
            (chat_title(b).await == BETTER).then_some(())
        })
        .await;
        wait_answers(b, 1).await;

        let recs = records(b).await;
        let in_thread = |r: &Value| r["hash"].as_str() == Some(&format!("#/t/{id}"));
        // (Whether the bubble is seen pending in the pane before the jump
        // depends on the round trip; `the_pending_bubble_moves_…` below
        // checks each step with a slowed-down gateway.)
        // Never two bubbles; delivered in the thread.
        if let Some(r) = recs.iter().find(|r| r["users"].as_u64().unwrap_or(0) > 1) {
            b.fail(&format!("the message showed twice at some point: {r}"))
                .await;
        }
        let now = snapshot(b).await;
        if now["users"] != 1 || now["pending"] != 0 || b.count(".msg-user.failed").await != 0 {
            b.fail(&format!(
                "after the echo exactly one delivered bubble should remain: {now}"
            ))
            .await;
        }
        if !b.text_of(".msg-user").await.contains(FIRST) {
            b.fail("the bubble in the new thread does not hold the message")
                .await;
        }
        // The derived title at once, the better one later, in both places.
        let first_titled = recs
            .iter()
            .position(|r| in_thread(r) && r["title"] == DERIVED && r["activeTitle"] == DERIVED);
        let first_better = recs
            .iter()
            .position(|r| r["title"] == BETTER || r["activeTitle"] == BETTER);
        let ok = matches!((first_titled, first_better), (Some(a), Some(b)) if a < b);
        let untitled = recs
            .iter()
            .any(|r| in_thread(r) && (r["title"] == "Untitled" || r["title"] == "New thread"));
        if !ok || untitled {
            b.fail(&format!(
                "the thread should be titled {DERIVED:?} from the jump on, then {BETTER:?} \
                 (derived at {first_titled:?}, better at {first_better:?}, untitled seen: {untitled}):\n{}",
                show(&recs)
            ))
            .await;
        }
        if order(b).await != vec![id.clone()] {
            b.fail("the sidebar should list exactly the new thread")
                .await;
        }
        if !b.exists(&format!("{}.active", item(&id))).await {
            b.fail("the new thread is not marked active in the sidebar")
                .await;
        }
        app.finish().await;
    })
}

/// With a gateway that takes its time, every step of an auto-thread shows:
/// pending in the new-thread pane, then pending in the new thread (moved,
/// not copied), then delivered; one bubble throughout.
#[test]
fn the_pending_bubble_moves_into_the_new_thread_then_is_delivered() {
    run(|| async {
        let fake = FakeGateway::start(FakeOpts {
            // Each step of the auto-thread (send → `channel.created` → echo)
            // takes this long, so the pending bubble is seen in each place.
            auto_step_ms: 400,
            ..FakeOpts::default()
        })
        .await;
        fake.set_turn(|_| {
            vec![
                Step::Frame(json!({"type": "typing", "on": true})),
                Step::Pause(50),
                Step::Frame(
                    json!({"type": "message", "message_id": "a1", "role": "assistant",
                                   "text": "Moved and answered.", "model": "fake-model", "tokens": 4}),
                ),
                Step::Frame(json!({"type": "typing", "on": false})),
            ]
        });
        let page = fake_page(&fake, "").await;
        let b = &page.browser;
        start_recorder(b).await;
        send(b, "relocate me").await;
        b.poll("the thread to be answered", secs(10), || async {
            (hash_channel(b).await.as_deref() == Some("c_auto1")
                && b.exists(".msg-assistant .msg-footer").await)
                .then_some(())
        })
        .await;
        let recs = records(b).await;
        let phase = |r: &Value| {
            let here = r["hash"] == "#/t/c_auto1";
            match (here, r["users"].as_u64(), r["pending"].as_u64()) {
                (false, Some(1), Some(1)) => Some(1), // pending in the pane
                (true, Some(1), Some(1)) => Some(2),  // moved, still pending
                (true, Some(1), Some(0)) => Some(3),  // delivered
                _ => None,
            }
        };
        let phases: Vec<u8> = recs.iter().filter_map(phase).collect();
        let mut seen: Vec<u8> = phases.clone();
        seen.dedup();
        if seen != [1, 2, 3] {
            b.fail(&format!(
                "expected the bubble pending in the pane, then pending in the thread, then delivered \
                 (phases seen: {seen:?}):\n{}",
                show(&recs)
            ))
            .await;
        }
        let first = recs.iter().position(|r| r["users"] == 1).unwrap_or(0);
        if let Some(r) = recs[first..]
            .iter()
            .find(|r| r["users"] != 1 && r["answers"] == 0)
        {
            b.fail(&format!(
                "after it first showed, the message should stay exactly one bubble: {r}"
            ))
            .await;
        }
        if chat_title(b).await != "relocate me"
            || title_of(b, "c_auto1").await.as_deref() != Some("relocate me")
        {
            b.fail("the new thread should carry its title in the header and the sidebar")
                .await;
        }
        page.finish().await;
    })
}

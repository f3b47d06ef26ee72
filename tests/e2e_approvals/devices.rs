//! Several devices, reloads and socket drops while a request waits.

use crate::support::approvals::*;
use crate::support::ui::*;
use crate::support::{run, secs};

#[test]
fn a_second_device_sees_the_request_and_its_resolution_live_without_answering() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        let phone = page.second_browser(&fake.ws_url(), "#/t/c1").await;
        connected(&phone).await;
        fake.wait_ready(2, secs(20)).await;

        ask(&fake, request("c1", "r1", &ALL_CHOICES));
        wait_state(b, "r1", "pending").await;
        wait_state(&phone, "r1", "pending").await;
        phone
            .wait_for("[data-channel-id=c1] [data-testid=needs-you]", secs(5))
            .await;

        b.click(&format!("{} button[data-choice=deny]", card("r1")))
            .await;
        wait_state(&phone, "r1", "resolved").await;
        wait_state(b, "r1", "resolved").await;
        assert_eq!(outcome(b, "r1").await, "Denied");
        assert_eq!(outcome(&phone, "r1").await, "Denied on another device");
        phone
            .wait_gone("[data-channel-id=c1] [data-testid=needs-you]", secs(5))
            .await;

        // Exactly one answer, from the device that clicked.
        let phone_device = local_storage(&phone, "aria.device_id").await;
        let sent = fake.received_on("approval.respond");
        let from_phone = sent
            .iter()
            .filter(|(conn, _)| fake.device_of(*conn).as_deref() == phone_device.as_str())
            .count();
        if sent.len() != 1 || from_phone != 0 {
            b.fail(&format!(
                "want one respond, none from the second device ({phone_device}): {sent:?}"
            ))
            .await;
        }
        phone.finish().await;
        page.finish().await;
    });
}

#[test]
fn a_reload_and_a_socket_drop_while_waiting_show_it_again_answered_once() {
    run(|| async {
        let (fake, page) = open_c1().await;
        let b = &page.browser;
        ask(&fake, request("c1", "r1", &ALL_CHOICES));
        wait_state(b, "r1", "pending").await;

        // Reload: the gateway re-sends the request after `ready`.
        reload_connected(b).await;
        wait_state(b, "r1", "pending").await;
        assert_eq!(b.count("[data-testid=approval]").await, 1);

        // A network cut: after the reconnect it is still there, once.
        let before = fake.ready_count();
        fake.cut_all();
        fake.wait_ready(before + 1, secs(30)).await;
        b.wait_for(CONNECTED, secs(20)).await;
        wait_state(b, "r1", "pending").await;
        assert_eq!(b.count("[data-testid=approval]").await, 1);
        wait_title(b, "(1) needs you · aria").await;

        double_click(b, &format!("{} button[data-choice=once]", card("r1"))).await;
        wait_state(b, "r1", "resolved").await;
        assert_eq!(outcome(b, "r1").await, "Allowed once");
        assert_eq!(responds(&fake, "r1").len(), 1, "answered once");
        assert_eq!(b.count("[data-testid=approval]").await, 1);

        // Reloaded after the answer: the logged resolution, shown once.
        fake.push(serde_json::json!({"type": "typing", "channel_id": "c1", "on": false}));
        reload_connected(b).await;
        wait_state(b, "r1", "resolved").await;
        assert_eq!(b.count("[data-testid=approval]").await, 1);
        assert_eq!(outcome(b, "r1").await, "Allowed once");
        assert_eq!(responds(&fake, "r1").len(), 1);
        page.finish().await;
    });
}

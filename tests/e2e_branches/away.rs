//! A device that was away while the path changed (§12): back online, it
//! sees a `branch_rev` newer than the one its rows were read at and
//! reloads the thread rather than filling a gap, so it shows the new path
//! whole, nothing of the old one and nothing twice.

use super::helpers::*;
use crate::support::connection::status;
use crate::support::tcp_proxy::TcpProxy;
use crate::support::ui::*;
use crate::support::{secs, Gateway, GatewayOpts, Page};

#[test]
fn a_device_back_from_away_shows_the_path_switched_meanwhile() {
    crate::support::run(|| async {
        let gateway = Gateway::start(GatewayOpts {
            demo_delay_ms: 5,
            ..GatewayOpts::default()
        });
        let proxy = TcpProxy::start(gateway.addr()).await;
        let page = Page::open(&gateway.ws_url(), "").await;
        let a = &page.browser;
        connected(a).await;
        let id = new_thread_answered(a, "one").await;
        send(a, "two").await;
        wait_answer_to(a, "two").await;

        // The other device reads the thread through the proxy, then loses
        // the network.
        let b = page
            .second_browser(&proxy.ws_url(), &format!("#/t/{id}"))
            .await;
        connected(&b).await;
        wait_path(&b, &["one", "two"]).await;
        proxy.set_blackhole(true);
        proxy.cut_all();
        b.poll("the device offline", secs(20), || async {
            (status(&b).await != "connected").then_some(())
        })
        .await;

        // Meanwhile the message is edited and answered.
        edit(a, "two", "two, changed").await;
        wait_answer_to(a, "two, changed").await;

        // Back: the new path, whole.
        proxy.set_blackhole(false);
        proxy.cut_all();
        b.wait_for(CONNECTED, secs(40)).await;
        // A reconnection that met the cut network failed its handshake on
        // purpose; Chromium logs that as an error of its own.
        b.take_console_errors("WebSocket connection to").await;
        wait_path(&b, &["one", "two, changed"]).await;
        wait_navigators(&b, &["Message 2 of 2"]).await;
        let answers = b
            .texts_of("[data-testid=timeline] .msg-assistant blockquote")
            .await;
        assert_eq!(answers.len(), 2, "one answer each: {answers:?}");
        assert!(answers[1].contains("two, changed"), "{answers:?}");
        b.finish().await;
        page.finish().await;
    });
}

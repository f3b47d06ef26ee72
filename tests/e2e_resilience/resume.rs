//! Resume: after a dropped socket, a gateway killed and restarted on the
//! same data dir, or a page reload in the middle of a turn, the running
//! turn continues live and the thread ends up exactly as a device that
//! never disconnected shows it.

use std::net::SocketAddr;
use std::time::Duration;

use super::common::{
    assert_no_crash, reload, send, show_rows, timeline, wait_turn_over, Page, RowDump, CONNECTED,
};
use crate::support::tcp_proxy::TcpProxy;
use crate::support::{secs, Browser, Gateway, GatewayOpts};

/// A loopback address where nothing listens (connections are refused).
fn dead_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// Cuts every connection and keeps the gateway unreachable for `down`.
async fn outage(proxy: &TcpProxy, upstream: SocketAddr, down: Duration) {
    proxy.set_upstream(dead_addr());
    proxy.cut_all();
    tokio::time::sleep(down).await;
    proxy.set_upstream(upstream);
}

/// The current URL's `#…` part.
async fn hash_of(b: &Browser) -> String {
    let url = b.client().current_url().await.unwrap();
    format!("#{}", url.fragment().unwrap_or_default())
}

/// Sends `text` from the new-thread pane and waits for the thread to open.
async fn start_turn(b: &Browser, text: &str) -> String {
    send(b, text).await;
    b.poll("the auto thread to open", secs(10), || async {
        let h = hash_of(b).await;
        h.starts_with("#/t/").then_some(h)
    })
    .await
}

/// Length of the streaming answer's text, if one is streaming.
async fn streaming_len(b: &Browser) -> Option<usize> {
    let v = b
        .js(
            "const a = document.querySelector('.msg-assistant[data-streaming=true] .msg-body'); \
             return a ? a.textContent.length : null;",
            vec![],
        )
        .await;
    v.as_u64().map(|n| n as usize)
}

/// Whether a tool card whose text contains `what` is running.
async fn tool_running(b: &Browser, what: &str) -> bool {
    b.js(
        "return Array.from(document.querySelectorAll('.tool-card[data-state=running]'))\
           .some(c => c.textContent.includes(arguments[0]));",
        vec![serde_json::json!(what)],
    )
    .await
    .as_bool()
    .unwrap_or(false)
}

/// Waits until the streaming answer has grown past `len` while still
/// streaming: the turn is being shown live again.
async fn wait_streaming_past(b: &Browser, len: usize, what: &str) {
    b.poll(what, secs(20), || async {
        streaming_len(b).await.filter(|n| *n > len).map(|_| ())
    })
    .await;
}

async fn assert_same_timeline(a: &Browser, b: &Browser, what: &str) {
    let (ra, rb) = (timeline(a).await, timeline(b).await);
    if ra != rb || ra.is_empty() {
        a.fail(&format!(
            "{what}: the timelines differ.\nthis device:\n{}\nthe device that never disconnected:\n{}",
            show_rows(&ra),
            show_rows(&rb)
        ))
        .await;
    }
    eprintln!("{what}: both devices show\n{}", show_rows(&ra));
}

/// (a) The socket drops twice in one turn (while a tool runs, and while
/// the answer streams), each time for about a second.
#[tokio::test]
async fn a_dropped_socket_mid_turn_resumes_live_and_ends_like_a_device_that_stayed() {
    let gateway = Gateway::start(GatewayOpts {
        demo_delay_ms: 200,
        ..GatewayOpts::default()
    });
    let proxy = TcpProxy::start(gateway.addr()).await;
    let page = Page::open(&proxy.ws_url(), "").await;
    let a = &page.browser;
    a.attach_log("gateway output", gateway.output_handle());
    a.wait_for(CONNECTED, secs(20)).await;

    let hash = start_turn(a, "/demo all").await;
    let stayed = page.second_browser(&gateway.ws_url(), &hash).await;
    stayed.attach_log("gateway output", gateway.output_handle());
    stayed.wait_for(CONNECTED, secs(20)).await;

    // Drop 1: while the long tool call runs; its end and the next
    // commentary are logged while this device is away.
    a.poll("the cargo test tool to run", secs(30), || async {
        tool_running(a, "cargo test").await.then_some(())
    })
    .await;
    outage(&proxy, gateway.addr(), Duration::from_millis(1500)).await;
    a.wait_for(CONNECTED, secs(15)).await;

    // Drop 2: while the answer streams.
    let len = a
        .poll("the answer to start streaming", secs(30), || async {
            streaming_len(a).await.filter(|n| *n > 0)
        })
        .await;
    outage(&proxy, gateway.addr(), Duration::from_millis(700)).await;
    wait_streaming_past(a, len, "the answer to keep streaming after the reconnect").await;

    wait_turn_over(a, secs(60)).await;
    wait_turn_over(&stayed, secs(60)).await;
    assert_same_timeline(a, &stayed, "after two drops in one turn").await;
    assert!(proxy.connections() >= 3, "the drops did not happen");
    assert_no_crash(a).await;
    stayed.assert_no_console_errors().await;
    stayed.close().await;
    page.browser.close().await;
}

/// (a') The turn ends while the device is away: nothing live follows the
/// reconnect, so only the gap fill after it can bring the final answer.
#[tokio::test]
async fn a_turn_that_ends_while_the_device_is_away_is_filled_in_after_the_reconnect() {
    let gateway = Gateway::start(GatewayOpts {
        demo_delay_ms: 50,
        ..GatewayOpts::default()
    });
    let proxy = TcpProxy::start(gateway.addr()).await;
    let page = Page::open(&proxy.ws_url(), "").await;
    let a = &page.browser;
    a.attach_log("gateway output", gateway.output_handle());
    a.wait_for(CONNECTED, secs(20)).await;
    let hash = start_turn(a, "/demo nostream").await;
    wait_turn_over(a, secs(30)).await;
    let stayed = page.second_browser(&gateway.ws_url(), &hash).await;
    stayed.wait_for(CONNECTED, secs(20)).await;
    // About 7 s of streaming.
    send(a, "/demo long").await;
    a.poll("the answer to start streaming", secs(30), || async {
        streaming_len(a).await.filter(|n| *n > 0)
    })
    .await;
    // Away until the turn is over on the device that stayed.
    proxy.set_upstream(dead_addr());
    proxy.cut_all();
    wait_turn_over(&stayed, secs(60)).await;
    proxy.set_upstream(gateway.addr());
    a.wait_for(CONNECTED, secs(30)).await;
    wait_turn_over(a, secs(30)).await;
    assert_same_timeline(a, &stayed, "after a turn that ended while away").await;
    assert_no_crash(a).await;
    stayed.close().await;
    page.browser.close().await;
}

/// (b) The gateway process is killed mid-turn and started again on the
/// same data dir. The turn died with it: the app must not show it as
/// running forever, every logged item is there once, and the next turn
/// works and looks the same as on a fresh device.
#[tokio::test]
async fn a_gateway_killed_mid_turn_and_restarted_loses_nothing_logged() {
    let first = Gateway::start(GatewayOpts {
        demo_delay_ms: 100,
        ..GatewayOpts::default()
    });
    let proxy = TcpProxy::start(first.addr()).await;
    let page = Page::open(&proxy.ws_url(), "").await;
    let a = &page.browser;
    a.attach_log("gateway 1 output", first.output_handle());
    a.wait_for(CONNECTED, secs(20)).await;

    let hash = start_turn(a, "/demo all").await;
    a.poll("the cargo test tool to run", secs(30), || async {
        tool_running(a, "cargo test").await.then_some(())
    })
    .await;
    let mut first = first;
    first.kill();
    let second = Gateway::start(GatewayOpts {
        demo_delay_ms: 20,
        data_dir: Some(first.data_dir().to_path_buf()),
        ..GatewayOpts::default()
    });
    a.attach_log("gateway 2 output", second.output_handle());
    proxy.set_upstream(second.addr());
    a.wait_for(CONNECTED, secs(30)).await;
    // The dead turn is over on this device: nothing spins forever.
    wait_turn_over(a, secs(15)).await;

    let fresh = page.second_browser(&second.ws_url(), &hash).await;
    fresh.wait_for(CONNECTED, secs(20)).await;
    fresh
        .poll("the thread on a fresh device", secs(10), || async {
            (fresh.count(".msg-user").await >= 1).then_some(())
        })
        .await;
    let logged = |rows: Vec<RowDump>| -> Vec<RowDump> {
        rows.into_iter().filter(|r| r.seq.is_some()).collect()
    };
    let (ra, rf) = (timeline(a).await, timeline(&fresh).await);
    let users = ra
        .iter()
        .filter(|r| r.kind == "user" && r.text.contains("/demo all"))
        .count();
    if users != 1 || logged(ra.clone()) != rf {
        a.fail(&format!(
            "after the restart ({users} copies of the user message), this device:\n{}\na fresh device:\n{}",
            show_rows(&ra),
            show_rows(&rf)
        ))
        .await;
    }
    // What this device saw live of the dead turn stays as a record, but
    // nothing of it claims to be still running.
    for r in ra.iter().filter(|r| r.seq.is_none()) {
        let ok = (r.kind == "assistant" && r.flags.contains("interim"))
            || (r.kind == "tool" && r.flags.contains("unknown"));
        if !ok {
            a.fail(&format!(
                "a row of the dead turn is left in a live state: {r}"
            ))
            .await;
        }
    }

    // The next turn runs normally and both devices agree on all of it.
    send(a, "after the restart").await;
    a.poll("the new answer", secs(30), || async {
        (a.count(".msg-assistant .msg-footer .model").await >= 1).then_some(())
    })
    .await;
    wait_turn_over(a, secs(30)).await;
    wait_turn_over(&fresh, secs(30)).await;
    let (ra, rf) = (timeline(a).await, timeline(&fresh).await);
    if logged(ra.clone()) != rf {
        a.fail(&format!(
            "after a new turn, this device:\n{}\na fresh device:\n{}",
            show_rows(&ra),
            show_rows(&rf)
        ))
        .await;
    }
    assert_no_crash(a).await;
    fresh.close().await;
    page.browser.close().await;
}

/// (c) The page is reloaded mid-turn: the new page shows the turn live
/// (the gateway re-sends typing, the streaming bubble and running tools)
/// and ends equal to a device that stayed.
#[tokio::test]
async fn a_page_reloaded_mid_turn_shows_it_live_and_ends_like_a_device_that_stayed() {
    // Slow enough that the long tool call (30 steps) and the answer (22
    // snapshots) outlast a reload on a busy machine.
    let gateway = Gateway::start(GatewayOpts {
        demo_delay_ms: 300,
        ..GatewayOpts::default()
    });
    let page = Page::open(&gateway.ws_url(), "").await;
    let a = &page.browser;
    a.attach_log("gateway output", gateway.output_handle());
    a.wait_for(CONNECTED, secs(20)).await;
    let hash = start_turn(a, "/demo all").await;
    let stayed = page.second_browser(&gateway.ws_url(), &hash).await;
    stayed.wait_for(CONNECTED, secs(20)).await;

    // Reload 1: while a tool runs.
    a.poll("the cargo test tool to run", secs(30), || async {
        tool_running(a, "cargo test").await.then_some(())
    })
    .await;
    reload(a).await;
    a.wait_for(CONNECTED, secs(20)).await;
    a.poll("the running tool after the reload", secs(10), || async {
        tool_running(a, "cargo test").await.then_some(())
    })
    .await;

    // Reload 2: while the answer streams.
    let len = a
        .poll("the answer to start streaming", secs(30), || async {
            streaming_len(a).await.filter(|n| *n > 0)
        })
        .await;
    reload(a).await;
    a.wait_for(CONNECTED, secs(20)).await;
    wait_streaming_past(a, len, "the streaming answer after the reload").await;

    wait_turn_over(a, secs(60)).await;
    wait_turn_over(&stayed, secs(60)).await;
    assert_same_timeline(a, &stayed, "after two reloads in one turn").await;
    a.assert_no_console_errors().await;
    stayed.close().await;
    page.browser.close().await;
}

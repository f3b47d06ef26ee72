//! Resume: after a dropped socket, a gateway killed and restarted on the
//! same data dir, or a page reload in the middle of a turn, the running
//! turn continues live and the thread ends up exactly as a device that
//! never disconnected shows it.

use std::net::SocketAddr;
use std::time::Duration;

use crate::support::connection::{assert_no_crash, behind_proxy};
use crate::support::tcp_proxy::TcpProxy;
use crate::support::timeline::{show_rows, timeline, wait_turn_over, RowDump};
use crate::support::ui::{reload, send, send_new_thread, CONNECTED};
use crate::support::{secs, Browser, Gateway, GatewayOpts, Page};

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

/// Sends `text` from the new-thread pane and waits for the thread to open;
/// returns its `#/t/<id>`.
async fn start_turn(b: &Browser, text: &str) -> String {
    format!("#/t/{}", send_new_thread(b, text).await)
}

/// Another device, straight on `gateway` at `hash`, connected.
async fn second_device(page: &Page, gateway: &Gateway, hash: &str) -> Browser {
    let b = page.second_browser(&gateway.ws_url(), hash).await;
    b.attach_log("gateway output", gateway.output_handle());
    b.wait_for(CONNECTED, secs(20)).await;
    b
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

/// Waits until an answer streams and returns its length so far.
async fn wait_streaming(b: &Browser) -> usize {
    b.poll("the answer to start streaming", secs(30), || async {
        streaming_len(b).await.filter(|n| *n > 0)
    })
    .await
}

/// Waits until a tool card whose text contains `tool` is running.
async fn wait_tool_running(b: &Browser, tool: &str, what: &str, timeout: Duration) {
    b.poll(what, timeout, || async {
        tool_running(b, tool).await.then_some(())
    })
    .await;
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
    let (gateway, proxy, page) = behind_proxy(GatewayOpts {
        demo_delay_ms: 200,
        ..GatewayOpts::default()
    })
    .await;
    let a = &page.browser;
    a.wait_for(CONNECTED, secs(20)).await;

    let hash = start_turn(a, "/demo all").await;
    let stayed = second_device(&page, &gateway, &hash).await;

    // Drop 1: while the long tool call runs; its end and the next
    // commentary are logged while this device is away.
    wait_tool_running(a, "cargo test", "the cargo test tool to run", secs(30)).await;
    outage(&proxy, gateway.addr(), Duration::from_millis(1500)).await;
    a.wait_for(CONNECTED, secs(15)).await;

    // Drop 2: while the answer streams.
    let len = wait_streaming(a).await;
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
    let (gateway, proxy, page) = behind_proxy(GatewayOpts {
        demo_delay_ms: 50,
        ..GatewayOpts::default()
    })
    .await;
    let a = &page.browser;
    a.wait_for(CONNECTED, secs(20)).await;
    let hash = start_turn(a, "/demo nostream").await;
    wait_turn_over(a, secs(30)).await;
    let stayed = second_device(&page, &gateway, &hash).await;
    // About 7 s of streaming.
    send(a, "/demo long").await;
    wait_streaming(a).await;
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
    let (mut first, proxy, page) = behind_proxy(GatewayOpts {
        demo_delay_ms: 100,
        ..GatewayOpts::default()
    })
    .await;
    let a = &page.browser;
    a.wait_for(CONNECTED, secs(20)).await;

    let hash = start_turn(a, "/demo all").await;
    wait_tool_running(a, "cargo test", "the cargo test tool to run", secs(30)).await;
    first.kill();
    let second = Gateway::start(GatewayOpts {
        demo_delay_ms: 20,
        data_dir: Some(first.data_dir().to_path_buf()),
        ..GatewayOpts::default()
    });
    a.attach_log("restarted gateway output", second.output_handle());
    proxy.set_upstream(second.addr());
    a.wait_for(CONNECTED, secs(30)).await;
    // The dead turn is over on this device: nothing spins forever.
    wait_turn_over(a, secs(15)).await;

    let fresh = second_device(&page, &second, &hash).await;
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
    let stayed = second_device(&page, &gateway, &hash).await;

    // Reload 1: while a tool runs.
    wait_tool_running(a, "cargo test", "the cargo test tool to run", secs(30)).await;
    reload(a).await;
    a.wait_for(CONNECTED, secs(20)).await;
    wait_tool_running(
        a,
        "cargo test",
        "the running tool after the reload",
        secs(10),
    )
    .await;

    // Reload 2: while the answer streams.
    let len = wait_streaming(a).await;
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

//! Reading threads with the gateway stopped, and reconciling once it is
//! back.

use std::time::Duration;

use serde_json::json;

use crate::support::connection::{assert_no_crash, behind_proxy, status};
use crate::support::timeline::{show_rows, timeline, wait_turn_over, RowDump};
use crate::support::ui::{
    close_settings, hash_channel, new_thread_pane, open_settings, reload, send, send_new_thread,
    wait_kept, CONNECTED,
};
use crate::support::{run, secs, Browser, Gateway, GatewayOpts};

/// Raw HTML in a message: the copy must show it as text, like the gateway's
/// pages do (it is read back through the same store and sanitizer).
const PROBE: &str = "kept offline <img src=x onerror=\"window.__pwned=1\">";
const SECOND: &str = "the second kept thread";
const OFFLINE: &str = "typed while offline";

async fn wait_down(b: &Browser) {
    b.poll("the app to see the gateway gone", secs(15), || async {
        (status(b).await == "reconnecting").then_some(())
    })
    .await;
}

fn count(rows: &[RowDump], kind: &str, text: &str) -> usize {
    rows.iter()
        .filter(|r| r.kind == kind && r.text.contains(text))
        .count()
}

/// No seq shown twice, and the seqs one run from the first.
fn assert_seqs_once(rows: &[RowDump]) {
    let seqs: Vec<u64> = rows.iter().filter_map(|r| r.seq).collect();
    let expected: Vec<u64> = (seqs.first().copied().unwrap_or(1)..)
        .take(seqs.len())
        .collect();
    assert_eq!(seqs, expected, "seqs shown:\n{}", show_rows(rows));
}

/// Opens a thread from the sidebar and waits for a row containing `text`.
async fn open_thread(b: &Browser, id: &str, text: &str) {
    b.click(&format!(".thread-item[data-channel-id=\"{id}\"] a"))
        .await;
    b.poll(
        &format!("thread {id} showing {text:?}"),
        secs(10),
        || async {
            let rows = timeline(b).await;
            (rows.iter().any(|r| r.text.contains(text))).then_some(())
        },
    )
    .await;
}

#[test]
fn threads_are_read_offline_and_reconcile_once_the_gateway_is_back() {
    run(|| async {
        let (mut gateway, proxy, page) = behind_proxy(GatewayOpts::default()).await;
        let b = &page.browser;
        let (first, online_rows) = Box::pin(two_threads(b)).await;

        // The gateway stops; the page is reloaded from the static server.
        gateway.kill();
        Box::pin(read_offline(b, &first, &online_rows)).await;

        // The gateway comes back on its data dir, behind the same address.
        let restarted = Gateway::start(GatewayOpts {
            data_dir: Some(gateway.data_dir().to_path_buf()),
            ..GatewayOpts::default()
        });
        b.attach_log("restarted gateway output", restarted.output_handle());
        proxy.set_upstream(restarted.addr());
        Box::pin(reconciled(b)).await;

        // The gateway's log, on a fresh device: the offline message once.
        let fresh = page
            .second_browser(&proxy.ws_url(), &format!("#/t/{first}"))
            .await;
        Box::pin(logged_once(&fresh)).await;
        fresh.close().await;

        // Clearing the copy leaves nothing to read offline.
        Box::pin(clear(b)).await;
        drop(restarted);
        Box::pin(nothing_kept(b)).await;
        assert_no_crash(b).await;
        page.browser.close().await;
    });
}

/// Two threads with an answer each, kept; returns the first's id and the
/// rows of the second (the one open).
async fn two_threads(b: &Browser) -> (String, Vec<RowDump>) {
    b.wait_for(CONNECTED, secs(20)).await;
    let first = send_new_thread(b, PROBE).await;
    wait_turn_over(b, secs(30)).await;
    new_thread_pane(b).await;
    send_new_thread(b, SECOND).await;
    wait_turn_over(b, secs(30)).await;
    wait_kept(b, 2).await;
    (first, timeline(b).await)
}

/// After a reload with the gateway gone: both threads from the copy,
/// marked offline, their HTML as text; a message typed waits.
async fn read_offline(b: &Browser, first: &str, online_rows: &[RowDump]) {
    wait_down(b).await;
    let second = hash_channel(b).await;
    reload(b).await;
    wait_down(b).await;
    b.wait_for("[data-testid=conn-offline]", secs(10)).await;
    b.wait_for("[data-testid=thread-offline]", secs(5)).await;
    assert_eq!(hash_channel(b).await, second);
    b.poll("both kept threads listed", secs(10), || async {
        (b.count(".thread-item").await == 2).then_some(())
    })
    .await;
    let rows = timeline(b).await;
    assert_eq!(
        rows.iter()
            .map(|r| (&r.kind, r.seq, &r.text))
            .collect::<Vec<_>>(),
        online_rows
            .iter()
            .map(|r| (&r.kind, r.seq, &r.text))
            .collect::<Vec<_>>(),
        "the kept thread reads as it did online:\n{}",
        show_rows(&rows)
    );

    // The other thread, from the copy, its raw HTML as text.
    open_thread(b, first, "kept offline").await;
    let unsafe_html = b
        .js(
            "return [!!document.querySelector('[data-testid=timeline] img[src=x]'), \
                     window.__pwned === 1];",
            vec![],
        )
        .await;
    assert_eq!(unsafe_html, json!([false, false]), "the copy's HTML ran");
    let rows = timeline(b).await;
    assert_eq!(
        count(&rows, "user", "<img src=x"),
        1,
        "the probe reads as text once:\n{}",
        show_rows(&rows)
    );

    // A message typed now waits with the pending sends.
    send(b, OFFLINE).await;
    b.wait_for(".msg-user.pending", secs(5)).await;
}

/// Connected again: the marks go, the queued message is sent and answered
/// once, no seq is shown twice.
async fn reconciled(b: &Browser) {
    b.wait_for(CONNECTED, secs(30)).await;
    b.wait_gone("[data-testid=conn-offline]", secs(5)).await;
    b.wait_gone("[data-testid=thread-offline]", secs(5)).await;
    wait_turn_over(b, secs(30)).await;
    let rows = b
        .poll("the answer to the queued message", secs(30), || async {
            let rows = timeline(b).await;
            (count(&rows, "assistant", OFFLINE) > 0).then_some(rows)
        })
        .await;
    assert_seqs_once(&rows);
    assert_eq!(count(&rows, "user", OFFLINE), 1, "{}", show_rows(&rows));
    assert_eq!(
        count(&rows, "user", "<img src=x"),
        1,
        "{}",
        show_rows(&rows)
    );
    assert_eq!(
        count(&rows, "assistant", OFFLINE),
        1,
        "one answer:\n{}",
        show_rows(&rows)
    );
}

async fn logged_once(fresh: &Browser) {
    fresh.wait_for(CONNECTED, secs(20)).await;
    let logged = fresh
        .poll("the thread on a fresh device", secs(15), || async {
            let rows = timeline(fresh).await;
            (count(&rows, "assistant", OFFLINE) == 1).then_some(rows)
        })
        .await;
    assert_eq!(count(&logged, "user", OFFLINE), 1, "{}", show_rows(&logged));
    assert_seqs_once(&logged);
}

async fn clear(b: &Browser) {
    open_settings(b).await;
    b.click("[data-testid=clear-offline]").await;
    b.wait_for("[data-testid=offline-summary][data-threads=\"0\"]", secs(5))
        .await;
    close_settings(b).await;
    // Longer than the write delay: nothing is written back meanwhile.
    tokio::time::sleep(Duration::from_secs(3)).await;
}

/// A reload with the gateway gone again shows nothing.
async fn nothing_kept(b: &Browser) {
    wait_down(b).await;
    reload(b).await;
    wait_down(b).await;
    tokio::time::sleep(secs(2)).await;
    assert_eq!(b.count(".thread-item").await, 0, "no thread kept");
    assert!(!b.exists("[data-testid=conn-offline]").await);
    assert!(timeline(b).await.is_empty(), "no row kept");
}

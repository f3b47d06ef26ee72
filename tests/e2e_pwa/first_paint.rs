//! The first paint: `index.html` paints the app's frame (header, thread
//! list, the empty thread's text, the composer) with the HTML and the CSS,
//! before the wasm has arrived, and the app replaces it in place: the
//! largest paint is the static one, nothing moves, and the page never has
//! two frames (landmarks, headings, ids once each).

use serde_json::{json, Value};

use crate::support::{run, secs, App, GatewayOpts};

/// Starts collecting the page's largest-contentful-paint and layout-shift
/// entries (buffered: those from before this script too).
const OBSERVE: &str = r#"
window.__paints = { lcp: [], shifts: [] };
new PerformanceObserver(l => window.__paints.lcp.push(...l.getEntries().map(e => e.startTime)))
  .observe({ type: 'largest-contentful-paint', buffered: true });
new PerformanceObserver(l => window.__paints.shifts.push(...l.getEntries().map(e => e.value)))
  .observe({ type: 'layout-shift', buffered: true });
"#;

/// What the page shows now: whether it is booted, whether the static frame
/// is there, the landmarks and headings, ids used twice, and where the
/// frame's parts are.
const FRAME: &str = r#"
const rect = css => {
  const el = document.querySelector('.app ' + css);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return [r.left, r.top, r.width, r.height].map(v => Math.round(v * 10) / 10);
};
const ids = Array.from(document.querySelectorAll('[id]'), e => e.id);
const mark = performance.getEntriesByName('aria-booted')[0];
return {
  booted: document.documentElement.dataset.booted === 'true',
  shell: !!document.getElementById('aria-shell'),
  apps: document.querySelectorAll('.app').length,
  mains: document.querySelectorAll('main').length,
  navs: document.querySelectorAll('nav').length,
  h1s: document.querySelectorAll('h1').length,
  twice: ids.filter((id, i) => ids.indexOf(id) !== i),
  booted_at: mark ? mark.startTime : null,
  paints: window.__paints,
  rects: ['.sidebar', '.brand', '.chat-head', '.timeline', '.empty-state h2', '.empty-state p', '.composer']
    .map(css => [css, rect(css)]),
};
"#;

#[test]
fn the_static_frame_paints_first_and_the_app_replaces_it_in_place() {
    run(|| async {
        let app = App::unopened(GatewayOpts::default()).await;
        let b = &app.browser;
        // A slow link (150 KB/s): the HTML and CSS come in a fraction of a
        // second, the wasm in a few, so the static frame is on screen alone.
        b.cdp("Network.enable", json!({})).await;
        b.cdp(
            "Network.emulateNetworkConditions",
            json!({ "offline": false, "latency": 20,
                    "downloadThroughput": 150_000, "uploadThroughput": 150_000 }),
        )
        .await;
        b.goto(&app.gateway.app_url()).await;
        b.js(OBSERVE, vec![]).await;

        let before: Value = b
            .poll("the static frame painted", secs(20), || async {
                let f = b.js(FRAME, vec![]).await;
                let painted = f["paints"]["lcp"].as_array().is_some_and(|l| !l.is_empty());
                (painted || f["booted"] == true).then_some(f)
            })
            .await;
        assert_eq!(before["booted"], false, "still loading the wasm: {before}");
        assert_eq!(before["shell"], true, "the static frame is there: {before}");
        for (css, r) in rects(&before) {
            assert!(r.is_some(), "the static frame has {css}: {before}");
        }

        b.wait_for("html[data-booted=true]", secs(90)).await;
        let after = b.js(FRAME, vec![]).await;
        assert_eq!(after["shell"], false, "the static frame is gone: {after}");
        for (what, n) in [("apps", 1), ("mains", 1), ("navs", 1), ("h1s", 1)] {
            assert_eq!(after[what], n, "{what} once: {after}");
        }
        assert_eq!(after["twice"], json!([]), "no id twice: {after}");
        assert_eq!(
            rects(&before),
            rects(&after),
            "the app's frame is where the static one was"
        );

        let booted_at = after["booted_at"].as_f64().expect("the aria-booted mark");
        let paints: Vec<f64> = serde_json::from_value(after["paints"]["lcp"].clone()).unwrap();
        assert!(
            !paints.is_empty() && paints.iter().all(|t| *t < booted_at),
            "every largest-paint candidate came before the app mounted at {booted_at} ms: {paints:?}"
        );
        let shifts: Vec<f64> = serde_json::from_value(after["paints"]["shifts"].clone()).unwrap();
        assert!(
            shifts.iter().sum::<f64>() < 0.001,
            "no layout shift: {shifts:?}"
        );
        b.assert_no_console_errors().await;
        app.close().await;
    });
}

fn rects(frame: &Value) -> Vec<(String, Option<Vec<f64>>)> {
    serde_json::from_value(frame["rects"].clone()).unwrap_or_default()
}

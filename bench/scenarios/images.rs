//! A thread of images: the gateway's `--seed-images N` channel (N
//! messages, each with a distinct PNG of its own in the file store),
//! walked to its top so every page is loaded, then scrolled top to bottom
//! at a steady pace while thumbnails are read (`file.get`), shown from
//! `blob:` URLs and revoked as their rows leave. Frame rate, long tasks,
//! and the JS heap plus the bytes behind the `blob:` URLs alive.

use serde_json::json;

use super::{report_long_tasks, walk, Sizes, Urls};
use crate::page::Page;
use crate::report::{Report, Target};
use crate::support::secs;

const SCENARIO: &str = "Thread of images";
/// The channel `aria-gateway --seed-images N` creates.
pub const IMAGES_CHANNEL: &str = "c_images";
/// Scrolled per frame: a brisk read (3,600 px/s at 60 fps). About 15
/// images pass a second, more than the client reads (ten a second, so as
/// to leave the frame limit room), so some are passed before they come.
const PX_PER_FRAME: u32 = 60;
/// The run's numbers (not its element references).
const DOWN_STATE: &str = "const s = window.__bench.down; return { done: s.done, \
     timedOut: s.timedOut, started: s.started, ended: s.ended, maxRows: s.maxRows, \
     maxThumbs: s.maxThumbs, shown: Object.keys(s.shown).length, steps: s.steps };";
/// Thumbnails in the viewport, and how many of them show their decoded
/// image; the blob: URLs alive and the thumbnails mounted.
const ON_SCREEN: &str = "const scroller = document.querySelector('[data-testid=timeline]');
const box = scroller.getBoundingClientRect();
const thumbs = Array.from(scroller.querySelectorAll('[data-testid=image-thumb]'));
const visible = thumbs.filter(t => { const r = t.getBoundingClientRect(); return r.bottom > box.top && r.top < box.bottom; });
const decoded = visible.filter(t => { const i = t.querySelector(\"img[src^='blob:']\"); return i && i.complete && i.naturalWidth > 0; });
return { visible: visible.length, decoded: decoded.length, mounted: thumbs.length, urls: window.__bench.blobs.urls, bytes: window.__bench.blobs.bytes };";

/// Puts the list at its top; whether the first row is there (and the
/// list still at its top, no older page to come).
const TO_TOP: &str = "const scroller = document.querySelector('[data-testid=timeline]');
const first = !!scroller.querySelector('.row[data-seq=\"1\"]');
const done = first && scroller.scrollTop === 0;
scroller.scrollTop = 0;
return done;";

pub async fn run(page: &Page<'_>, urls: &Urls, sizes: Sizes, report: &mut Report) {
    let count = sizes.images;
    page.open(&urls.with("", &format!("#/t/{IMAGES_CHANNEL}")))
        .await;
    page.b
        .wait_for("[data-testid=timeline] [data-testid=image-thumb]", secs(30))
        .await;
    // To the top, loading every older page on the way (not measured): the
    // list is put at its top until the first image's row is there.
    page.b
        .poll("the walk up to the first image", secs(60), || async {
            let v = page.js(TO_TOP, vec![]).await;
            v.as_bool().unwrap_or(false).then_some(())
        })
        .await;
    page.settle().await;

    let run = walk(
        page,
        "the scroll down",
        "window.__bench.startScrollDown(arguments[0]);",
        json!({ "px": PX_PER_FRAME, "lastSeq": count, "timeoutMs": 120_000 }),
        DOWN_STATE,
        secs(150),
    )
    .await;
    let s = &run.state;
    let blobs = page.js("return window.__bench.blobs;", vec![]).await;
    // The images at the end come in, then the heap is read after a GC.
    let end = page
        .b
        .poll("the last screen's images shown", secs(20), || async {
            let v = page.js(ON_SCREEN, vec![]).await;
            let (visible, decoded) = (v["visible"].as_u64()?, v["decoded"].as_u64()?);
            (visible > 0 && decoded == visible).then_some(v)
        })
        .await;
    let all = page.collect(run.t0).await;
    let w = all.window(run.started, run.ended);
    let seconds = (run.ended - run.started) / 1000.0;

    report.metric(
        SCENARIO,
        format!("frame rate scrolling down through {count} images"),
        w.frames.len().saturating_sub(1) as f64 / seconds,
        "fps",
        Some(Target::AtLeast(58.0)),
    );
    report_long_tasks(report, SCENARIO, "while scrolling", &w);
    let mb = |v: Option<f64>| v.map_or(f64::NAN, |b| b / 1_000_000.0);
    let heap = mb(all.memory.js_heap_used);
    let blob_peak = mb(blobs["peakBytes"].as_f64());
    report.metric(
        SCENARIO,
        "JS heap after scrolling (after GC)",
        heap,
        "MB",
        None,
    );
    report.metric(
        SCENARIO,
        "bytes behind blob: URLs alive, most at once while scrolling",
        blob_peak,
        "MB",
        None,
    );
    report.metric(
        SCENARIO,
        "JS heap + blob: URLs' bytes (most at once)",
        heap + blob_peak,
        "MB",
        Some(Target::AtMost(150.0)),
    );
    report.check(
        SCENARIO,
        format!("the scroll reached image {count} at the end of the thread without timing out"),
        s["done"].as_bool() == Some(true) && s["timedOut"].as_bool() == Some(false),
    );
    // Each thumbnail mounted holds at most one URL; more alive would be
    // URLs of rows gone, never revoked.
    let (urls, mounted) = (end["urls"].as_u64(), end["mounted"].as_u64());
    report.check(
        SCENARIO,
        format!(
            "blob: URLs alive at the end ({}) are no more than thumbnails mounted ({})",
            end["urls"], end["mounted"]
        ),
        matches!((urls, mounted), (Some(u), Some(m)) if u <= m),
    );
    // The reads leave room in the gateway's frame limit for pages of
    // history, and one refused is asked again quietly: the person
    // scrolling is never told to slow down.
    let told = page
        .js(
            "return Array.from(document.querySelectorAll('.notice')).some(n => /slow down/i.test(n.textContent));",
            vec![],
        )
        .await;
    report.check(
        SCENARIO,
        "no notice asked to slow down (a frame refused by the rate limit)",
        told.as_bool() == Some(false),
    );
    report.note(
        SCENARIO,
        format!(
            "{PX_PER_FRAME} px per frame for {seconds:.1} s, {} frames ({:.1} ms of main-thread CPU per frame; {}); images shown on the way: {} of {count}; most rows mounted {}, thumbnails {}; blob: URLs made {}, revoked {}, most alive at once {}; file.data frames handled: {}, error frames: {}",
            w.frames.len(),
            run.main.cpu_ms / w.frames.len().max(1) as f64,
            run.main.describe(),
            s["shown"],
            s["maxRows"],
            s["maxThumbs"],
            blobs["created"],
            blobs["revoked"],
            blobs["peakUrls"],
            w.socket.iter().filter(|r| r.kind() == "file.data").count(),
            w.socket.iter().filter(|r| r.kind() == "error").count(),
        ),
    );
}

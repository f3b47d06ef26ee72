// The benchmark's in-page probe. `scripts/bench` serves a copy of the
// release build whose index.html loads this file before the app, so it sees
// everything from the first byte: the app's WebSocket handler, every
// animation frame, long tasks and the wasm memory. Nothing here ships.
//
// What it records (all times are performance.now() milliseconds):
//   socket:  [start, duration, frame type, bytes] per WebSocket message the
//            app handled (decode + store apply + scheduling, in wasm)
//   frames:  [rAF timestamp, work start, work end, grew] per animation
//            frame; work runs from the first scroll event or rAF callback of
//            the frame to a task posted from rAF, which runs once style,
//            layout and paint of that frame are done; grew is 1 when a
//            streamed answer's list of completed blocks grew in the frame
//            (the app spreads a burst of blocks over frames, which are
//            updates too whether or not a snapshot came)
//   longTasks, loafs: PerformanceObserver entries (tasks and animation
//            frames over 50 ms, the latter with script attribution)
//   marks:   first times of composer-ready, connected, history received,
//            history rows painted and a row marked as jumped to (painted)
//   firstHistoryGet: the first history.get the app sent, parsed
//   blobs:   the blob: URLs alive (created, not yet revoked) and the bytes
//            of the Blobs behind them, now and at most since reset
"use strict";
(() => {
  const now = () => performance.now();
  const LIMIT = 400000;
  const probe = {
    socket: [],
    frames: [],
    longTasks: [],
    loafs: [],
    marks: {},
    handler: null,
    ws: null,
    // The app's wasm memory and the markdown module's, once each starts.
    memories: [],
    scroll: null,
    sweep: null,
    down: null,
  };
  window.__bench = probe;

  const push = (list, item) => {
    if (list.length < LIMIT) list.push(item);
  };

  // ----- the app's WebSocket handler, timed -----
  const typeOf = (data) => {
    if (typeof data !== "string") return "binary";
    const m = /"type"\s*:\s*"([^"]+)"/.exec(data.slice(0, 80));
    return m ? m[1] : "?";
  };
  const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    enumerable: onmessage.enumerable,
    get() {
      return onmessage.get.call(this);
    },
    set(fn) {
      if (typeof fn !== "function") return onmessage.set.call(this, fn);
      probe.handler = fn;
      probe.ws = this;
      onmessage.set.call(this, function (ev) {
        const t0 = now();
        try {
          return fn.call(this, ev);
        } finally {
          const type = typeOf(ev.data);
          push(probe.socket, [t0, now() - t0, type, ev.data.length || 0]);
          if (type === "history" && probe.marks.history === undefined) probe.marks.history = t0;
        }
      });
    },
  });

  // The first history.get sent: shows whether a jump asked `around` first.
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (probe.firstHistoryGet === undefined && typeof data === "string" && typeOf(data) === "history.get") {
      try { probe.firstHistoryGet = JSON.parse(data); } catch (_) { probe.firstHistoryGet = null; }
    }
    return send.call(this, data);
  };

  // ----- the wasm instances' memory (the app's and the markdown module's; linear memory is not in the JS heap) -----
  for (const name of ["instantiateStreaming", "instantiate"]) {
    const original = WebAssembly[name];
    WebAssembly[name] = async function (...args) {
      const result = await original.apply(this, args);
      const instance = result.instance || result;
      if (instance.exports && instance.exports.memory) probe.memories.push(instance.exports.memory);
      return result;
    };
  }

  // ----- blob: URLs alive: what the page holds in Blobs behind URLs (the
  // images on screen); a revoked URL's Blob can be freed, so it no longer
  // counts -----
  const blobSizes = new Map();
  probe.blobs = { bytes: 0, peakBytes: 0, urls: 0, peakUrls: 0, created: 0, revoked: 0 };
  const createUrl = URL.createObjectURL;
  URL.createObjectURL = function (obj) {
    const url = createUrl.call(URL, obj);
    const b = probe.blobs;
    const size = obj && typeof obj.size === "number" ? obj.size : 0;
    blobSizes.set(url, size);
    b.bytes += size;
    b.urls = blobSizes.size;
    b.created += 1;
    b.peakBytes = Math.max(b.peakBytes, b.bytes);
    b.peakUrls = Math.max(b.peakUrls, b.urls);
    return url;
  };
  const revokeUrl = URL.revokeObjectURL;
  URL.revokeObjectURL = function (url) {
    const size = blobSizes.get(url);
    if (size !== undefined) {
      blobSizes.delete(url);
      probe.blobs.bytes -= size;
      probe.blobs.urls = blobSizes.size;
      probe.blobs.revoked += 1;
    }
    return revokeUrl.call(URL, url);
  };
  probe.resetBlobPeak = () => {
    probe.blobs.peakBytes = probe.blobs.bytes;
    probe.blobs.peakUrls = probe.blobs.urls;
  };

  // ----- frames -----
  const afterRender = new MessageChannel();
  let pending = null;
  let grew = false;
  probe.lastGrew = null;
  const blockLists = /(^| )md-(stable|group|chunk)( |$)/;
  new MutationObserver((records) => {
    if (records.some((r) => r.addedNodes.length && blockLists.test(r.target.className || ""))) {
      grew = true;
      probe.lastGrew = now();
    }
  }).observe(document, { childList: true, subtree: true });
  let scrollEventAt = null;
  document.addEventListener("scroll", () => {
    if (scrollEventAt === null) scrollEventAt = now();
  }, { capture: true, passive: true });
  afterRender.port1.onmessage = () => {
    if (!pending) return;
    const end = now();
    push(probe.frames, [pending.ts, pending.start, end, grew ? 1 : 0]);
    pending = null;
    grew = false;
    if (probe.marks.history !== undefined && probe.marks.historyRows === undefined &&
        document.querySelector("[data-testid=timeline] .row")) {
      probe.marks.historyRows = end;
    }
    if (probe.marks.history !== undefined && probe.marks.jumpRow === undefined &&
        document.querySelector("[data-testid=timeline] .row[aria-current=true]")) {
      probe.marks.jumpRow = end;
    }
    if (probe.scroll && !probe.scroll.done) scrollStep(probe.scroll);
    if (probe.sweep && !probe.sweep.done) sweepStep(probe.sweep);
    if (probe.down && !probe.down.done) downStep(probe.down);
  };
  const tick = (ts) => {
    requestAnimationFrame(tick);
    const start = scrollEventAt === null ? now() : scrollEventAt;
    scrollEventAt = null;
    pending = { ts, start };
    afterRender.port2.postMessage(0);
  };
  requestAnimationFrame(tick);

  // ----- long tasks and long animation frames -----
  const observe = (type, fn) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(fn)).observe({ type, buffered: true });
    } catch (_) {
      // Not supported by this browser: the list stays empty.
    }
  };
  observe("longtask", (e) => push(probe.longTasks, [e.startTime, e.duration]));
  observe("long-animation-frame", (e) => push(probe.loafs, {
    start: e.startTime,
    duration: e.duration,
    blocking: e.blockingDuration,
    render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
    styleLayout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
    scripts: (e.scripts || []).map((s) => ({
      invoker: s.invoker,
      duration: s.duration,
      forcedLayout: s.forcedStyleAndLayoutDuration,
    })),
  }));

  // ----- first times: composer usable, connected -----
  const boot = new MutationObserver(() => {
    if (probe.marks.composer === undefined &&
        document.querySelector("form[data-testid=composer] textarea")) {
      probe.marks.composer = now();
    }
    if (probe.marks.connected === undefined &&
        document.querySelector("[data-testid=conn-status][data-state=connected]")) {
      probe.marks.connected = now();
    }
    if (probe.marks.composer !== undefined && probe.marks.connected !== undefined) boot.disconnect();
  });
  boot.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-state"] });

  // ----- API for the driver -----

  // Everything recorded since `since` (ms), and the memory now.
  probe.collect = (since) => {
    const after = (list) => list.filter((x) => (Array.isArray(x) ? x[0] : x.start) >= since);
    return {
      now: now(),
      socket: after(probe.socket),
      frames: probe.frames.filter((f) => f[1] >= since),
      longTasks: after(probe.longTasks),
      loafs: after(probe.loafs),
      memory: probe.memoryNow(),
    };
  };

  // JS heap (after a full GC when the browser allows one) and wasm memory.
  probe.memoryNow = () => {
    if (typeof window.gc === "function") window.gc();
    const m = performance.memory;
    return {
      jsHeapUsed: m ? m.usedJSHeapSize : null,
      jsHeapTotal: m ? m.totalJSHeapSize : null,
      wasm: probe.memories.length ? probe.memories.reduce((sum, m) => sum + m.buffer.byteLength, 0) : null,
      domNodes: document.getElementsByTagName("*").length,
    };
  };

  // Feeds `frames` (JSON texts) to the app's own socket handler `reps`
  // times, in tasks of at most `batch` frames; resolves to the time spent
  // inside the handler. Measures decode + apply without the network.
  probe.replay = async (frames, reps, batch) => {
    if (!probe.handler) throw new Error("the app has no WebSocket handler yet");
    const events = frames.map((data) => new MessageEvent("message", { data }));
    let busy = 0;
    let count = 0;
    for (let r = 0; r < reps; ) {
      const t0 = now();
      for (let i = 0; i < batch && r < reps; i++, r++) {
        for (const ev of events) probe.handler.call(probe.ws, ev);
        count += events.length;
      }
      busy += now() - t0;
      // Let the app render between batches, as it would between messages.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return { frames: count, ms: busy };
  };

  // Feeds the frames queued in `probe.queued` to the app's socket handler,
  // `perTask` to a task, each group in a task of its own as a socket
  // delivers them (a message posted to itself: no timer clamping), and
  // resolves once all went through.
  probe.queued = [];
  probe.burst = async (perTask) => {
    if (!probe.handler) throw new Error("the app has no WebSocket handler yet");
    const frames = probe.queued;
    probe.queued = [];
    const channel = new MessageChannel();
    const nextTask = () =>
      new Promise((resolve) => {
        channel.port1.onmessage = resolve;
        channel.port2.postMessage(0);
      });
    for (let i = 0; i < frames.length; i += perTask) {
      for (const data of frames.slice(i, i + perTask)) {
        probe.handler.call(probe.ws, new MessageEvent("message", { data }));
      }
      await nextTask();
    }
    return frames.length;
  };

  // What every timed walk of the timeline keeps: when it started and
  // ended, whether its time ran out, its steps and the most rows mounted.
  const walk = (timeoutMs) => ({
    deadline: now() + timeoutMs,
    started: now(),
    ended: null,
    done: false,
    timedOut: false,
    steps: 0,
    maxRows: 0,
    rows: null,
  });
  // Counts the rows mounted (a live collection, read once).
  const countRows = (s, scroller) => {
    s.rows = s.rows || scroller.getElementsByClassName("row");
    s.maxRows = Math.max(s.maxRows, s.rows.length);
  };
  // Ends walk `s` when it `arrived` or its time is up; says whether it ended.
  const ended = (s, arrived) => {
    const late = now() > s.deadline;
    if (!arrived && !late) return false;
    s.done = true;
    s.timedOut = late;
    s.ended = now();
    return true;
  };

  // Scrolls the timeline up by `px` per frame until the topmost visible row
  // is `items` seqs above `newestSeq` (or `timeoutMs` passes). Each frame,
  // checks that the row that was at the top moved by exactly the scrolled
  // distance (reading-position drift), and counts mounted rows.
  probe.startScroll = (opts) => {
    probe.scroll = {
      ...walk(opts.timeoutMs),
      px: opts.px,
      items: opts.items,
      newestSeq: opts.newestSeq,
      maxDrift: 0,
      driftFrames: 0,
      lostAnchor: 0,
      topSeq: null,
      anchor: null,
    };
  };

  const scrollStep = (s) => {
    const scroller = document.querySelector("[data-testid=timeline]");
    if (!scroller) return;
    // Kept cheap (a hit test, a few rects): it runs between frames and would
    // otherwise slow down the very scrolling it measures.
    countRows(s, scroller);
    const box = scroller.getBoundingClientRect();
    const top = box.top;
    if (s.anchor) {
      if (s.anchor.el.isConnected) {
        const drift = Math.abs(s.anchor.el.getBoundingClientRect().top - top - s.anchor.expected);
        s.maxDrift = Math.max(s.maxDrift, drift);
        if (drift > 1) s.driftFrames += 1;
      } else {
        s.lostAnchor += 1;
      }
    }
    // The row at the top of the screen: the element just inside its top edge.
    const hit = document.elementFromPoint(box.left + box.width / 2, top + 2);
    let first = hit && hit.closest(".row");
    if (!first || !scroller.contains(first)) {
      first = Array.from(s.rows).find((row) => {
        const r = row.getBoundingClientRect();
        return r.bottom > top + 1 && r.top < top + scroller.clientHeight && r.height > 0;
      });
    }
    if (!first) return;
    const firstTop = first.getBoundingClientRect().top - top;
    const seq = Number(first.dataset.seq);
    if (Number.isFinite(seq)) s.topSeq = s.topSeq === null ? seq : Math.min(s.topSeq, seq);
    if (ended(s, s.topSeq !== null && s.newestSeq - s.topSeq >= s.items)) return;
    const before = scroller.scrollTop;
    scroller.scrollTop = before - s.px;
    const after = scroller.scrollTop;
    s.steps += 1;
    s.anchor = { el: first, expected: firstTop + (before - after) };
  };

  // Walks the open thread from the bottom to the top, a screen per frame,
  // noting every tool card it sees by row key: with a virtualized list
  // that is the only way to look at all of them.
  probe.startSweep = () => {
    const scroller = document.querySelector("[data-testid=timeline]");
    scroller.scrollTop = scroller.scrollHeight;
    probe.sweep = { cards: {}, rows: 0, done: false, stillAtTop: 0 };
  };

  const sweepStep = (s) => {
    const scroller = document.querySelector("[data-testid=timeline]");
    if (!scroller) return;
    for (const row of scroller.querySelectorAll(".row")) {
      const card = row.querySelector(".tool-card");
      if (card) s.cards[row.dataset.key] = card.dataset.state;
    }
    s.rows = Math.max(s.rows, scroller.querySelectorAll(".row").length);
    if (scroller.scrollTop <= 0) {
      // Wait a few frames at the top for older pages before stopping.
      s.stillAtTop += 1;
      if (s.stillAtTop > 30) s.done = true;
    } else {
      s.stillAtTop = 0;
    }
    scroller.scrollTop -= scroller.clientHeight * 0.8;
  };
  // Scrolls the timeline down by `px` per frame until the row of
  // `lastSeq` is mounted and the list is at its end (or `timeoutMs`
  // passes). Each frame counts mounted rows and thumbnails, and notes the
  // rows whose image was shown (a blob: URL in its <img>).
  probe.startScrollDown = (opts) => {
    probe.resetBlobPeak();
    probe.down = {
      ...walk(opts.timeoutMs),
      px: opts.px,
      lastSeq: opts.lastSeq,
      maxThumbs: 0,
      shown: {},
    };
  };

  const downStep = (s) => {
    const scroller = document.querySelector("[data-testid=timeline]");
    if (!scroller) return;
    countRows(s, scroller);
    const thumbs = scroller.querySelectorAll("[data-testid=image-thumb]");
    s.maxThumbs = Math.max(s.maxThumbs, thumbs.length);
    for (const img of scroller.querySelectorAll("[data-testid=image-thumb] img[src^='blob:']")) {
      const row = img.closest(".row");
      if (row) s.shown[row.dataset.seq] = true;
    }
    const atEnd = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1;
    const last = scroller.querySelector(`.row[data-seq="${s.lastSeq}"]`);
    if (ended(s, atEnd && last)) return;
    scroller.scrollTop += s.px;
    s.steps += 1;
  };
})();

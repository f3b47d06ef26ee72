// The peer bench's in-page helper (bench/peer/), added to every page of
// both clients before their own scripts, next to bench/probe.js:
//   watch:  name → CSS selector; marks[name] is the performance.now() of the
//           first animation frame in which the selector matches
//   toTop:  every frame, scrolls `scroller` to its top until `first`
//           (the thread's first message) is in the DOM and the scroller
//           is at the top, or until the deadline
"use strict";
(() => {
  if (window.__peer) return;
  const peer = { marks: {}, watch: Object.assign({}, window.__peerWatch), top: null };
  window.__peer = peer;
  const tick = () => {
    requestAnimationFrame(tick);
    const t = performance.now();
    for (const name of Object.keys(peer.watch)) {
      if (peer.marks[name] === undefined && document.querySelector(peer.watch[name])) {
        peer.marks[name] = t;
      }
    }
    const top = peer.top;
    if (top && !top.done) {
      const el = document.querySelector(top.scroller);
      if (el && el.scrollTop <= 0 && document.querySelector(top.first)) {
        top.done = true;
        top.ended = t;
      } else if (t > top.deadline) {
        top.done = true;
        top.timedOut = true;
        top.ended = t;
      } else if (el) {
        el.scrollTop = 0;
        top.steps += 1;
      }
    }
  };
  requestAnimationFrame(tick);
  peer.toTop = (scroller, first, ms) => {
    const t = performance.now();
    peer.top = { scroller, first, started: t, deadline: t + ms, ended: null, done: false, timedOut: false, steps: 0 };
  };
})();

// Starts the wasm app. It lives in a file of its own, instead of the inline
// module Trunk would inject, so that the CSP needs no 'unsafe-inline'.
// Trunk fills in the hashed file names through `pattern_script` in Trunk.toml.

// Content-Security-Policy violations, kept from the first script on so the
// diagnostics (and the test suite) can tell the app runs clean under it.
window.__ariaCspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__ariaCspViolations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI || "(inline)"} at ${e.sourceFile || "?"}:${e.lineNumber}`,
  );
});

// The app could not start: say so in place of the static frame.
const fail = (err) => {
  const note = document.createElement("p");
  note.className = "boot-error";
  note.textContent = "aria could not start: " + err;
  document.getElementById("aria-shell")?.remove();
  document.body.append(note);
};
// The app mounts in a task after `init` (src/main.rs) and marks the page
// `data-booted` once it has; an error before that is a failed start.
window.addEventListener("error", (e) => {
  if (document.documentElement.dataset.booted !== "true") fail(e.message);
});

// The app's wasm comes in two parts (scripts/split-wasm): the first load,
// with what starting the app and showing a thread's history run, and the
// deferred part, with the rest (turns, settings, search, export, …),
// fetched and linked here once the app has started. A call into the
// deferred part before that reaches a placeholder (the glue's
// `placeholder` imports), which loads it there and then, with a
// synchronous request (the call cannot wait), and makes the call. Linking
// it replaces every placeholder in the function table, so each call after
// that goes straight to its function.
const tag = document.getElementById("aria-boot");
const deferred = {
  url: tag.dataset.deferred, // none in a build that is not split (debug)
  exports: null, // () => the first part's exports
  state: "waiting", // then "linked", or "failed" if the fetch after start failed
  placeholderCalls: 0,
  syncLoads: 0,
  linkedAt: null, // ms since navigation start
  onLinked: [], // what `whenLinked` was given before the link
};
const link = (module) => {
  if (deferred.state === "linked") return;
  new WebAssembly.Instance(module, { primary: deferred.exports() });
  deferred.state = "linked";
  deferred.linkedAt = performance.now();
  // After the current call, which may be the app's own (a placeholder's load).
  for (const f of deferred.onLinked.splice(0)) queueMicrotask(f);
};
const loadNow = () => {
  deferred.syncLoads++;
  const request = new XMLHttpRequest();
  request.open("GET", deferred.url, false);
  // A synchronous request has no arraybuffer response: bytes as text.
  request.overrideMimeType("text/plain; charset=x-user-defined");
  request.send();
  if (request.status !== 200) throw new Error(`the app's deferred part: HTTP ${request.status}`);
  const text = request.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  link(new WebAssembly.Module(bytes));
};
window.__ariaDeferred = {
  placeholders(exports) {
    deferred.exports = exports;
    return new Proxy({}, {
      get: (_, index) => (...args) => {
        deferred.placeholderCalls++;
        if (deferred.state !== "linked") {
          try {
            loadNow();
          } catch (err) {
            fail(`a part of the app could not be loaded (${err.message}); reload the page`);
            throw err;
          }
        }
        return deferred.exports()["%table"].get(Number(index))(...args);
      },
    });
  },
  // Runs `f` once the deferred part is linked (soon, if it is), so that
  // its code runs without being loaded there and then: never in a build
  // that is not split, nor once its fetch has failed
  // (src/ui/browser/boot.rs, `when_deferred_linked`).
  whenLinked(f) {
    if (deferred.state === "linked") queueMicrotask(f);
    else if (deferred.url && deferred.state === "waiting") deferred.onLinked.push(f);
  },
  // For the tests and the bench: where the deferred part stands. Defined
  // before the wait for the first paint, so it is there once the page has
  // loaded (a module's top-level await does not hold up the load event).
  status: () => ({
    state: deferred.state,
    placeholderCalls: deferred.placeholderCalls,
    syncLoads: deferred.syncLoads,
    linkedAt: deferred.linkedAt,
  }),
};

// The JS and the wasm are fetched once the static frame (index.html) is on
// screen, its first contentful paint reported (Trunk's preload links are
// off, Trunk.toml): the first paint's CSS has the link to itself, and
// Lighthouse's simulated largest paint does not wait for the wasm. A hidden
// page paints nothing, and a browser without paint timing reports nothing:
// both start at once.
await new Promise((go) => {
  const painted = () => performance.getEntriesByName("first-contentful-paint").length > 0;
  const reported = PerformanceObserver.supportedEntryTypes?.includes("paint");
  if (document.visibilityState === "hidden" || !reported || painted()) return go();
  new PerformanceObserver(go).observe({ type: "paint" });
  document.addEventListener("visibilitychange", go, { once: true });
  setTimeout(go, 3000);
});

// The wasm's fetch starts with the JS's, not after it has loaded: the
// larger download is not queued behind the smaller one.
const wasm = fetch(tag.dataset.wasm);
wasm.catch(() => {}); // reported by `init` below, or moot if the import failed
try {
  const { default: init } = await import(tag.dataset.js);
  await init({ module_or_path: wasm });
} catch (err) {
  fail(err);
  throw err;
}

if (deferred.url) {
  WebAssembly.compileStreaming(fetch(deferred.url))
    .then(link)
    .catch((err) => {
      // A later call loads it itself (the placeholders).
      if (deferred.state !== "linked") deferred.state = "failed";
      console.warn("the app's deferred part:", err);
    });
}

// The markdown module (the parser and sanitizer, a wasm module of their own
// in md/, named in index.html by the build) once the app has started, not
// in its first load: markdown shows as text until its exports are in
// `window.__ariaMarkdown` (null if it could not be loaded), announced by an
// `aria-markdown` event (src/ui/browser/markdown_module.rs).
const markdown = document.querySelector('meta[name="aria-markdown"]');
try {
  if (!markdown?.content) throw new Error("index.html names no markdown module");
  const module = await import(new URL(markdown.content, import.meta.url).href);
  await module.default({ module_or_path: new URL(markdown.dataset.wasm, import.meta.url) });
  window.__ariaMarkdown = module;
} catch (err) {
  console.warn("markdown module:", err);
  window.__ariaMarkdown = null;
}
window.dispatchEvent(new Event("aria-markdown"));

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
const tag = document.getElementById("aria-boot");
const wasm = fetch(tag.dataset.wasm);
wasm.catch(() => {}); // reported by `init` below, or moot if the import failed
try {
  const { default: init } = await import(tag.dataset.js);
  await init({ module_or_path: wasm });
} catch (err) {
  fail(err);
  throw err;
}

// The markdown module (the parser and sanitizer, a wasm module of their own
// in md/, named in index.html by the build) once the app has started, not
// in its first load: markdown shows as text until its exports are in
// `window.__ariaMarkdown` (null if it could not be loaded), announced by an
// `aria-markdown` event (src/ui/markdown_module.rs).
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

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

const tag = document.getElementById("aria-boot");
try {
  const { default: init } = await import(tag.dataset.js);
  await init({ module_or_path: tag.dataset.wasm });
  document.documentElement.dataset.booted = "true";
} catch (err) {
  const note = document.createElement("p");
  note.className = "boot-error";
  note.textContent = "aria could not start: " + err;
  document.body.append(note);
  throw err;
}

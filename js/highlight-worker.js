// The code highlighter's Web Worker, started at idle once the app runs
// or by the first complete code block (src/ui/browser/code_highlight.rs). highlight.js tokenizes here, off the
// main thread, and only tokens go back, never highlight.js's own HTML: each
// token's scope (joined by newlines) and its length, and the client cuts
// the text it sent itself: one string and one array cross to the main
// thread. hl/highlight.js is highlight.js's core plus the grammars the
// client names, bundled at build time by scripts/bundle-highlighter.
"use strict";
importScripts("highlight.js");

onmessage = function (event) {
  var id = event.data[0];
  var scopes = [];
  var lengths = [];
  try {
    var result = hljs.highlight(event.data[2], { language: event.data[1], ignoreIllegals: true });
    walk(result._emitter.root, "", scopes, lengths);
  } catch (e) {
    postMessage([id, null, null]);
    return;
  }
  var sizes = Uint32Array.from(lengths);
  postMessage([id, scopes.join("\n"), sizes], [sizes.buffer]);
};

// Each text gets its innermost scope; neighbours with one scope merge.
function walk(node, scope, scopes, lengths) {
  if (typeof node === "string") {
    var n = scopes.length;
    if (n > 0 && scopes[n - 1] === scope) {
      lengths[n - 1] += node.length;
    } else {
      scopes.push(scope);
      lengths.push(node.length);
    }
    return;
  }
  var own = node.scope && node.scope.indexOf("language:") !== 0 ? node.scope : scope;
  for (var i = 0; i < node.children.length; i++) {
    walk(node.children[i], own, scopes, lengths);
  }
}

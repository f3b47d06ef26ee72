// The code highlighter's Web Worker, started on the first complete code
// block (src/ui/code_highlight.rs). highlight.js tokenizes here, off the
// main thread, and only a flat [scope, text, scope, text, …] list goes back:
// never highlight.js's own HTML. hl/highlight.js is highlight.js's core plus
// the grammars the client names, bundled at build time by
// scripts/bundle-highlighter.
"use strict";
importScripts("highlight.js");

onmessage = function (event) {
  var id = event.data[0];
  var tokens = null;
  try {
    var result = hljs.highlight(event.data[2], { language: event.data[1], ignoreIllegals: true });
    tokens = [];
    walk(result._emitter.root, "", tokens);
  } catch (e) {
    tokens = null;
  }
  postMessage([id, tokens]);
};

// Each text gets its innermost scope; neighbours with one scope merge.
function walk(node, scope, out) {
  if (typeof node === "string") {
    var n = out.length;
    if (n > 0 && out[n - 2] === scope) {
      out[n - 1] += node;
    } else {
      out.push(scope, node);
    }
    return;
  }
  var own = node.scope && node.scope.indexOf("language:") !== 0 ? node.scope : scope;
  for (var i = 0; i < node.children.length; i++) {
    walk(node.children[i], own, out);
  }
}

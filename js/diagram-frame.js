// The diagram renderer's script (js/diagram-frame.html, built into
// dist/mm/ by scripts/bundle-mermaid). The app (src/ui/diagrams.rs) posts
// `[id, source, theme, maxSvgChars]`; this answers
// `[id, svg, null, title, description]` or `[id, null, error]`, one diagram
// at a time, in order. The SVG goes back as XML text (XMLSerializer, so the
// HTML of labels is well-formed as an image needs it), sized by its
// viewBox; the app never puts it into its own DOM.
"use strict";

var queue = [];
var busy = false;
var count = 0;

onmessage = function (event) {
  if (event.source !== parent || !Array.isArray(event.data)) return;
  queue.push(event.data);
  next();
};

function next() {
  if (busy || queue.length === 0) return;
  busy = true;
  var job = queue.shift();
  draw(job[1], job[2], job[3]).then(
    function (answer) {
      parent.postMessage([job[0]].concat(answer), "*");
    },
    function (error) {
      parent.postMessage([job[0], null, message(error)], "*");
    },
  ).then(function () {
    busy = false;
    next();
  });
}

async function draw(source, theme, maxSvgChars) {
  mermaid.initialize({
    startOnLoad: false,
    // No clicks, no HTML in labels beyond Mermaid's sanitized subset;
    // directives in a diagram cannot change it (Mermaid's `secure` keys).
    securityLevel: "strict",
    theme: theme === "dark" ? "dark" : "default",
    maxTextSize: source.length + 1,
    suppressErrorRendering: true,
  });
  await mermaid.parse(source);
  count += 1;
  var result = await mermaid.render("diagram-" + count, source);
  var holder = document.createElement("div");
  holder.innerHTML = result.svg;
  var svg = holder.querySelector("svg");
  if (!svg) throw new Error("Mermaid made no SVG");
  size(svg);
  var title = svg.querySelector(":scope > title");
  var desc = svg.querySelector(":scope > desc");
  var xml = new XMLSerializer().serializeToString(svg);
  if (xml.length > maxSvgChars) {
    throw new Error("the drawing is too large (" + xml.length + " characters of SVG)");
  }
  return [xml, null, title ? title.textContent : null, desc ? desc.textContent : null];
}

// Mermaid sizes its SVG to its container (width 100%, a max-width style);
// an image needs its own size, which the viewBox gives.
function size(svg) {
  var box = (svg.getAttribute("viewBox") || "").trim().split(/[\s,]+/).map(Number);
  if (box.length === 4 && box[2] > 0 && box[3] > 0) {
    svg.setAttribute("width", String(Math.ceil(box[2])));
    svg.setAttribute("height", String(Math.ceil(box[3])));
    svg.style.removeProperty("max-width");
  }
}

function message(error) {
  var text = error && (error.message || error.str) ? error.message || error.str : String(error);
  return text.slice(0, 2000);
}

parent.postMessage(["ready"], "*");

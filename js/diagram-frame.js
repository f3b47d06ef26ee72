// The diagram renderer's script (js/diagram-frame.html, built into
// dist/mm/ by scripts/bundle-mermaid). The app
// (src/ui/browser/diagram_frame.rs) posts `[id, source, theme,
// maxSvgChars]`; this answers, one diagram at a time, in order,
// `[id, null, null, title, description, png, density]` (the drawing as a
// PNG, transferred), or `[id, svg, null, title, description]` when it
// cannot be rasterized, or `[id, null, error]`. The app shows either only
// as an image and never puts the SVG into its own DOM.
//
// PNG first: an SVG image is parsed and laid out on the page's main
// thread when shown (a 200-node flowchart took 80 ms there), a PNG is
// decoded off it. It is drawn here at the screen's density (at most 2x,
// and at most MAX_PIXELS).
"use strict";

var MAX_PIXELS = 16e6;
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
      var png = answer[4];
      parent.postMessage([job[0]].concat(answer), "*", png ? [png] : []);
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
    // Labels as SVG text, not HTML in <foreignObject>: a canvas that draws
    // HTML is tainted and cannot be read back as a PNG.
    htmlLabels: false,
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
  title = title ? title.textContent : null;
  desc = desc ? desc.textContent : null;
  var raster = await rasterize(xml, svg);
  if (raster) return [null, null, title, desc, raster[0], raster[1]];
  return [xml, null, title, desc];
}

// The SVG drawn into a canvas, as PNG bytes and their density; null when
// the browser will not (an SVG it considers unsafe taints the canvas).
async function rasterize(xml, svg) {
  var w = Number(svg.getAttribute("width"));
  var h = Number(svg.getAttribute("height"));
  if (!(w > 0 && h > 0)) return null;
  var density = Math.min(Math.max(devicePixelRatio || 1, 1), 2, Math.sqrt(MAX_PIXELS / (w * h)));
  var url = URL.createObjectURL(new Blob([xml], { type: "image/svg+xml" }));
  try {
    var img = new Image();
    img.src = url;
    await img.decode();
    var canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(w * density));
    canvas.height = Math.max(1, Math.round(h * density));
    canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
    var blob = await new Promise(function (done) {
      canvas.toBlob(done, "image/png");
    });
    return blob ? [await blob.arrayBuffer(), canvas.width / w] : null;
  } catch (e) {
    return null;
  } finally {
    URL.revokeObjectURL(url);
  }
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

// Binaryen's wasm-split as the build runs it (scripts/split-wasm,
// scripts/split-profile): Debian's 108, unpacked into tools/ by
// scripts/setup, told the features rustc's wasm32 target emits, and with
// its table exports put right afterwards.

"use strict";
const { execFileSync } = require("child_process");
const fs = require("fs");
const path = require("path");
const wasmBinary = require("./wasm-binary");

const WASM_SPLIT = path.join(__dirname, "..", "..", "tools", "binaryen-deb", "usr", "bin", "wasm-split");
const FEATURES = [
  "--enable-bulk-memory",
  "--enable-mutable-globals",
  "--enable-multivalue",
  "--enable-nontrapping-float-to-int",
  "--enable-reference-types",
  "--enable-sign-ext",
];
const FUNCREF = 0x70;

// Runs wasm-split with `args`; its own messages go to stderr.
function wasmSplit(args) {
  if (!fs.existsSync(WASM_SPLIT)) throw new Error(`no ${WASM_SPLIT}: run scripts/setup`);
  execFileSync(WASM_SPLIT, [...FEATURES, ...args], { stdio: ["ignore", "ignore", "inherit"] });
}

// Binaryen 108 writes every table export as table 0. Points each table
// export of `output` (bytes, patched in place) back at the table of the
// type that export had in `input`; an export `input` did not have must be
// one of `added` (the function table wasm-split shares with the deferred
// part), a function table.
function fixTableExports(input, output, added = []) {
  const before = wasmBinary.tableExportTypes(input);
  wasmBinary.retargetTableExports(output, (name) => {
    if (before.has(name)) return before.get(name);
    if (added.includes(name)) return FUNCREF;
    throw new Error(`wasm-split added an unexpected table export ${name}`);
  });
}

module.exports = { wasmSplit, fixTableExports, FUNCREF };

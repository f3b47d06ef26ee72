// Reads (and patches in place) the few parts of a wasm binary that the
// build's splitting step needs: the tables' types, the table exports and
// the defined functions' names from the name section. Used by
// scripts/split-wasm and scripts/split-profile; no dependencies.

"use strict";

const SECTION = { custom: 0, import: 2, table: 4, export: 7, code: 10 };
const KIND = { func: 0, table: 1, memory: 2, global: 3, tag: 4 };

// One pass over the sections, collecting what the callers ask about.
function read(bytes) {
  if (bytes.readUInt32LE(0) !== 0x6d736100) throw new Error("not a wasm module");
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const name = () => {
    const len = leb();
    const text = bytes.toString("utf8", at, at + len);
    at += len;
    return text;
  };
  const limits = () => {
    const flags = leb();
    leb();
    if (flags & 1) leb();
  };
  const out = { importedFuncs: 0, tableTypes: [], tableExports: [], functionCount: 0, names: new Map() };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === SECTION.import) {
      for (let n = leb(); n > 0; n--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === KIND.func) {
          out.importedFuncs++;
          leb();
        } else if (kind === KIND.table) {
          out.tableTypes.push(bytes[at++]);
          limits();
        } else if (kind === KIND.memory) {
          limits();
        } else if (kind === KIND.global) {
          at += 2;
        } else if (kind === KIND.tag) {
          at++;
          leb();
        }
      }
    } else if (id === SECTION.table) {
      for (let n = leb(); n > 0; n--) {
        out.tableTypes.push(bytes[at++]);
        limits();
      }
    } else if (id === SECTION.export) {
      for (let n = leb(); n > 0; n--) {
        const exported = name();
        const kind = bytes[at++];
        const indexAt = at;
        const index = leb();
        if (kind === KIND.table) out.tableExports.push({ name: exported, index, indexAt, indexLen: at - indexAt });
      }
    } else if (id === SECTION.code) {
      out.functionCount = leb();
    } else if (id === SECTION.custom && name() === "name") {
      while (at < end) {
        const sub = bytes[at++];
        const subEnd = leb() + at;
        if (sub === 1) {
          for (let n = leb(); n > 0; n--) {
            const index = leb();
            out.names.set(index, name());
          }
        }
        at = subEnd;
      }
    }
    at = end;
  }
  return out;
}

// The names of the defined functions, in their order (the order of a
// wasm-split profile); a function without a name gets "".
function definedFunctionNames(bytes) {
  const module = read(bytes);
  const names = [];
  for (let i = 0; i < module.functionCount; i++) names.push(module.names.get(module.importedFuncs + i) ?? "");
  return names;
}

// The type (0x70 funcref, 0x6f externref) of the table each export names.
function tableExportTypes(bytes) {
  const module = read(bytes);
  return new Map(module.tableExports.map((e) => [e.name, module.tableTypes[e.index]]));
}

// Points each table export at the one table of the type `typeOf(name)`
// says, in place. (Debian's binaryen 108 writes every table export as
// table 0.)
function retargetTableExports(bytes, typeOf) {
  const module = read(bytes);
  for (const e of module.tableExports) {
    const type = typeOf(e.name);
    const matching = module.tableTypes.flatMap((t, i) => (t === type ? [i] : []));
    if (matching.length !== 1) throw new Error(`table export ${e.name}: ${matching.length} tables of type 0x${type?.toString(16)}`);
    if (e.indexLen !== 1 || matching[0] > 0x7f) throw new Error(`table export ${e.name}: index not one byte`);
    bytes[e.indexAt] = matching[0];
  }
}

module.exports = { definedFunctionNames, tableExportTypes, retargetTableExports };

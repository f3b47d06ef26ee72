// The SHA-256 of a file to upload, off the main thread
// (src/ui/browser/digest.rs). SubtleCrypto's digest copies its input on
// the thread that calls it: about 30 ms for 20 MiB, a long task on the
// page's thread, nothing here. Takes a Blob; answers its lowercase hex
// digest, or null where this worker has no SubtleCrypto (a page that is
// not a secure context) or the file cannot be read.
"use strict";

onmessage = async function (event) {
  try {
    if (!self.crypto || !self.crypto.subtle) throw new Error("no SubtleCrypto");
    var bytes = await event.data.arrayBuffer();
    var digest = new Uint8Array(await self.crypto.subtle.digest("SHA-256", bytes));
    var hex = "";
    for (var i = 0; i < digest.length; i++) hex += (digest[i] < 16 ? "0" : "") + digest[i].toString(16);
    postMessage(hex);
  } catch (e) {
    postMessage(null);
  }
};

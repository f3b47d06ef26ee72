// aria's service worker: the app shell offline, one build at a time.
// scripts/precache writes dist/sw.js as two constants followed by this file:
//   BUILD     a hash of the build's shell files (names and bytes)
//   PRECACHE  those files, relative to the scope: index.html, boot.js, the
//             hashed wasm/js/css (the markdown module's md/ too), the
//             manifest and the icons
//
// Seams (docs/build.md, "The service worker"):
// - Only the listed files are ever cached, all at install, in the cache
//   `aria-shell-<BUILD>`; nothing fetched at run time is stored. So /ws,
//   the gateway's other endpoints, `?gateway=` addresses and tokens (which
//   live in the URL's hash or in messages, never in these requests) never
//   reach a cache. Threads kept for offline reading are the app's own
//   business (IndexedDB), not this worker's.
// - A navigation inside the scope gets index.html from the server when it
//   answers (so a deploy is the next load's build), else this build's
//   cached copy (its query, e.g. `?gateway=`, is read by the app, not
//   here). Either way the page and its hashed assets come from one build:
//   a new index.html names new hashed files, which are not in this cache
//   and so come from the server too.
// - A new build is a new sw.js (BUILD changes): it installs its own cache,
//   takes over at once (skipWaiting + claim) and deletes the older shells;
//   the page open at that moment keeps the files it already loaded. The
//   new build's first load says "Updated to a new version".

const CACHE = `aria-shell-${BUILD}`;
const SCOPE = new URL(self.registration.scope);
const LISTED = new Set(PRECACHE.map((path) => new URL(path, SCOPE).pathname));
const INDEX = new URL("index.html", SCOPE).href;
// A content hash in a file name: `aria-web-<hex>_bg.wasm`. Trunk writes its
// 64-bit hash without leading zeros (12 to 16 digits, as the gateway's
// `is_hashed` reads them).
const HASHED = /-[0-9a-f]{12,16}(_bg)?\.[a-z]+$/;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // `no-cache`: revalidate with the server, never the HTTP cache's copy
      // of a file that may belong to an older build.
      await cache.addAll(PRECACHE.map((path) => new Request(new URL(path, SCOPE), { cache: "no-cache" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("aria-shell-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin) return;
  if (request.mode === "navigate") {
    if (url.pathname === SCOPE.pathname || url.pathname === new URL(INDEX).pathname) {
      event.respondWith(networkOrCached(request));
    }
    return;
  }
  // Anything not in the shell goes to the network untouched. A hashed
  // file never changes, so its cached copy is it; an unhashed one
  // (boot.js, the manifest, icons) may be a newer build's, like index.html.
  if (LISTED.has(url.pathname) && url.search === "") {
    event.respondWith(HASHED.test(url.pathname) ? cachedOrNetwork(request) : networkOrCached(request, request));
  }
});

// The server's answer, or (unreachable, or an error page) this build's
// cached copy of `key`.
async function networkOrCached(request, key = INDEX) {
  try {
    const fresh = await fetch(request);
    if (fresh.ok) return fresh;
  } catch (_) {
    // Offline or the server is down: the cached shell below.
  }
  const cache = await caches.open(CACHE);
  return (await cache.match(key, { ignoreVary: true })) || Response.error();
}

async function cachedOrNetwork(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request, { ignoreVary: true });
  return hit || fetch(request);
}

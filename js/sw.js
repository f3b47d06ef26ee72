// aria's service worker: the app shell offline, one build at a time.
// scripts/precache writes dist/sw.js as two constants followed by this file:
//   BUILD     a hash of the build's shell files (names and bytes)
//   PRECACHE  those files, relative to the scope: index.html, boot.js, the
//             hashed wasm/js/css, the manifest and the icons
//
// Seams (docs/architecture.md "Installable, offline shell"):
// - Only the listed files are ever cached, all at install, in the cache
//   `aria-shell-<BUILD>`; nothing fetched at run time is stored. So /ws,
//   the gateway's other endpoints, `?gateway=` addresses and tokens (which
//   live in the URL's hash or in messages, never in these requests) never
//   reach a cache. Threads kept for offline reading are the app's own
//   business (IndexedDB), not this worker's.
// - A navigation inside the scope gets the cached index.html of this
//   build (its query, e.g. `?gateway=`, is read by the app, not here), so
//   the page and its hashed assets always come from the same build.
// - A new build is a new sw.js (BUILD changes): it installs its own cache,
//   takes over at once (skipWaiting + claim) and deletes the older shells;
//   the page open at that moment keeps the files it already loaded, and the
//   next load is the new build, which then says "Updated to a new version".

const CACHE = `aria-shell-${BUILD}`;
const SCOPE = new URL(self.registration.scope);
const LISTED = new Set(PRECACHE.map((path) => new URL(path, SCOPE).pathname));
const INDEX = new URL("index.html", SCOPE).href;

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
      event.respondWith(cachedOrNetwork(INDEX, request));
    }
    return;
  }
  // Anything not in the shell goes to the network untouched.
  if (LISTED.has(url.pathname) && url.search === "") {
    event.respondWith(cachedOrNetwork(request, request));
  }
});

async function cachedOrNetwork(key, request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key, { ignoreVary: true });
  return hit || fetch(request);
}

// ticklab's service worker: keeps the page working offline (network first, cache as a
// fallback) and, when the page is opened with ?isolate, adds the COOP and COEP headers a
// static host cannot, so the page becomes cross-origin isolated.
const CACHE = "ticklab-v3";
// Everything the page needs, cached when the worker installs: the visit that installs it
// fetched these before the worker could see them, and the next one may be offline. The one
// list of the site's files: `cargo xtask web` assembles and weighs the site from it.
const SITE = [
  "./",
  "index.html",
  "www/style.css",
  "www/app.js",
  "www/page.js",
  "www/headline.js",
  "www/pkg/ticklab_first.js",
  "www/pkg/ticklab_first_bg.wasm",
  "www/lab.js",
  "www/lab-state.js",
  "www/compare.js",
  "www/explore.js",
  "www/worker.js",
  "www/counter.js",
  "www/implicit.js",
  "www/counting.js",
  "www/audio-clock.js",
  "www/js-reads.js",
  "www/pkg/ticklab_www.js",
  "www/pkg/ticklab_www_bg.wasm",
];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SITE)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function isolated(response) {
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

function wantsIsolation(req, url) {
  // Documents opt in with ?isolate; a worker's script follows the page that starts it.
  if (req.mode === "navigate") return url.searchParams.has("isolate");
  if (req.destination === "worker" && req.referrer) {
    try {
      return new URL(req.referrer).searchParams.has("isolate");
    } catch {
      return false;
    }
  }
  return false;
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  // A class's posts and live stream go to its server as they are.
  if (req.method !== "GET" || url.origin !== self.location.origin || url.pathname.includes("/class/")) return;
  const isolate = wantsIsolation(req, url);
  event.respondWith(
    (async () => {
      let response;
      try {
        response = await fetch(req);
        if (response.ok && response.type === "basic") {
          const copy = response.clone();
          caches.open(CACHE).then((c) => c.put(req, copy)).catch(() => {});
        }
      } catch (err) {
        response = await caches.match(req, { ignoreSearch: true });
        if (!response) throw err;
      }
      return isolate ? isolated(response) : response;
    })(),
  );
});

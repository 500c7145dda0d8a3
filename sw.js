// ticklab's service worker: keeps the page working offline (network first, cache as a
// fallback) and, when the page is opened with ?isolate, adds the COOP and COEP headers a
// static host cannot, so the page becomes cross-origin isolated.
const CACHE = "ticklab-v1";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

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
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  const isolate = wantsIsolation(req, url);
  // Firefox stalls a worker whose script passes through a service worker in an isolated
  // page; workers load directly unless this worker must add the headers itself.
  if (req.destination === "worker" && !isolate) return;
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
        response = await caches.match(req, { ignoreSearch: req.mode === "navigate" });
        if (!response) throw err;
      }
      return isolate ? isolated(response) : response;
    })(),
  );
});

// The page's first module: performance.now's tick, measured in a worker of its own by the
// small first wasm module as soon as the page loads, and said against what this browser
// documents. The full lab (lab.js: the clocks, the run, plots, Compare, analysis, the
// playground) loads after that first answer, so a phone's network brings the answer first.
import { $, becomeIsolated, noteError, showError, status } from "./page.js";

// Longest the lab waits for the first answer before it loads anyway.
const FIRST_WAIT_MS = 3000;

const headline = { pass: 0, stop: () => {} };

function showHeadline(h) {
  $("headline-tick").textContent = h.tick;
  $("headline-verdict").textContent = h.verdict;
  $("headline-isolation").textContent = h.isolation;
  $("headline-isolate").hidden = self.crossOriginIsolated || !("serviceWorker" in navigator);
  if (h.tick_ns != null) {
    $("headline").dataset.tickNs = String(h.tick_ns);
    self.ticklabTimes.headlineMs ??= performance.now();
  }
}

// The lab's wasm, most of the lab's bytes, asked for by this page as soon as the first
// answer's wasm has answered (its headers in): it comes beside that wasm's last bytes, while
// the answer is measured and the lab's scripts load (asked for once those bytes were in, the
// lab was ready 0.2 s later on Slow 4G, 2.68 s; with the first wasm's request, the answer
// came 0.3 s later). The lab's init() takes this response (a preload link would be fetched
// twice by WebKit, which does not hand preloads to fetch()). Not once the lab has asked for
// it itself.
let labAsked = false;
let labWasm;

// The first answer's wasm, fetched by the page rather than by the worker after its scripts:
// round trips sooner, and slowed by a browser's network emulation as a phone's network
// would slow it (a worker's own fetches it does not slow). index.html's inline script asks
// for it as the document arrives (on Slow 4G the answer came 0.2 s sooner, 1.03-1.07 s,
// and the lab 0.15 s, 2.27-2.31 s); here only if that script did not run.
async function firstModule() {
  const r = await (self.ticklabFirstWasm || fetch(new URL("./pkg/ticklab_first_bg.wasm", import.meta.url)));
  if (!r.ok) throw new Error(`the first module: HTTP ${r.status}`);
  if (!labAsked) labWasm = fetch(new URL("./pkg/ticklab_www_bg.wasm", import.meta.url));
  return WebAssembly.compile(await r.arrayBuffer());
}

// A short first look, then a longer one that refines it while the visitor reads (a run of
// the lab stops it). Resolves at the first answer, or the reason there is none. The worker
// starts at once, its scripts loading while the module (`compiled`, a promise) is fetched.
function runHeadline(compiled) {
  return new Promise((answered) => {
    const w = new Worker(new URL("./headline.js", import.meta.url), { type: "module" });
    const h = headline;
    // The module goes with the first ask; the worker keeps it for the second.
    const go = (module) => w.postMessage({ user_agent: navigator.userAgent, isolated: !!self.crossOriginIsolated, pass: h.pass, module });
    const end = (why) => {
      if (why) $("headline-verdict").textContent = `(${why})`;
      answered();
      h.stop();
    };
    h.stop = () => { w.terminate(); h.stop = () => {}; };
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.kind !== "headline") return end(m.message);
      showHeadline(m.headline);
      if (h.pass > 0) return end();
      answered();
      h.pass = 1;
      go();
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      end("the worker could not start");
    };
    compiled.then(go, (e) => end(e.message || e));
  });
}

async function main() {
  const params = new URLSearchParams(location.search);
  // A click on Run before the lab has arrived is kept, not lost: the run starts with it.
  let runAsked = false;
  const early = (e) => {
    e.preventDefault();
    runAsked = true;
    status("The lab is loading; the run starts as soon as it is here…");
  };
  $("settings").addEventListener("submit", early);
  const workers = "serviceWorker" in navigator && location.protocol !== "file:";
  const byServer = self.crossOriginIsolated && !params.has("isolate");
  if (workers && byServer) {
    // Isolated by the server, which needs no service worker; Firefox stalls the lab's
    // worker in an isolated page under one, so any left from a static visit goes.
    const regs = await navigator.serviceWorker.getRegistrations().catch(() => []);
    await Promise.all(regs.map((r) => r.unregister()));
    if (navigator.serviceWorker.controller && !sessionStorage.getItem("ticklab-sw-gone")) {
      sessionStorage.setItem("ticklab-sw-gone", "1");
      location.reload();
      return;
    }
  }
  $("headline-isolate").addEventListener("click", becomeIsolated);
  // Not beside the benchmark: a second spinning worker would skew its figures.
  if (!params.has("bench")) {
    await Promise.race([runHeadline(firstModule()), new Promise((r) => setTimeout(r, FIRST_WAIT_MS))]);
  }
  labAsked = true;
  let lab;
  try {
    lab = await import("./lab.js");
  } catch (e) {
    showError(`The lab could not load: ${e.message || e}`);
    document.body.dataset.state = "failed";
    return;
  }
  await lab.start({
    wasm: labWasm,
    stopHeadline: () => { if (headline.pass > 0) headline.stop(); },
    // The lab's own Run handler replaces this one in the same turn: no click falls between.
    takeOver: () => $("settings").removeEventListener("submit", early),
    runAsked: () => runAsked,
  });
  // On a hub, a teacher may start a class here (a student's page is already in one).
  if (!params.has("class")) import("./hub.js").then((h) => h.offer()).catch((e) => noteError(e.message || e));
  // Offline use (its install fetches the whole site: after the answer and the lab, not
  // beside them); isolation only when asked for with ?isolate.
  if (workers && !byServer) navigator.serviceWorker.register("sw.js").catch(() => {});
}

main().catch((e) => noteError(e && e.message ? e.message : e));

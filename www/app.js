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
  if (h.tick_ns !== null && h.tick_ns !== undefined) {
    $("headline").dataset.tickNs = String(h.tick_ns);
    self.ticklabTimes.headlineMs ??= performance.now();
  }
}

// A short first look, then a longer one that refines it while the visitor reads (a run of
// the lab stops it). Resolves at the first answer, or the reason there is none.
function runHeadline() {
  return new Promise((answered) => {
    const w = new Worker(new URL("./headline.js", import.meta.url), { type: "module" });
    const h = headline;
    const go = () => w.postMessage({ user_agent: navigator.userAgent, isolated: !!self.crossOriginIsolated, pass: h.pass });
    h.stop = () => { w.terminate(); h.stop = () => {}; };
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.kind === "headline") {
        showHeadline(m.headline);
        answered();
        if (h.pass === 0) { h.pass = 1; go(); return; }
      } else {
        $("headline-verdict").textContent = `(${m.message})`;
        answered();
      }
      h.stop();
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      $("headline-verdict").textContent = "(the worker could not start)";
      answered();
      h.stop();
    };
    go();
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
    await Promise.race([runHeadline(), new Promise((r) => setTimeout(r, FIRST_WAIT_MS))]);
  }
  let lab;
  try {
    lab = await import("./lab.js");
  } catch (e) {
    showError(`The lab could not load: ${e.message || e}`);
    document.body.dataset.state = "failed";
    return;
  }
  await lab.start({
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

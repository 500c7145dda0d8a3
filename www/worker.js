// The lab's worker: spins on clocks so the page never freezes. One message in, one clock
// measured by the worker's Lab, progress and the clock's report posted back; or, for
// ?bench, the page's figures.
import init, { Lab, bench } from "./pkg/ticklab_www.js";

const ready = init();
let lab = null; // made once, for the page's context

// The baseline of the wasm boundary figure: performance.now read back to back by plain
// JavaScript, blocks of at least 20 ms timed by performance.now itself, the least per read
// over a second, in ns.
function plainLoopNs() {
  let sink = 0;
  let len = 1024;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < len; i++) sink += performance.now();
    if (performance.now() - t0 >= 20 || len >= 2 ** 28) break;
    len *= 2;
  }
  let best = Infinity;
  const end = performance.now() + 1000;
  while (performance.now() < end) {
    const t0 = performance.now();
    for (let i = 0; i < len; i++) sink += performance.now();
    best = Math.min(best, ((performance.now() - t0) * 1e6) / len);
  }
  self.ticklabSink = sink; // keeps the reads from being optimised away
  return best;
}

self.onmessage = async (ev) => {
  const { ctx, id, settings, fit, counter } = ev.data;
  try {
    await ready;
    const cell = counter ? new Int32Array(counter) : undefined;
    if (ev.data.kind === "bench") {
      const rows = bench(ctx, plainLoopNs(), cell);
      self.postMessage({ kind: "bench", rows });
      return;
    }
    lab ||= new Lab(ctx);
    lab.use_settings(settings);
    const report = lab.run_for_page(id, fit, (p) => {
      self.postMessage({ kind: "progress", id, ...p });
      return false;
    }, cell);
    self.postMessage({ kind: "result", id, report });
  } catch (e) {
    self.postMessage({ kind: "error", id, message: String(e && e.message ? e.message : e) });
  }
};

// The lab's worker: spins on clocks so the page never freezes. One message in, one clock
// measured, progress and the clock's report posted back; or reports read into digests for
// Compare; or the playground's simulated clock; or a MessageChannel's messages counted; or,
// for ?bench, the page's figures.
import init, * as wasm from "./pkg/ticklab_www.js";
import { pingPong } from "./counting.js";

const { digest_report, run_clock } = wasm;

const ready = init();

// The baseline of the read cost figure: performance.now read back to back by plain
// JavaScript at its best, timed its own way: the performance object held in a local, each
// reading kept in a local (a sum carried across the loop costs V8 a sixth more a read), the
// loop warmed up until the engine has optimised it, then blocks of at least 20 ms timed by
// performance.now itself, the least per read over a second, in ns.
function plainLoopNs() {
  const perf = self.performance;
  let sink = 0;
  const block = (len) => {
    let t = 0;
    const t0 = perf.now();
    for (let i = 0; i < len; i++) t = perf.now();
    const took = perf.now() - t0;
    sink += t;
    return took;
  };
  const warm = perf.now() + 300;
  while (perf.now() < warm) block(4096);
  let len = 1024;
  while (block(len) < 20 && len < 2 ** 28) len *= 2;
  let best = Infinity;
  const end = perf.now() + 1000;
  while (perf.now() < end) best = Math.min(best, (block(len) * 1e6) / len);
  self.ticklabSink = sink; // keeps the reads from being optimised away
  return best;
}

// Reports a class compares, read and reduced to digests here, off the page's thread; a
// comparison `ticklab browsers` saved gives one per engine and context.
async function digests(items) {
  const out = [];
  for (const { name, blob } of items) {
    try {
      wasm.check_report_size(blob.size, name);
      for (const digest of digest_report(await blob.text(), name)) out.push({ name: digest.from, digest });
    } catch (e) {
      out.push({ name, error: String(e && e.message ? e.message : e) });
    }
  }
  return out;
}

self.onmessage = async (ev) => {
  const { ctx, id, settings, fit, counter } = ev.data;
  try {
    await ready;
    if (ev.data.kind === "play") {
      self.postMessage({ kind: "play", report: wasm.play(ev.data.knobs) });
      return;
    }
    if (ev.data.kind === "digests") {
      self.postMessage({ kind: "digests", out: await digests(ev.data.items) });
      return;
    }
    if (ev.data.kind === "count") {
      // Alone in this worker, the messages wait on nothing but each other.
      self.postMessage({ kind: "result", id, report: await pingPong(ev.data.seconds, () => false) });
      return;
    }
    const cell = counter ? new Int32Array(counter) : undefined;
    if (ev.data.kind === "bench") {
      // Only a build for `cargo xtask bench` has the figures.
      if (!wasm.bench) throw new Error("this build has no benchmark: run `cargo xtask bench`");
      const rows = wasm.bench(ctx, plainLoopNs(), cell);
      self.postMessage({ kind: "bench", rows });
      return;
    }
    const report = run_clock(ctx, id, settings, fit, (p) => {
      self.postMessage({ kind: "progress", id, ...p });
      return false;
    }, cell);
    self.postMessage({ kind: "result", id, report });
  } catch (e) {
    self.postMessage({ kind: "error", id, message: String(e && e.message ? e.message : e) });
  }
};

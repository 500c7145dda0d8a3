// The lab's worker: spins on clocks so the page never freezes. One message in, one clock
// measured, progress and the clock's report posted back.
import init, { run_clock } from "./pkg/ticklab_www.js";

const ready = init();

self.onmessage = async (ev) => {
  const { ctx, id, settings, fit, counter } = ev.data;
  try {
    await ready;
    const cell = counter ? new Int32Array(counter) : undefined;
    const report = run_clock(ctx, id, settings, fit, (p) => {
      self.postMessage({ kind: "progress", id, ...p });
      return false;
    }, cell);
    self.postMessage({ kind: "result", id, report });
  } catch (e) {
    self.postMessage({ kind: "error", id, message: String(e && e.message ? e.message : e) });
  }
};

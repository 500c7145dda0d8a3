// The benchmark's reference for the lab's read cost (only the ?bench page's wasm imports
// it: not the visitor's, not in the page's weight); the loop a page's code times with
// is js-reads.js's. performance.now read back to back by plain JavaScript at its best,
// timed its own way: the performance object held in a local, each reading kept in a local
// (a sum carried across the loop costs V8 a sixth more a read), the loop warmed up until
// the engine has optimised it, then blocks of at least 20 ms timed by performance.now
// itself, the least per read over a second, in ns.
export function plainLoopNs() {
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
  // Keeps the reads from being optimised away.
  self.ticklabSink = sink;
  return best;
}

// performance.now read by a page's own JavaScript, for the lab's read cost: the loop a
// page's code times with, so the cost a page pays is measured beside the lab's through
// WebAssembly. Imported by the lab's wasm; n reads, the last reading returned so none is
// left unused.
export function nowMany(perf, n) {
  let t = 0;
  for (let i = 0; i < n; i++) t = perf.now();
  return t;
}

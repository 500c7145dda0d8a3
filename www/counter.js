// Increments a shared integer as fast as it can: a clock for a page that has
// SharedArrayBuffer (cross-origin isolated), read by the lab's worker with Atomics.load.
self.onmessage = (ev) => {
  const cell = new Int32Array(ev.data);
  self.postMessage("started");
  for (;;) {
    Atomics.add(cell, 0, 1);
  }
};

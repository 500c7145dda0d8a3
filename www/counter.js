// Increments a shared integer as fast as it can: a clock for a page that has
// SharedArrayBuffer (cross-origin isolated), read by the lab's worker with Atomics.load.
// It sleeps while cell 1 is 0 (no clock that reads it is measured, lab.js): spinning
// then took a core from the page's other clocks, and a phone's battery, for nothing.
onmessage = (ev) => {
  const cell = new Int32Array(ev.data);
  postMessage("started");
  for (;;) {
    Atomics.wait(cell, 1, 0);
    for (let i = 0; i < 4096; i++) Atomics.add(cell, 0, 1);
  }
};

// ?bench: the page's benchmark figures (`cargo xtask bench`), measured in a worker of the
// lab built with them, left in body data-bench. Only that page loads this file: it is
// not the visitor's page (not in sw.js's list, nor in the page's weight).
import { Message } from "./pkg/ticklab_www.js";
import { noteError, status } from "./page.js";
import { labWorker, state } from "./lab-state.js";

// `counterRuns`: lab.js's, to set the SharedArrayBuffer counter running (it is left so).
export function runBench(counterRuns) {
  document.body.dataset.state = "running";
  status("Measuring the page's benchmark figures…");
  const w = labWorker();
  const timer = setTimeout(() => {
    w.terminate();
    noteError("the benchmark gave no answer in 120 s");
    document.body.dataset.state = "failed";
  }, 120000);
  w.onmessage = (ev) => {
    clearTimeout(timer);
    if (ev.data.kind === Message.Benched) {
      document.body.dataset.bench = JSON.stringify(ev.data.rows);
      status("Benchmark done.");
      document.body.dataset.state = "done";
    } else {
      noteError(ev.data.message);
      document.body.dataset.state = "failed";
    }
  };
  counterRuns(1).then(() => w.postMessage({ kind: Message.Bench, ctx: state.ctx, counter: state.counter ? state.counter.sab : null }));
}

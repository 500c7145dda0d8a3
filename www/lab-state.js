// The lab's state, shared by its parts (lab.js, compare.js, explore.js), and what they all
// draw and save with.
import { $, el } from "./page.js";

export const state = {
  ctx: null,
  // The wasm Lab: results, report and words stay in it.
  lab: null,
  // The clock choice's rows.
  entries: [],
  measured: 0,
  hasReport: false,
  // The tables' headers, from the Lab.
  columns: { summary: [], matrix: [], figures: [] },
  // Stops the first answer's refinement, which would spin beside a run.
  stopHeadline: () => {},
  // The lab's wasm module, compiled once by the page and handed to every worker.
  module: null,
  // The counter worker and its SharedArrayBuffer: { worker, sab }.
  counter: null,
  audio: null,
  running: false,
  cancelled: false,
  hidden: false,
  // In a class (?class=CODE): sends the finished run to it.
  toClass: null,
};

// A canvas as wide as its column, in device pixels: the Lab lays the plot out in CSS
// pixels and scales it by devicePixelRatio, so it stays sharp on a phone.
// A worker of the lab's (worker.js), given the page's compiled module: compiled once, its
// optimised code shared.
export function labWorker() {
  const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  w.postMessage({ module: state.module });
  return w;
}

export function sizeCanvas(c) {
  c.dataset.aspect ??= String(c.height / c.width);
  const w = Math.max(280, c.parentElement.clientWidth || 640);
  const h = Math.round(w * Number(c.dataset.aspect));
  const r = Math.max(1, self.devicePixelRatio || 1);
  c.style.width = `${w}px`;
  c.style.height = `${h}px`;
  c.width = Math.round(w * r);
  c.height = Math.round(h * r);
}

export function plot(canvasId, id, view) {
  const canvas = $(canvasId);
  sizeCanvas(canvas);
  try {
    state.lab.draw(canvas, id, view, 0);
    canvas.hidden = false;
  } catch {
    canvas.hidden = true;
  }
}

export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", name, { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

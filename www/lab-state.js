// The lab's state, shared by its parts (lab.js, compare.js, explore.js), and what they all
// draw and save with.
import { $, el } from "./page.js";

export const state = {
  ctx: null,
  lab: null, // the wasm Lab: results, report and words stay in it
  entries: [], // the clock choice's rows
  measured: 0,
  hasReport: false,
  columns: { summary: [], matrix: [], figures: [] }, // the tables' headers, from the Lab
  stopHeadline: () => {}, // stops the first answer's refinement, which would spin beside a run
  worker: null,
  counter: null, // { worker, sab }
  audio: null,
  running: false,
  cancelled: false,
  hidden: false,
  toClass: null, // in a class (?class=CODE): sends the finished run to it
};

// A canvas as wide as its column, in device pixels: the Lab lays the plot out in CSS
// pixels and scales it by devicePixelRatio, so it stays sharp on a phone.
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

// The page: context, the run (worker, main thread, sampled clocks), results, plots, compare,
// import and export. The science, the results and every word and number shown of them are
// in the wasm module's Lab; this file only reads the page's clocks, moves data and builds DOM.
import init, { Lab } from "./pkg/ticklab_www.js";

const $ = (id) => document.getElementById(id);

// Every error the page meets, for the reader and for the end-to-end tests.
const pageErrors = [];
self.ticklabErrors = pageErrors;
// When the first result reached the screen and how long the run took, in ms, for the
// benchmark (`cargo xtask bench`).
self.ticklabTimes = {};
function noteError(msg) {
  pageErrors.push(String(msg));
}
self.addEventListener("error", (e) => noteError(e.message));
self.addEventListener("unhandledrejection", (e) => noteError(e.reason));
document.addEventListener("securitypolicyviolation", (e) => noteError(`CSP blocked ${e.blockedURI} (${e.violatedDirective})`));
const consoleError = console.error.bind(console);
console.error = (...args) => {
  noteError(args.join(" "));
  consoleError(...args);
};
const NATIVE_REPORT = "native/report.json";

const state = {
  ctx: null,
  lab: null, // the wasm Lab: results, report and words stay in it
  entries: [], // the clock choice's rows
  measured: 0,
  hasReport: false,
  columns: { summary: [], matrix: [], figures: [] }, // the tables' headers, from the Lab
  headline: null, // the headline's worker while it measures
  worker: null,
  counter: null, // { worker, sab }
  audio: null,
  running: false,
  cancelled: false,
  hidden: false,
};

function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function showError(msg) {
  $("error").textContent = msg || "";
}

function status(msg) {
  $("status").textContent = msg;
}

// ---------- context ----------

async function makeAudio() {
  const Ctor = self.AudioContext || self.webkitAudioContext;
  if (!Ctor) return null;
  try {
    const ctx = new Ctor();
    // Without a user gesture it may stay suspended; the run says so if it never advances.
    ctx.resume().catch(() => {});
    return ctx;
  } catch {
    return null;
  }
}

async function startCounter() {
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer === "undefined") return null;
  const sab = new SharedArrayBuffer(4);
  const worker = new Worker(new URL("./counter.js", import.meta.url));
  const started = new Promise((resolve) => {
    worker.onmessage = () => resolve(true);
    setTimeout(() => resolve(false), 2000);
  });
  worker.postMessage(sab);
  if (!(await started)) {
    worker.terminate();
    return null;
  }
  return { worker, sab };
}

function context() {
  return {
    user_agent: navigator.userAgent,
    isolated: !!self.crossOriginIsolated,
    audio_sample_rate: state.audio ? state.audio.sampleRate : null,
    shared_counter: !!state.counter,
  };
}

function renderContext() {
  const dl = $("context-list");
  dl.replaceChildren();
  const items = [
    ["Browser", navigator.userAgent],
    ["Cross-origin isolated", self.crossOriginIsolated ? "yes" : "no"],
    ["Logical CPUs (hardwareConcurrency)", String(navigator.hardwareConcurrency || "unknown")],
    ["Page visibility", document.visibilityState + (state.hidden ? " (was hidden during the run)" : "")],
    ["SharedArrayBuffer counter", state.counter ? "running" : "not available"],
    ["Audio", state.audio ? `${state.audio.sampleRate} Hz, ${state.audio.state}` : "not made yet"],
  ];
  for (const [k, v] of items) {
    dl.append(el("dt", k), el("dd", v));
  }
  const iso = self.crossOriginIsolated;
  $("isolated-text").hidden = !iso;
  $("plain-text").hidden = iso;
  const params = new URLSearchParams(location.search);
  $("isolate").hidden = iso || !("serviceWorker" in navigator);
  $("unisolate").hidden = !params.has("isolate");
}

async function becomeIsolated() {
  try {
    await navigator.serviceWorker.register("sw.js");
    await navigator.serviceWorker.ready;
    const u = new URL(location.href);
    u.searchParams.set("isolate", "1");
    location.replace(u);
  } catch (e) {
    showError(`The service worker could not be installed: ${e.message || e}`);
  }
}

// ---------- the answer first ----------

// performance.now measured in a worker of its own as soon as the page loads: a short look,
// then a longer one that refines it while the visitor reads. A full run stops the second.
function runHeadline(ctx) {
  const lab = new Lab(ctx);
  const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  const h = { worker: w, pass: 0 };
  state.headline = h;
  const go = () => w.postMessage({ ctx, id: "performance.now", settings: lab.headline_settings(h.pass), fit: false, counter: null });
  const stop = () => { w.terminate(); if (state.headline === h) state.headline = null; };
  h.stop = stop;
  w.onmessage = (ev) => {
    const m = ev.data;
    if (m.kind === "progress") return;
    if (m.kind === "result") {
      showHeadline(lab.headline(m.report));
      if (h.pass === 0 && !state.running) { h.pass = 1; go(); return; }
    } else {
      $("headline-verdict").textContent = `(${m.message})`;
    }
    stop();
  };
  w.onerror = (ev) => {
    ev.preventDefault();
    $("headline-verdict").textContent = "(the worker could not start)";
    stop();
  };
  go();
}

function showHeadline(h) {
  $("headline-tick").textContent = h.tick;
  $("headline-verdict").textContent = h.verdict;
  $("headline-isolation").textContent = h.isolation;
  $("headline-isolate").hidden = self.crossOriginIsolated || !("serviceWorker" in navigator);
  if (h.tick_ns !== null && h.tick_ns !== undefined) {
    $("headline").dataset.tickNs = String(h.tick_ns);
    self.ticklabTimes.headlineMs ??= performance.now();
  }
}

// ---------- the clock list ----------

function settingsObject() {
  const f = new FormData($("settings"));
  return {
    tick_s: String(f.get("tick_s") ?? ""),
    overhead_s: String(f.get("overhead_s") ?? ""),
    fit_s: String(f.get("fit_s") ?? ""),
    sample_s: String(f.get("sample_s") ?? ""),
    workload: String(f.get("workload") ?? ""),
  };
}

// The tables' headers, in the command's words.
function renderHeaders() {
  const head = (table, names) => {
    const tr = $(table).querySelector("thead tr");
    tr.replaceChildren(...names.map((n) => el("th", n, { scope: "col" })));
  };
  state.columns = state.lab.columns();
  const { summary } = state.columns;
  head("summary", [...summary, "notes"]);
}

function renderChoice() {
  const body = $("clock-choice").querySelector("tbody");
  body.replaceChildren();
  for (const e of state.entries) {
    const tr = el("tr");
    const run = el("input", null, { type: "checkbox", "data-run": e.id, "aria-label": `run ${e.name}` });
    run.checked = e.available;
    run.disabled = !e.available;
    const fit = el("input", null, { type: "checkbox", "data-fit": e.id, "aria-label": `fit on ${e.name}` });
    fit.checked = e.fit;
    fit.disabled = !e.can_fit;
    const td = (x) => { const c = el("td"); c.append(x); return c; };
    tr.append(td(run), td(fit));
    const name = el("td", e.name, { title: e.description });
    if (!e.available) name.append(el("small", ` (${e.reason})`));
    tr.append(name, el("td", e.place, { "data-label": "read in" }), el("td", e.claimed, { "data-label": "claimed" }));
    body.append(tr);
  }
}

// ---------- running ----------

function newWorker() {
  if (state.worker) state.worker.terminate();
  state.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  return state.worker;
}

// A run stopped by the visitor: told apart from a failure by its type, not its words.
class Cancelled extends Error {}

// A worker that says nothing for this long is not coming back.
const WORKER_SILENCE_MS = 20000;

function runInWorker(id, settings, fit, onProgress) {
  return new Promise((resolve, reject) => {
    const w = state.worker || newWorker();
    let timer = null;
    const fail = (why) => {
      clearTimeout(timer);
      newWorker(); // terminating is the only way to stop a spinning worker at once
      reject(why instanceof Error ? why : new Error(why));
    };
    const watch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(`the worker gave no sign of life for ${WORKER_SILENCE_MS / 1000} s`), WORKER_SILENCE_MS);
    };
    watch();
    state.abort = () => fail(new Cancelled());
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.id !== id) return;
      watch();
      if (m.kind === "progress") onProgress(m.fraction);
      else {
        clearTimeout(timer);
        // A worker whose wasm failed may be left broken: fail() starts a new one.
        if (m.kind === "result") resolve(m.report);
        else fail(m.message);
      }
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      fail(`the worker failed: ${ev.message || "it could not start (are module workers supported?)"}`);
    };
    w.postMessage({ ctx: state.ctx, id, settings, fit, counter: state.counter ? state.counter.sab : null });
  });
}

const nextFrame = () => new Promise((r) => requestAnimationFrame(r));
const nextTask = (() => {
  const ch = new MessageChannel();
  const queue = [];
  ch.port1.onmessage = () => { const r = queue.shift(); if (r) r(); };
  return () => new Promise((r) => { queue.push(r); ch.port2.postMessage(0); });
})();

// Readings of a clock the page cannot spin on, taken when the browser lets it.
async function sample(id, seconds, onProgress) {
  const readings = [];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const read = {
    "rAF": null,
    "audio.currentTime": () => state.audio.currentTime,
    "audio.contextTime": () => state.audio.getOutputTimestamp().contextTime,
    "audio.performanceTime": () => state.audio.getOutputTimestamp().performanceTime,
  }[id];
  if (id === "rAF") {
    // Frames stop in a hidden tab; the timeout keeps the budget.
    while (performance.now() < end && !state.cancelled) {
      const ts = await Promise.race([nextFrame(), new Promise((r) => setTimeout(() => r(null), 50))]);
      if (ts !== null) readings.push(ts);
      onProgress((performance.now() - t0) / (end - t0));
    }
  } else {
    while (performance.now() < end && !state.cancelled) {
      await nextTask();
      const v = read();
      if (v !== undefined && v !== null) readings.push(v);
      if (readings.length % 64 === 0) onProgress((performance.now() - t0) / (end - t0));
    }
  }
  if (state.cancelled) throw new Cancelled();
  return { readings, elapsed: (performance.now() - t0) / 1000 };
}

function chosen() {
  const run = new Set([...document.querySelectorAll("[data-run]")].filter((x) => x.checked).map((x) => x.dataset.run));
  const fit = new Set([...document.querySelectorAll("[data-fit]")].filter((x) => x.checked).map((x) => x.dataset.fit));
  return state.entries.filter((e) => run.has(e.id)).map((e) => ({ entry: e, fit: fit.has(e.id) }));
}

async function runAll(ev) {
  if (ev) ev.preventDefault();
  if (state.running) return;
  showError("");
  let settings;
  try {
    settings = state.lab.set_settings(settingsObject());
  } catch (e) {
    showError(e.message);
    return;
  }
  const jobs = chosen();
  if (jobs.length === 0) {
    showError("Choose at least one clock to run.");
    return;
  }
  // The headline's refinement would spin beside the run: its first look is enough.
  if (state.headline && state.headline.pass > 0) state.headline.stop();
  state.running = true;
  state.cancelled = false;
  state.hidden = document.visibilityState === "hidden";
  document.body.dataset.state = "running";
  $("run").disabled = true;
  $("cancel").disabled = false;
  state.lab.start();
  state.measured = 0;
  state.hasReport = false;
  renderSummary();
  // Resumed on the click, so autoplay rules let it run.
  // Cancel must not wait for anything the run awaits: it resolves this at once.
  const woken = new Promise((r) => { state.wake = r; });
  if (state.audio && state.audio.state !== "running") {
    await Promise.race([state.audio.resume().catch(() => {}), new Promise((r) => setTimeout(r, 500)), woken]);
  }
  const t0 = performance.now();
  let done = 0;
  // One clock's experiments; false when the run was cancelled.
  const runJob = async ({ entry, fit }) => {
    if (state.cancelled) return false;
    const progress = (f) => {
      $("progress").value = (done + Math.min(1, Math.max(0, f))) / jobs.length;
    };
    status(`Measuring ${entry.name}…`);
    const started = performance.now();
    // The summary rows, as the Lab returns them with each result it keeps.
    let rows;
    try {
      if (entry.runs_in === "worker") {
        const report = await runInWorker(entry.id, settings, fit, progress);
        rows = state.lab.add_result(entry.id, report);
      } else if (entry.runs_in === "main") {
        // Let the status paint before the page is busy; a hidden tab paints no frame.
        await Promise.race([nextFrame(), new Promise((r) => setTimeout(r, 50)), woken]);
        if (state.cancelled) return false;
        rows = state.lab.run_here(entry.id, fit, (p) => { progress(p.fraction); return state.cancelled; });
      } else {
        const { readings, elapsed } = await sample(entry.id, state.lab.sample_s(), progress);
        rows = state.lab.add_readings(entry.id, new Float64Array(readings), elapsed);
      }
    } catch (e) {
      if (state.cancelled || e instanceof Cancelled) return false;
      rows = state.lab.add_failure(entry.id, String(e.message || e));
    }
    state.measured += 1;
    (self.ticklabTimes.clocks ||= {})[entry.id] = performance.now() - started;
    done += 1;
    $("progress").value = done / jobs.length;
    renderSummary(rows);
    if (self.ticklabTimes.firstResultMs === undefined) self.ticklabTimes.firstResultMs = performance.now();
    return true;
  };
  for (const job of jobs.filter((j) => j.entry.runs_in !== "sampled")) {
    if (!(await runJob(job))) break;
  }
  // The clocks the page samples wait on frames and tasks, not on one another: read together,
  // they take one sampling budget, not one each.
  if (!state.cancelled) {
    status("Sampling the frame and audio clocks…");
    await Promise.all(jobs.filter((j) => j.entry.runs_in === "sampled").map(runJob));
  }
  finish(t0);
}

function finish(t0) {
  // When the run stopped, before the results are drawn: Cancel's latency ends here.
  self.ticklabTimes.stoppedAt = performance.now();
  state.running = false;
  $("run").disabled = false;
  $("cancel").disabled = true;
  self.ticklabTimes.runMs = performance.now() - t0;
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  try {
    state.lab.finish({ cpus: navigator.hardwareConcurrency || null, hidden_during_run: state.hidden });
    state.hasReport = true;
  } catch (e) {
    showError(`The report could not be assembled: ${e.message}`);
  }
  for (const b of ["export-json", "export-csv", "share"]) $(b).disabled = !state.hasReport;
  status(state.cancelled
    ? `Cancelled after ${secs} s; ${state.measured} clocks measured.`
    : `Done in ${secs} s: ${state.measured} clocks.`);
  document.body.dataset.state = state.cancelled ? "cancelled" : "done";
  renderContext();
  renderDetailChoice();
  renderCompare();
}

function cancel() {
  self.ticklabTimes.cancelAt = performance.now();
  state.cancelled = true;
  if (state.wake) state.wake();
  if (state.abort) state.abort();
  status("Cancelling…");
}

// ---------- results ----------

function renderSummary(rows = state.lab.rows()) {
  const body = $("summary").querySelector("tbody");
  body.replaceChildren();
  for (const { id, row } of rows) {
    const tr = el("tr", null, { "data-clock": id });
    if (row.tick_ns !== null && row.tick_ns !== undefined) tr.dataset.tickNs = String(row.tick_ns);
    // The cells in the order of the table's header: the clock, then its figures in words.
    const [clock, ...cells] = row.cells;
    tr.append(el("th", clock, { scope: "row" }));
    // Each cell named by its column, for a phone's stacked rows.
    cells.forEach((text, i) => tr.append(el("td", text, { "data-label": state.columns.summary[i + 1], ...(i === 1 ? { class: "tick" } : {}) })));
    const notes = el("td");
    if (row.notes.length) {
      const d = el("details");
      d.append(el("summary", `${row.notes.length} note${row.notes.length > 1 ? "s" : ""}`));
      const ul = el("ul");
      for (const n of row.notes) ul.append(el("li", n));
      d.append(ul);
      notes.append(d);
    }
    tr.append(notes);
    body.append(tr);
  }
}

function renderDetailChoice() {
  const sel = $("detail-clock");
  const keep = sel.value;
  sel.replaceChildren();
  for (const [id, name] of state.lab.detail_choices()) sel.append(el("option", name, { value: id }));
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  renderDetail();
}

// A canvas as wide as its column, in device pixels: the Lab lays the plot out in CSS
// pixels and scales it by devicePixelRatio, so it stays sharp on a phone.
function sizeCanvas(c) {
  c.dataset.aspect ??= String(c.height / c.width);
  const w = Math.max(280, c.parentElement.clientWidth || 640);
  const h = Math.round(w * Number(c.dataset.aspect));
  const r = Math.max(1, self.devicePixelRatio || 1);
  c.style.width = `${w}px`;
  c.style.height = `${h}px`;
  c.width = Math.round(w * r);
  c.height = Math.round(h * r);
}

function plot(canvasId, id, view) {
  const canvas = $(canvasId);
  sizeCanvas(canvas);
  try {
    state.lab.draw(canvas, id, view, 0);
    canvas.hidden = false;
  } catch {
    canvas.hidden = true;
  }
}

function renderDetail() {
  const id = $("detail-clock").value;
  const d = id ? state.lab.detail(id) : null;
  $("tick-detail").hidden = !(d && d.tick);
  $("overhead-detail").hidden = !(d && d.overhead);
  $("fit-detail").hidden = !(d && d.fit);
  if (!d) return;
  if (d.tick) {
    $("tick-text").textContent = d.tick;
    for (const v of ["raw", "sorted", "diff_sorted", "histogram"]) plot(`plot-${v}`, id, v);
  }
  if (d.overhead) {
    $("overhead-text").textContent = d.overhead;
    plot("plot-overhead", id, "overhead");
  }
  if (d.fit) {
    $("fit-text").textContent = d.fit;
    plot("plot-fit", id, "fit");
    plot("plot-excess", id, "excess");
  }
}

// ---------- export ----------

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", name, { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function exportJson() {
  try {
    download("ticklab-browser.json", state.lab.export_json(), "application/json");
  } catch (e) {
    showError(`Export failed: ${e.message}`);
  }
}

function exportCsv() {
  try {
    const tables = state.lab.export_csv();
    const ul = $("csv-links");
    ul.replaceChildren();
    for (const t of tables) {
      const url = URL.createObjectURL(new Blob([t.csv], { type: "text/csv" }));
      const li = el("li");
      li.append(el("a", t.name, { href: url, download: t.name }));
      ul.append(li);
    }
  } catch (e) {
    showError(`Export failed: ${e.message}`);
  }
}

// ---------- compare: a class side by side ----------

// Reports go to a worker of their own, which reads them and hands back digests: thirty
// students' files never hold up the page.
function digestInWorker(items) {
  return new Promise((resolve) => {
    const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    const done = (out) => { w.terminate(); resolve(out); };
    w.onmessage = (ev) => done(ev.data.kind === "digests" ? ev.data.out
      : items.map(({ name }) => ({ name, error: ev.data.message })));
    w.onerror = (ev) => { ev.preventDefault(); done(items.map(({ name }) => ({ name, error: "the worker could not start" }))); };
    w.postMessage({ kind: "digests", items });
  });
}

async function loadReports(items) {
  if (!items.length) return;
  const list = $("compare-status");
  const out = await digestInWorker(items);
  list.replaceChildren();
  for (const r of out) {
    let line = r.error;
    if (!line) {
      try {
        line = state.lab.add_digest(r.digest);
      } catch (e) {
        line = `Could not read ${r.name}: ${e.message}`;
      }
    }
    list.append(el("li", line, r.error ? { class: "error" } : {}));
  }
  renderCompare();
}

const loadFiles = (files) => loadReports([...files].map((f) => ({ name: f.name, blob: f })));

async function fetchNative() {
  try {
    const r = await fetch(NATIVE_REPORT, { cache: "no-store" });
    if (!r.ok) return;
    await loadReports([{ name: "the server", blob: await r.blob() }]);
    const here = state.lab.served_lesson();
    if (here) $("lesson-here").textContent = here;
  } catch {
    // Served statically: there is no native report to fetch; the file picker remains.
  }
}

const sortBy = { key: "tick", descending: false }; // finest first

// A class of 60 is 60 rows a clock, over a thousand in all, which held the page a quarter
// of a second to lay out at once: past ROWS_AT_ONCE rows, each clock shows its first
// GROUP_ROWS (in the chosen order) until asked for the rest.
const ROWS_AT_ONCE = 400;
const GROUP_ROWS = 10;
const opened = new Set();

function renderCompare() {
  const table = $("compare-table");
  const names = state.columns.matrix;
  const head = table.querySelector("thead tr");
  head.replaceChildren(...names.map((n, i) => {
    const th = el("th", null, { scope: "col" });
    const key = state.columns.matrix_keys[i];
    if (key === sortBy.key) th.setAttribute("aria-sort", sortBy.descending ? "descending" : "ascending");
    const b = el("button", n, { type: "button", class: "sort" });
    b.addEventListener("click", () => {
      sortBy.descending = sortBy.key === key && !sortBy.descending;
      sortBy.key = key;
      renderCompare();
    });
    th.append(b);
    return th;
  }));
  for (const b of table.querySelectorAll("tbody")) b.remove();
  const groups = state.lab.matrix(sortBy.key, sortBy.descending);
  const many = groups.reduce((n, g) => n + g.rows.length, 0) > ROWS_AT_ONCE;
  for (const g of groups) {
    const body = el("tbody", null, { "data-clock": g.clock });
    const top = el("tr", null, { class: "group" });
    const th = el("th", g.clock, { scope: "rowgroup", colspan: String(names.length) });
    top.append(th);
    body.append(top);
    const rows = many && !opened.has(g.clock) ? g.rows.slice(0, GROUP_ROWS) : g.rows;
    if (rows.length < g.rows.length) {
      const b = el("button", `Show all ${g.rows.length} reports`, { type: "button" });
      b.onclick = () => { opened.add(g.clock); renderCompare(); };
      th.append(" ", b);
    }
    for (const r of rows) {
      const tr = el("tr", null, { "data-where": r.place });
      r.cells.forEach((t, i) => tr.append(el("td", t, { "data-label": names[i] })));
      body.append(tr);
    }
    table.append(body);
  }
  $("export-matrix").disabled = groups.length === 0;
}

function exportMatrix() {
  download("ticklab-compare.csv", state.lab.matrix_csv(sortBy.key, sortBy.descending), "text/csv");
}

// ---------- a result link ----------

// The summary travels in the URL's fragment, which browsers never send to a server:
// deflated by the browser's own CompressionStream, then base64url.
const LINK_LIMIT = 2000;
const LINK_KEY = "#result=";

async function streamBytes(stream, limit) {
  const reader = stream.getReader();
  const parts = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > limit) throw new Error("the link unpacks to more than a result holds");
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

async function packLink(text) {
  const z = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = await streamBytes(z, 1 << 20);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function unpackLink(b64) {
  const bin = atob(b64.replace(/-/g, "+").replace(/_/g, "/"));
  const z = new Blob([Uint8Array.from(bin, (c) => c.charCodeAt(0))]).stream()
    .pipeThrough(new DecompressionStream("deflate-raw"));
  return new TextDecoder().decode(await streamBytes(z, 64 * 1024));
}

async function shareLink() {
  try {
    const u = new URL(location.href);
    u.search = "";
    u.hash = LINK_KEY + (await packLink(state.lab.share()));
    if (u.hash.length > LINK_LIMIT) throw new Error(`the link would be ${u.hash.length} characters; at most ${LINK_LIMIT}`);
    $("share-link").value = u.href;
    $("share-link").hidden = false;
    $("share-link").select();
  } catch (e) {
    showError(`No link: ${e.message || e}`);
  }
}

async function openLink() {
  if (!location.hash.startsWith(LINK_KEY)) return;
  const box = $("shared");
  box.hidden = false;
  try {
    const shown = state.lab.open_shared(await unpackLink(location.hash.slice(LINK_KEY.length)));
    $("shared-line").textContent = shown.line;
    const head = $("shared-table").querySelector("thead tr");
    head.replaceChildren(...state.columns.figures.map((n) => el("th", n, { scope: "col" })));
    const body = $("shared-table").querySelector("tbody");
    body.replaceChildren(...shown.rows.map(([clock, ...rest]) => {
      const tr = el("tr");
      tr.append(el("th", clock, { scope: "row" }), ...rest.map((t, i) => el("td", t, { "data-label": state.columns.figures[i + 1] })));
      return tr;
    }));
    box.dataset.state = "shown";
    renderCompare();
  } catch (e) {
    $("shared-line").textContent = `This link holds no result this page can read: ${e.message || e}`;
    box.dataset.state = "failed";
  }
}

// ---------- timings measured elsewhere ----------

async function analyzeInput(ev) {
  ev.preventDefault();
  const file = $("analyze-file").files[0];
  const pasted = $("analyze-text").value;
  const box = $("analysis");
  try {
    // A paste wins over a file chosen earlier: it is what the visitor just did.
    // A file's bytes as saved (the core reads a byte-order mark and UTF-16 as the command does).
    const [bytes, name] = pasted.trim()
      ? [new TextEncoder().encode(pasted), "the pasted timings"]
      : file ? [new Uint8Array(await file.arrayBuffer()), file.name] : [null, null];
    if (bytes === null) throw new Error("Choose a file or paste timings first.");
    const a = state.lab.analyze(bytes, name, $("analyze-unit").value);
    $("analysis-answer").textContent = a.answer;
    $("analysis-detail").replaceChildren(...a.detail.flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
    $("analysis-overview").querySelector("thead tr").replaceChildren(...a.columns.map((c) => el("th", c, { scope: "col" })));
    $("analysis-overview").querySelector("tbody").replaceChildren(...a.overview.map(([first, ...rest]) => {
      const tr = el("tr");
      tr.append(el("th", first, { scope: "row" }), ...rest.map((t, i) => el("td", t, { "data-label": a.columns[i + 1] })));
      return tr;
    }));
    $("analysis-bands").hidden = a.bands.length === 0;
    $("analysis-bands").querySelector("ul").replaceChildren(...a.bands.map((b) => el("li", b)));
    $("analysis-notes").replaceChildren(...a.notes.map((n) => el("li", n)));
    box.hidden = false;
    for (const v of ["raw", "sorted", "diff_sorted", "histogram"]) {
      const c = $(`an-${v}`);
      sizeCanvas(c);
      try { state.lab.draw_analysis(c, v); c.hidden = false; } catch { c.hidden = true; }
    }
    if (a.tick_ns !== null && a.tick_ns !== undefined) box.dataset.tickNs = String(a.tick_ns);
    else delete box.dataset.tickNs;
    box.dataset.state = "done";
  } catch (e) {
    box.hidden = false;
    box.dataset.state = "failed";
    delete box.dataset.tickNs;
    $("analysis-answer").textContent = e.message || String(e);
    for (const id of ["analysis-detail", "analysis-notes"]) $(id).replaceChildren();
    $("analysis-overview").querySelector("tbody").replaceChildren();
    $("analysis-bands").hidden = true;
    for (const c of box.querySelectorAll("canvas")) c.hidden = true;
  }
}

// ---------- the playground ----------

// One run at a time in a worker of its own; a change during a run is served by the next,
// with the newest positions. The time from a change to its redraw is kept for the tests.
const play = { worker: null, busy: false, pending: null };

function knobs() {
  const f = new FormData($("knobs"));
  return { tick: Number(f.get("tick")), jitter: f.has("jitter"), read: Number(f.get("read")), per_n: Number(f.get("per_n")) };
}

function playChanged() {
  const k = knobs();
  try {
    const w = state.lab.knob_words(k);
    for (const n of Object.keys(w)) $(`knob-${n}`).textContent = w[n];
  } catch (e) {
    $("play-text").textContent = e.message;
    return;
  }
  play.pending ??= performance.now();
  if (!play.busy) runPlay();
}

function runPlay() {
  const t0 = play.pending;
  play.pending = null;
  play.busy = true;
  if (!play.worker) {
    play.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    play.worker.onerror = (ev) => { ev.preventDefault(); $("play-text").textContent = "the worker could not start"; };
  }
  play.worker.onmessage = (ev) => {
    play.busy = false;
    if (ev.data.kind === "play") {
      const d = state.lab.add_play(ev.data.report);
      $("play-text").textContent = [d.tick, d.fit].filter(Boolean).join(" ");
      for (const v of ["raw", "sorted", "diff_sorted", "excess"]) plot(`play-${v}`, "playground", v);
      const ms = performance.now() - t0;
      (self.ticklabTimes.play ||= []).push(ms);
      $("playground").dataset.redrawMs = String(ms);
    } else {
      $("play-text").textContent = ev.data.message;
    }
    if (play.pending !== null) runPlay();
  };
  play.worker.postMessage({ kind: "play", knobs: knobs() });
}

function startPlayground() {
  $("knobs").addEventListener("input", playChanged);
  $("steps").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const f = $("knobs").elements;
    for (const n of ["tick", "read", "per_n"]) f[n].value = b.dataset[n];
    f.jitter.checked = !!b.dataset.jitter;
    playChanged();
  });
  // First run when the visitor gets there: not beside the headline's measurement.
  new IntersectionObserver((seen, o) => {
    if (seen.some((s) => s.isIntersecting)) { o.disconnect(); playChanged(); }
  }).observe($("playground"));
}

// ---------- start ----------

async function main() {
  try {
    await init();
  } catch (e) {
    showError(`The lab could not load its WebAssembly module: ${e.message || e}`);
    document.body.dataset.state = "failed";
    return;
  }
  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    const viaWorker = new URLSearchParams(location.search).has("isolate");
    if (self.crossOriginIsolated && !viaWorker) {
      // Isolated by the server, which needs no service worker; Firefox stalls the lab's
      // worker in an isolated page under one, so any left from a static visit goes.
      const regs = await navigator.serviceWorker.getRegistrations().catch(() => []);
      await Promise.all(regs.map((r) => r.unregister()));
      if (navigator.serviceWorker.controller && !sessionStorage.getItem("ticklab-sw-gone")) {
        sessionStorage.setItem("ticklab-sw-gone", "1");
        location.reload();
        return;
      }
    } else {
      // Offline use; isolation only when asked for with ?isolate.
      navigator.serviceWorker.register("sw.js").catch(() => {});
    }
  }
  // Not beside the benchmark: a second spinning worker would skew its figures.
  if (!new URLSearchParams(location.search).has("bench")) {
    runHeadline({ user_agent: navigator.userAgent, isolated: !!self.crossOriginIsolated, audio_sample_rate: null, shared_counter: false });
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden" && state.running) state.hidden = true;
    renderContext();
  });
  state.counter = await startCounter();
  // Made now for its sample rate; it may stay suspended until the Run click resumes it.
  state.audio = await makeAudio();
  state.ctx = context();
  state.lab = new Lab(state.ctx);
  // For the end-to-end tests: what crossed the wasm boundary.
  self.ticklabCrossings = () => state.lab.crossings();
  self.ticklabExportJson = () => state.lab.export_json();
  self.ticklabMatrixCsv = () => state.lab.matrix_csv(sortBy.key, sortBy.descending);
  state.entries = state.lab.choices();
  renderHeaders();
  renderContext();
  renderChoice();
  $("settings").addEventListener("submit", runAll);
  $("cancel").addEventListener("click", cancel);
  $("isolate").addEventListener("click", becomeIsolated);
  $("headline-isolate").addEventListener("click", becomeIsolated);
  $("unisolate").addEventListener("click", () => {
    const u = new URL(location.href);
    u.searchParams.delete("isolate");
    location.replace(u);
  });
  $("export-json").addEventListener("click", exportJson);
  $("export-csv").addEventListener("click", exportCsv);
  $("detail-clock").addEventListener("change", renderDetail);
  $("native-file").addEventListener("change", (e) => loadFiles(e.target.files));
  $("export-matrix").addEventListener("click", exportMatrix);
  $("clear-compare").addEventListener("click", () => {
    state.lab.clear_digests();
    opened.clear();
    $("compare-status").replaceChildren();
    renderCompare();
  });
  $("share").addEventListener("click", shareLink);
  startPlayground();
  $("analyze-form").addEventListener("submit", analyzeInput);
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    loadFiles(e.dataTransfer.files);
  });
  drop.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("native-file").click(); }
  });
  renderDetail();
  renderCompare();
  await openLink();
  document.body.dataset.state = "ready";
  fetchNative();
  const params = new URLSearchParams(location.search);
  if (params.has("bench")) runBench();
  else if (params.has("run")) runAll();
}

// ?bench: the page's benchmark figures, measured in the worker, left in body data-bench.
function runBench() {
  document.body.dataset.state = "running";
  status("Measuring the page's benchmark figures…");
  const w = newWorker();
  const timer = setTimeout(() => {
    w.terminate();
    noteError("the benchmark gave no answer in 120 s");
    document.body.dataset.state = "failed";
  }, 120000);
  w.onmessage = (ev) => {
    clearTimeout(timer);
    if (ev.data.kind === "bench") {
      document.body.dataset.bench = JSON.stringify(ev.data.rows);
      status("Benchmark done.");
      document.body.dataset.state = "done";
    } else {
      noteError(ev.data.message);
      document.body.dataset.state = "failed";
    }
  };
  w.postMessage({ kind: "bench", ctx: state.ctx, counter: state.counter ? state.counter.sab : null });
}

main();

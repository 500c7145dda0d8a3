// The full lab, loaded after the first answer: the page's context and clocks, the run (a
// worker, the main thread, sampled clocks), results and their plots, export; Compare
// (compare.js), the analysis and the playground (explore.js) beside it. The science, the
// results and every word and number shown of them are in the wasm module's Lab; these files
// only read the page's clocks, move data and build DOM.
import init, { Lab, Message } from "./pkg/ticklab_www.js";
import { $, becomeIsolated, el, showError, status } from "./page.js";
import { download, labWorker, plot, state } from "./lab-state.js";
import { clearCompare, exportMatrix, fetchNative, loadFiles, openLink, renderCompare, shareLink, sortBy } from "./compare.js";
import { analyzeInput, startPlayground } from "./explore.js";
import { apis, eventDurations, perTask, timeoutChain, watchEvents, workletFrames } from "./implicit.js";

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
  // The count, and whether it is to run (counter.js).
  const sab = new SharedArrayBuffer(8);
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

// The counter set running (once its count moves, within 2 s: else its clock says it did
// not move) while a clock over it is measured, and to sleep otherwise: spinning, it took a
// core from the page's other clocks (and a phone's battery).
async function counterRuns(on) {
  if (!state.counter) return;
  const c = new Int32Array(state.counter.sab);
  Atomics.store(c, 1, on);
  Atomics.notify(c, 1);
  const from = Atomics.load(c, 0), until = performance.now() + 2000;
  while (on && Atomics.load(c, 0) === from && performance.now() < until) await nextTask();
}

function context() {
  return {
    user_agent: navigator.userAgent,
    isolated: !!self.crossOriginIsolated,
    not_secure: self.isSecureContext === false,
    audio_sample_rate: state.audio?.sampleRate ?? null,
    shared_counter: !!state.counter,
    shared_memory: typeof SharedArrayBuffer !== "undefined",
    apis: apis(),
  };
}

function renderContext() {
  const dl = $("context-list");
  dl.replaceChildren();
  const items = [
    ["Browser", navigator.userAgent],
    ["Cross-origin isolated", self.crossOriginIsolated ? "yes" : "no"],
    ["Secure context", self.isSecureContext ? "yes" : "no (plain http from another machine)"],
    ["Logical CPUs (hardwareConcurrency)", String(navigator.hardwareConcurrency || "unknown")],
    ["Page visibility", document.visibilityState + (state.hidden ? " (was hidden during the run)" : "")],
    ["SharedArrayBuffer counter", state.counter ? "ready" : "not available"],
    ["Audio", state.audio ? `${state.audio.sampleRate} Hz, ${state.audio.state}` : "not made yet"],
  ];
  for (const [k, v] of items) {
    dl.append(el("dt", k), el("dd", v));
  }
  const iso = self.crossOriginIsolated;
  $("isolation-text").textContent = state.lab.isolation_note();
  const params = new URLSearchParams(location.search);
  $("isolate").hidden = iso || !("serviceWorker" in navigator);
  $("unisolate").hidden = !params.has("isolate");
}

// ---------- the clock list ----------

function settingsObject() {
  const f = new FormData($("settings"));
  return Object.fromEntries(["tick_s", "overhead_s", "fit_s", "sample_s", "workload"].map((k) => [k, String(f.get(k) ?? "")]));
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

// The lab's workers by name: "worker" spins on real clocks, "simulated" on simulated time
// (its budgets are simulated time, so sharing a core changes none of its figures). Never
// two spinning beside the page's thread on a machine of 4 cores or fewer: on two, a second
// spinning worker starved the page's thread for 381 ms and slowed WebKit's worker's reads
// tenfold.
const workers = {};
const aborts = {};
function newWorker(name = "worker") {
  if (workers[name]) workers[name].terminate();
  return (workers[name] = labWorker());
}

// A run stopped by the visitor: told apart from a failure by its type, not its words.
class Cancelled extends Error {}

// A worker that says nothing for this long is not coming back. (A test of a worker's death
// may shorten the wait, self.ticklabWorkerSilenceMs: the death is under test, not 20 s.)
const WORKER_SILENCE_MS = 20000;

function runInWorker(id, settings, fit, onProgress, extra = {}, name = "worker") {
  return new Promise((resolve, reject) => {
    const w = workers[name] || newWorker(name);
    let timer = null;
    const fail = (why) => {
      clearTimeout(timer);
      // Terminating is the only way to stop a spinning worker at once.
      newWorker(name);
      reject(why instanceof Error ? why : new Error(why));
    };
    const watch = () => {
      clearTimeout(timer);
      const silence = self.ticklabWorkerSilenceMs || WORKER_SILENCE_MS;
      timer = setTimeout(() => fail(`the worker gave no sign of life for ${silence / 1000} s`), silence);
    };
    watch();
    aborts[name] = () => fail(new Cancelled());
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.id !== id) return;
      watch();
      if (m.kind === Message.Progress) onProgress(m.fraction);
      else {
        clearTimeout(timer);
        // A worker whose wasm failed may be left broken: fail() starts a new one.
        if (m.kind === Message.Measured) resolve(m.report);
        else if (m.kind === Message.Counted) resolve(m);
        else fail(m.message);
      }
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      fail(`the worker failed: ${ev.message || "it could not start (are module workers supported?)"}`);
    };
    w.postMessage({ kind: Message.Run, ctx: state.ctx, id, settings, fit, counter: state.counter?.sab, ...extra });
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
async function sample(id, seconds, onProgress, woken) {
  if (id === "audio-worklet.currentFrame") return workletFrames(seconds, woken);
  if (id === "event-timing") return eventDurations(seconds, woken);
  // Frames stop in a hidden tab; the timeout keeps the budget.
  const frame = () => Promise.race([nextFrame(), new Promise((r) => setTimeout(r, 50))]);
  return perTask(id, seconds, id === "rAF" ? frame : nextTask, onProgress);
}

function chosen() {
  const run = new Set([...document.querySelectorAll("[data-run]")].filter((x) => x.checked).map((x) => x.dataset.run));
  const fit = new Set([...document.querySelectorAll("[data-fit]")].filter((x) => x.checked).map((x) => x.dataset.fit));
  return state.entries.filter((e) => run.has(e.id)).map((e) => ({ entry: e, fit: fit.has(e.id) }));
}

// How a clock is measured, by where the catalogue says it runs (`runs_in`): each gives
// the summary rows the Lab returns with the result it keeps, or null when the run was
// cancelled meanwhile. `run` holds the form as checked, the wake-up of Cancel and this
// clock's progress.
// Spun on in the worker of its place's name.
const spun = async (entry, fit, run) =>
  state.lab.add_result(entry.id, await runInWorker(entry.id, run.settings, fit, run.progress, {}, run.worker));
const measureIn = {
  worker: spun,
  simulated: spun,
  main: async (entry, fit, run) => {
    // Let the status paint before the page is busy; a hidden tab paints no frame.
    await Promise.race([nextFrame(), new Promise((r) => setTimeout(r, 50)), run.woken]);
    if (state.cancelled) return null;
    return state.lab.run_here(entry.id, fit, (p) => { run.progress(p.fraction); return state.cancelled; });
  },
  counted: async (entry, fit, run) => {
    const seconds = state.lab.count_s();
    // The messages in the worker, alone; the timeouts on the page's own thread.
    const { times, counts, elapsed } = entry.id === "message-channel"
      ? await runInWorker(entry.id, run.settings, false, run.progress, { kind: Message.Count, seconds })
      : await timeoutChain(seconds);
    if (state.cancelled) return null;
    return state.lab.add_counts(entry.id, new Float64Array(times), new Float64Array(counts), elapsed);
  },
  sampled: async (entry, fit, run) => {
    const { readings, elapsed } = await sample(entry.id, state.lab.sample_s(), run.progress, run.woken);
    if (state.cancelled) return null;
    return state.lab.add_readings(entry.id, new Float64Array(readings), elapsed);
  },
};

// The form checked and the clocks chosen, the page set running: the run's shared state,
// or null (and why, shown) when there is nothing to run.
async function startRun() {
  if (state.running) return null;
  showError("");
  let settings;
  try {
    settings = state.lab.set_settings(settingsObject());
  } catch (e) {
    showError(e.message);
    return null;
  }
  const jobs = chosen();
  if (jobs.length === 0) {
    showError("Choose at least one clock to run.");
    return null;
  }
  // The headline's refinement would spin beside the run: its first look is enough.
  state.stopHeadline();
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
  // Cancel must not wait for anything the run awaits: it resolves this at once.
  const woken = new Promise((r) => { state.wake = r; });
  // Resumed on the click, so autoplay rules let it run; not waited for, as its clocks are
  // sampled seconds later: a run started without a click (?run) may never resume it (in
  // Firefox and WebKit it stayed suspended, and waiting cost each run 0.5 s).
  if (state.audio && state.audio.state !== "running") state.audio.resume().catch(() => {});
  return { settings, jobs, woken, done: 0, t0: performance.now() };
}

// One clock's experiments, its rows shown; false when the run was cancelled.
// Clocks run beside the worker's leave the status line to it (`quiet`); the bar moves
// only forward. `worker`: the worker a spun clock runs in.
async function runJob(run, { entry, fit }, quiet, worker) {
  if (state.cancelled) return false;
  const bar = (f) => { $("progress").value = run.at = Math.max(run.at || 0, (run.done + f) / run.jobs.length); };
  const progress = (f) => bar(Math.min(1, Math.max(0, f)));
  if (!quiet) status(`Measuring ${entry.name}…`);
  const started = performance.now();
  let rows;
  try {
    if (entry.counter) await counterRuns(1);
    rows = await measureIn[entry.runs_in](entry, fit, { ...run, progress, worker });
    if (rows === null) return false;
  } catch (e) {
    if (state.cancelled || e instanceof Cancelled) return false;
    rows = state.lab.add_failure(entry.id, String(e.message || e));
  } finally {
    if (entry.counter) counterRuns(0);
  }
  state.measured += 1;
  (self.ticklabTimes.clocks ||= {})[entry.id] = performance.now() - started;
  run.done += 1;
  bar(0);
  renderSummary(rows);
  self.ticklabTimes.firstResultMs ??= performance.now();
  return true;
}

async function runAll(ev) {
  if (ev) ev.preventDefault();
  const run = await startRun();
  if (!run) return;
  const runsIn = (place) => run.jobs.filter((j) => j.entry.runs_in === place);
  const spin = async (place, quiet, worker = place) => {
    for (const job of runsIn(place)) {
      if (!(await runJob(run, job, quiet, worker))) break;
    }
  };
  // The simulated clocks' budgets are simulated time, so sharing a core changes none of
  // their figures: in a worker of their own, beside the real clocks where cores are to
  // spare (WebKit says 4 on two), else once those are done, beside the page's own thread
  // and its sampling (one spinning worker, as during the real clocks).
  const real = spin("worker");
  const simulated = Promise.resolve(navigator.hardwareConcurrency > 4 || real).then(() => spin("simulated", 1));
  await real;
  // The page's own thread, spun on after the real clocks: it freezes the page (Cancel waits
  // for it).
  await spin("main");
  // Whether the audio clocks' context is suspended, said as they are sampled.
  state.lab.set_audio_suspended(!!state.audio && state.audio.state === "suspended");
  // The clocks the page samples wait on frames and tasks, not on one another: read together,
  // they take one sampling budget, not one each. Not beside the real clocks: their results,
  // drawn as they came in together, held the page 250 ms early in a run, where Cancel
  // must be answered at once.
  await Promise.all(runsIn("sampled").map((job) => runJob(run, job)));
  // Counts of messages and timeouts are as fast as the thread they wait on is free: after
  // the sampling (beside it, a setTimeout chain ran 4.1 to 7.8 ms a step, alone 4.0), beside
  // the simulated clocks' worker, which holds neither thread.
  if (!state.cancelled) {
    status("Counting messages and timeouts…");
    await Promise.all(runsIn("counted").map((job) => runJob(run, job)));
  }
  await simulated;
  finish(run.t0);
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
  if (state.toClass && state.hasReport && !state.cancelled) state.toClass();
}

function cancel() {
  self.ticklabTimes.cancelAt = performance.now();
  state.cancelled = true;
  if (state.wake) state.wake();
  for (const abort of Object.values(aborts)) abort();
  status("Cancelling…");
}

// ---------- results ----------

function renderSummary(rows = state.lab.rows()) {
  const body = $("summary").querySelector("tbody");
  body.replaceChildren();
  for (const { id, row } of rows) {
    const tr = el("tr", null, { "data-clock": id });
    if (row.tick_ns != null) tr.dataset.tickNs = String(row.tick_ns);
    if (row.grid) tr.dataset.grid = row.grid;
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
  $("ranking").textContent = state.lab.ranking() ?? "";
}

function renderDetailChoice() {
  const sel = $("detail-clock");
  const keep = sel.value;
  sel.replaceChildren();
  for (const [id, name] of state.lab.detail_choices()) sel.append(el("option", name, { value: id }));
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  renderDetail();
}



function renderDetail() {
  const id = $("detail-clock").value;
  const d = id && state.lab.detail(id);
  for (const k of ["tick", "overhead", "fit"]) {
    $(`${k}-detail`).hidden = !d?.[k];
    if (d?.[k]) $(`${k}-text`).textContent = d[k];
  }
  if (!d) return;
  // Each canvas plot-V shows view V when the Lab says this clock has it: a new view is its
  // plot and its figure in index.html, nothing here.
  for (const c of $("details").querySelectorAll("canvas[id^='plot-']")) {
    const v = c.id.slice(5);
    c.closest("figure").hidden = !d.views.includes(v);
    if (d.views.includes(v)) plot(c.id, id, v);
  }
}

// ---------- export ----------


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

// ---------- start ----------

// `wasm`: the response of the lab's wasm when the page has fetched it already.
export async function start({ wasm, stopHeadline, takeOver, runAsked }) {
  state.stopHeadline = stopHeadline;
  try {
    state.module = await WebAssembly.compileStreaming(wasm ?? fetch(new URL("./pkg/ticklab_www_bg.wasm", import.meta.url)));
    await init({ module_or_path: state.module });
  } catch (e) {
    showError(`The lab could not load its WebAssembly module: ${e.message || e}`);
    document.body.dataset.state = "failed";
    return;
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
  watchEvents();
  renderHeaders();
  renderContext();
  renderChoice();
  takeOver();
  $("settings").addEventListener("submit", runAll);
  $("cancel").addEventListener("click", cancel);
  $("isolate").addEventListener("click", becomeIsolated);
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
  $("clear-compare").addEventListener("click", clearCompare);
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
  renderDetail();
  renderCompare();
  const params = new URLSearchParams(location.search);
  const code = params.get("class");
  if (code) {
    try {
      state.toClass = (await import("./class.js")).join(code);
    } catch {
      showError("This link is for a class, but no class server serves this page: the run stays here.");
    }
  }
  await openLink();
  document.body.dataset.state = "ready";
  fetchNative();
  if (params.has("bench")) (await import("./bench.js")).runBench(counterRuns);
  else if (params.has("run") || runAsked()) runAll();
}

// Timings measured elsewhere, analysed as `ticklab analyze` does, and the playground: a
// simulated clock whose knobs the visitor turns.
import { $, el } from "./page.js";
import { labWorker, plot, sizeCanvas, state } from "./lab-state.js";
import { Message } from "./pkg/ticklab_www.js";

export async function analyzeInput(ev) {
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
    const a = state.lab.analyze(bytes, name, $("analyze-unit").value, $("analyze-as").value);
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
    // Each canvas an-V shows view V (index.html's figures are the list).
    for (const c of box.querySelectorAll("canvas[id^='an-']")) {
      sizeCanvas(c);
      try { state.lab.draw_analysis(c, c.id.slice(3)); c.hidden = false; } catch { c.hidden = true; }
    }
    if (a.tick_ns != null) box.dataset.tickNs = String(a.tick_ns);
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
    play.worker = labWorker();
    play.worker.onerror = (ev) => { ev.preventDefault(); $("play-text").textContent = "the worker could not start"; };
  }
  play.worker.onmessage = (ev) => {
    play.busy = false;
    if (ev.data.kind === Message.Played) {
      const d = state.lab.add_play(ev.data.report);
      $("play-text").textContent = [d.tick, d.fit].filter(Boolean).join(" ");
      for (const c of $("playground").querySelectorAll("canvas[id^='play-']")) plot(c.id, "playground", c.id.slice(5));
      const ms = performance.now() - t0;
      (self.ticklabTimes.play ||= []).push(ms);
      $("playground").dataset.redrawMs = String(ms);
    } else {
      $("play-text").textContent = ev.data.message;
    }
    if (play.pending !== null) runPlay();
  };
  play.worker.postMessage({ kind: Message.Play, knobs: knobs() });
}

export function startPlayground() {
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

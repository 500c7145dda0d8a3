// The teacher's view of a class (class.html, served by `ticklab class` and `ticklab hub`): every run set in
// the Compare matrix as it arrives (the server's stream of events, which a reconnection
// resumes from the last event's id), the class's performance.now ticks as the server plots
// them, who has sent, and the class's controls. The key comes in the URL's fragment, which
// no browser sends: every request carries it in a header instead.
import init, { Lab } from "./pkg/ticklab_www.js";
import { $, el, noteError, showError } from "./page.js";
import { download, state } from "./lab-state.js";
import { exportMatrix, renderCompare } from "./compare.js";

const fragment = new URLSearchParams(location.hash.slice(1));
const key = fragment.get("key") || "";
// On a hub, the class the key is for (`ticklab class` has one class and needs none).
const classCode = fragment.get("class") || "";
const rows = new Map(); // student id -> { nickname, received_ms, digest }
const view = { code: "", closed: false, most: 0, last: "", hub: false, added: false };
let redraw = 0;
let plotUrl = "";

async function call(path, options = {}) {
  const r = await fetch(path, {
    ...options,
    cache: "no-store",
    headers: { Authorization: `Bearer ${key}`, ...(classCode ? { "X-Ticklab-Class": classCode } : {}), ...(options.headers || {}) },
  });
  if (!r.ok) {
    const why = await r.json().catch(() => ({}));
    const e = new Error(why.error || `${r.status} ${r.statusText}`);
    e.status = r.status;
    throw e;
  }
  return r;
}

async function showPlot(tries = 3) {
  try {
    const n = rows.size;
    const r = await call("class/plot.svg");
    // The server says the plot in words, for whoever cannot see it.
    $("class-plot").alt = decodeURIComponent(r.headers.get("x-ticklab-alt") || "") || $("class-plot").alt;
    const blob = await r.blob();
    if (plotUrl) URL.revokeObjectURL(plotUrl);
    plotUrl = URL.createObjectURL(blob);
    $("class-plot").src = plotUrl;
    document.body.dataset.plotted = String(n);
  } catch (e) {
    // A connection lost with the stream (a proxy gone silent, then back) fails a fetch or
    // two: asked again a second later before it counts as an error.
    if (tries > 1 && !e.status) setTimeout(() => showPlot(tries - 1), 1000);
    else noteError(`plot: ${e.message}`);
  }
}

function renderWho() {
  const list = $("who-list");
  list.replaceChildren(...[...rows].map(([student, r]) => {
    const li = el("li", null, { "data-student": student });
    li.append(el("span", r.digest.from, { class: "name" }), " ", el("span", r.sender), " ");
    const b = el("button", "Remove", { type: "button" });
    b.onclick = () => call("class/remove", { method: "POST", body: JSON.stringify({ student }) }).catch((e) => showError(`Not removed: ${e.message}`));
    li.append(b);
    return li;
  }));
  const n = rows.size;
  $("class-summary").textContent = `Class ${view.code}: ${n} ${n === 1 ? "student has" : "students have"} sent a run${view.closed ? "; closed to new runs" : ""}.`;
  $("close-class").disabled = view.closed;
  // On a hub, a closed class may go to the atlas, each run counted for its own sender.
  $("atlas-class").hidden = !view.hub;
  if (!view.added) $("atlas-class").disabled = !view.closed;
  document.body.dataset.rows = String(n);
}

// When each student's latest run reached the screen (Date.now()), for the benchmark.
const shown = {};
self.ticklabShown = shown;
const arrived = new Set();

// Runs arriving together are drawn together, at the next frame; the plot, which the server
// draws, a second after the last of them.
function changed(student) {
  if (student) arrived.add(student);
  clearTimeout(changed.plot);
  changed.plot = setTimeout(showPlot, 1000);
  if (redraw) return;
  redraw = requestAnimationFrame(() => {
    redraw = 0;
    renderWho();
    renderCompare();
    const now = Date.now();
    for (const s of arrived) shown[s] = now;
    arrived.clear();
    document.body.dataset.shown = view.last;
  });
}

function rebuild() {
  state.lab.clear_digests();
  for (const r of rows.values()) state.lab.add_digest(r.digest);
}

// The server says something at least this often (its keep-alive, KEEP_ALIVE on the
// server): silence for twice as long is a connection that died without closing.
const KEEP_ALIVE_MS = 15000;
// How long to wait before asking again, until the server's `retry:` says otherwise.
let retryMs = 1000;

// The stream read as the WHATWG event-stream rules say: lines end in CRLF, LF or CR (a
// CR may end one chunk and its LF start the next); "field: value" with one space after
// the colon dropped; data lines joined by "\n"; a line starting ":" is a comment (the
// server's keep-alive); a blank line dispatches, and sets the last event id even with no
// data; `retry:` of digits sets the reconnection time.
function eventStream(dispatch) {
  let buf = "";
  let skipLF = false;
  let data = [];
  let kind = "";
  let id = view.last;
  const line = (l) => {
    if (l === "") {
      view.last = id;
      if (data.length) dispatch(kind || "message", data.join("\n"));
      data = [];
      kind = "";
      return;
    }
    if (l[0] === ":") return;
    const at = l.indexOf(":");
    const field = at < 0 ? l : l.slice(0, at);
    let value = at < 0 ? "" : l.slice(at + 1);
    if (value[0] === " ") value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") kind = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^[0-9]+$/.test(value)) retryMs = Number(value);
  };
  return (chunk) => {
    if (skipLF && chunk[0] === "\n") chunk = chunk.slice(1);
    skipLF = false;
    buf += chunk;
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i];
      if (c !== "\n" && c !== "\r") continue;
      line(buf.slice(start, i));
      if (c === "\r") {
        if (i + 1 === buf.length) skipLF = true;
        else if (buf[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    buf = buf.slice(start);
  };
}

function handle(kind, data) {
  const m = JSON.parse(data);
  if (kind === "class") {
    Object.assign(view, { code: m.code, closed: m.closed, most: m.most, hub: !!m.hub });
    $("join-url").textContent = m.join[0] || "";
    if (m.hub) $("hub-note").textContent = `This class takes runs for ${m.hub.open_hours} hours from when it started, or until you close it; its runs are deleted ${m.hub.kept_days} days after it closes. Keep this page's address: its key runs the class.`;
  } else if (kind === "put") {
    // The lab keeps a row per name, and a student's name is theirs (the server's digest of
    // their id): a resend under a new nickname drops the old name's row with it.
    const before = rows.get(m.student);
    rows.delete(m.student); // a resend moves to the end, as the server orders them
    rows.set(m.student, m);
    try {
      if (before && before.digest.from !== m.digest.from) rebuild();
      else state.lab.add_digest(m.digest);
    } catch (e) {
      noteError(`a row the lab refused: ${e.message}`);
    }
  } else if (kind === "remove") {
    rows.delete(m.student);
    rebuild();
  } else if (kind === "close") {
    view.closed = true;
  }
  changed(kind === "put" ? m.student : null);
}

async function follow() {
  for (;;) {
    const abort = new AbortController();
    let silent = 0;
    const watch = () => {
      clearTimeout(silent);
      silent = setTimeout(() => abort.abort(), 2 * KEEP_ALIVE_MS);
    };
    try {
      watch();
      const r = await call("class/events", { signal: abort.signal, headers: view.last ? { "Last-Event-ID": view.last } : {} });
      $("live").textContent = "Live: runs appear as they arrive.";
      document.body.dataset.live = "yes";
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      const feed = eventStream(handle);
      for (;;) {
        watch();
        const { done, value } = await reader.read();
        if (done) break;
        feed(value);
      }
    } catch (e) {
      if (e.status === 403 || e.status === 404) {
        clearTimeout(silent);
        showError(e.status === 403
          ? `${e.message}. Open the teacher's URL that ticklab class printed${classCode ? ", or the class from the hub's page in the browser that started it" : ""}.`
          : "This server runs no class: start one with ticklab class.");
        document.body.dataset.state = "failed";
        return;
      }
    } finally {
      clearTimeout(silent);
    }
    document.body.dataset.live = "reconnecting";
    $("live").textContent = "Reconnecting: the class's server went silent or away; runs sent meanwhile appear once it answers.";
    await new Promise((r) => setTimeout(r, retryMs));
  }
}

async function main() {
  if (!key) {
    showError("This view needs the teacher's key: open the teacher's URL that ticklab class printed.");
    document.body.dataset.state = "failed";
    return;
  }
  await init();
  state.lab = new Lab({ user_agent: navigator.userAgent, isolated: !!self.crossOriginIsolated });
  state.columns = state.lab.columns();
  $("export-matrix").addEventListener("click", exportMatrix);
  $("export-rows").addEventListener("click", async () => {
    try {
      download(`ticklab-class-${view.code}.json`, await (await call("class/rows.json")).text(), "application/json");
    } catch (e) {
      showError(`Export failed: ${e.message}`);
    }
  });
  $("close-class").addEventListener("click", () => call("class/close", { method: "POST" }).catch((e) => showError(`Not closed: ${e.message}`)));
  $("atlas-class").addEventListener("click", async () => {
    $("atlas-class").disabled = true;
    try {
      const a = await (await call("class/atlas", { method: "POST" })).json();
      view.added = true;
      $("atlas-class-status").textContent = `Added to the atlas: ${a.counted} runs counted, ${a.not_counted} not (a sender counts once a cell a day).`;
      document.body.dataset.atlas = "added";
    } catch (e) {
      $("atlas-class-status").textContent = `Not added: ${e.message}`;
      view.added = e.status === 409 && /already/.test(e.message);
      $("atlas-class").disabled = view.added;
    }
  });
  call("class/join.svg").then((r) => r.blob()).then((b) => { $("join-qr").src = URL.createObjectURL(b); }).catch(() => {});
  renderCompare();
  showPlot();
  document.body.dataset.state = "ready";
  follow();
}

main().catch((e) => {
  showError(`The class view could not start: ${e.message || e}`);
  document.body.dataset.state = "failed";
});

// Compare: a class's reports side by side (read into digests in a worker of their own),
// the server's own report, and a result link.
import { $, el, showError } from "./page.js";
import { download, labWorker, state } from "./lab-state.js";
import { Message } from "./pkg/ticklab_www.js";

const NATIVE_REPORT = "native/report.json";

// Reports go to a worker of their own, which reads them and hands back digests: thirty
// students' files never hold up the page.
function digestInWorker(items) {
  return new Promise((resolve) => {
    const w = labWorker();
    const done = (out) => { w.terminate(); resolve(out); };
    w.onmessage = (ev) => done(ev.data.kind === Message.Digested ? ev.data.out
      : items.map(({ name }) => ({ name, error: ev.data.message })));
    w.onerror = (ev) => { ev.preventDefault(); done(items.map(({ name }) => ({ name, error: "the worker could not start" }))); };
    w.postMessage({ kind: Message.Digests, items });
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

export const loadFiles = (files) => loadReports([...files].map((f) => ({ name: f.name, blob: f })));

export async function fetchNative() {
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

// Finest first.
export const sortBy = { key: "tick", descending: false };

// A class of 60 is 60 rows a clock, over a thousand in all, which held the page a quarter
// of a second to lay out at once: past ROWS_AT_ONCE rows, each clock shows its first
// GROUP_ROWS (in the chosen order) until asked for the rest.
const ROWS_AT_ONCE = 400;
const GROUP_ROWS = 10;
const opened = new Set();

export function renderCompare() {
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

export function exportMatrix() {
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

export async function shareLink() {
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

export async function openLink() {
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

export function clearCompare() {
  state.lab.clear_digests();
  opened.clear();
  $("compare-status").replaceChildren();
  renderCompare();
}

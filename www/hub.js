// "Start a class", on a hub (`ticklab hub` answers hub/terms; a static host does not,
// nor does `ticklab serve`, and the section stays hidden): the hub makes the class, this browser
// keeps its teacher's key (localStorage, never sent anywhere but this hub), and the
// teacher's view opens with the join URL and its QR code.
import { $, el } from "./page.js";
import { state } from "./lab-state.js";

const MINE = "ticklab-hub-classes";

function mine() {
  try {
    const list = JSON.parse(localStorage.getItem(MINE) || "[]");
    return Array.isArray(list) ? list.filter((c) => c && c.code && c.key && c.teacher) : [];
  } catch {
    return [];
  }
}

function keep(made) {
  const list = [{ code: made.code, key: made.key, teacher: made.teacher, started: Date.now() }, ...mine()];
  try {
    localStorage.setItem(MINE, JSON.stringify(list.slice(0, 200)));
  } catch {
    // A browser that keeps nothing still has the teacher's URL it is sent to.
  }
}

// A class is listed as long as the hub keeps its runs: open for its hours, then kept
// for its days after it closes.
function showMine(terms) {
  const kept = terms.open_hours * 3600e3 + terms.kept_days * 86400e3;
  const recent = mine().filter((c) => Date.now() - c.started < kept);
  $("hub-mine").replaceChildren(...recent.map((c) => {
    const li = el("li");
    li.append(el("a", `Class ${c.code}`, { href: c.teacher }), ` started ${new Date(c.started).toLocaleString()}`);
    return li;
  }));
  $("hub-mine-h").hidden = recent.length === 0;
}

// After a run, what would go to the atlas, shown as the exact body sent; sent only on the
// click. The hub keeps of it only what the atlas's cells need (the answer says what).
function offerAtlas() {
  const show = () => {
    if (document.body.dataset.state !== "done" || !state.hasReport) return;
    let body;
    try {
      body = `{"digest":${state.lab.share()}}`;
    } catch {
      return;
    }
    $("atlas-body").textContent = body;
    $("atlas-add").disabled = false;
    $("atlas-offer").hidden = false;
  };
  new MutationObserver(show).observe(document.body, { attributes: true, attributeFilter: ["data-state"] });
  show();
  $("atlas-add").addEventListener("click", async () => {
    $("atlas-add").disabled = true;
    $("atlas-status").textContent = "Sending…";
    try {
      const r = await fetch("atlas/runs", {
        method: "POST",
        cache: "no-store",
        headers: { "Content-Type": "application/json" },
        body: $("atlas-body").textContent,
      });
      const answer = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(answer.error || `${r.status} ${r.statusText}`);
      const line = answer.counted ? `Added to the atlas: ${answer.cell}. ` : `Not counted: ${answer.why}. `;
      $("atlas-status").replaceChildren(line, el("a", "See it in the atlas", { href: answer.atlas }));
      document.body.dataset.atlas = answer.counted ? "counted" : "not-counted";
    } catch (e) {
      $("atlas-status").textContent = `Not sent: ${e.message || e}`;
      $("atlas-add").disabled = false;
      document.body.dataset.atlas = "failed";
    }
  });
}

export async function offer() {
  const r = await fetch("hub/terms", { cache: "no-store" }).catch(() => null);
  if (!r || !r.ok) return;
  const terms = await r.json().catch(() => null);
  if (!terms || typeof terms.open_hours !== "number") return;
  $("hub-terms").textContent = `A class takes runs for ${terms.open_hours} hours, or until you close it; its runs are deleted ${terms.kept_days} days after it closes. Students are known only by the nickname they choose, if any.`;
  showMine(terms);
  $("hub").hidden = false;
  document.body.dataset.hub = "yes";
  offerAtlas();
  $("hub-start").addEventListener("click", async () => {
    $("hub-start").disabled = true;
    $("hub-status").textContent = "Starting a class…";
    try {
      const made = await fetch("hub/classes", {
        method: "POST",
        cache: "no-store",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      });
      const answer = await made.json().catch(() => ({}));
      if (!made.ok) throw new Error(answer.error || `${made.status} ${made.statusText}`);
      keep(answer);
      location.href = answer.teacher;
    } catch (e) {
      $("hub-status").textContent = `No class started: ${e.message || e}`;
      $("hub-start").disabled = false;
    }
  });
}

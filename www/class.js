// A student's side of a class, loaded when the page's URL says ?class=CODE (only the
// ticklab class command serves this file): after the full run, the run's digest (what Compare shows, no
// samples) goes to the class with an optional nickname; sending again replaces this
// browser's row, which a random id kept by the browser names.
import { $ } from "./page.js";
import { state } from "./lab-state.js";

const ID_KEY = "ticklab-student";
let memoryId = "";

// crypto.randomUUID needs a secure context, which a class's plain-http page is not.
function newId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function studentId() {
  try {
    let id = localStorage.getItem(ID_KEY);
    if (!id) {
      id = newId();
      localStorage.setItem(ID_KEY, id);
    }
    return id;
  } catch {
    memoryId ||= newId();
    return memoryId;
  }
}

export function join(code) {
  const say = (text, how) => {
    $("class-status").textContent = text;
    document.body.dataset.class = how;
  };
  const send = async () => {
    if (!state.hasReport) return;
    $("class-send").disabled = true;
    say("Sending your run…", "sending");
    try {
      const body = `{"code":${JSON.stringify(code)},"student":"${studentId()}","nickname":${JSON.stringify($("class-nickname").value)},"digest":${state.lab.share()}}`;
      const r = await fetch("class/runs", { method: "POST", headers: { "Content-Type": "application/json" }, body });
      const answer = await r.json().catch(() => ({}));
      if (r.ok) say(`Arrived: your teacher's screen shows it as “${answer.name}”. Sending again replaces it.`, "sent");
      else say(`Not sent (${r.status}): ${answer.error || r.statusText}`, "refused");
    } catch (e) {
      say(`Not sent: ${e.message || e}. Is the class's server still running?`, "failed");
    }
    $("class-send").disabled = false;
  };
  $("class").hidden = false;
  $("class-line").textContent = `Class ${code}: run the lab below; when the run finishes, it goes to your teacher.`;
  $("class-form").addEventListener("submit", (e) => { e.preventDefault(); send(); });
  return send;
}

// The first answer's worker: performance.now's tick measured by the small first module,
// which holds nothing else, so it arrives and answers before the full lab has loaded.
// One ask ({user_agent, isolated, pass}), one answer: {kind: "headline"} or {kind: "failed"}.
import init, { headline } from "./pkg/ticklab_first.js";

const ready = init();

self.onmessage = async (ev) => {
  const { user_agent, isolated, pass } = ev.data;
  try {
    await ready;
    self.postMessage({ kind: "headline", headline: headline(user_agent, isolated, pass) });
  } catch (e) {
    self.postMessage({ kind: "failed", message: String(e && e.message ? e.message : e) });
  }
};

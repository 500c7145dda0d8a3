// The first answer's worker: performance.now's tick measured by the small first module,
// which holds nothing else, so it arrives and answers before the full lab has loaded.
// One ask ({user_agent, isolated, pass, module}: the module compiled by the page, which
// fetched it), one answer: {kind: "headline"} or {kind: "failed"}.
import init, { headline } from "./pkg/ticklab_first.js";

let ready = null;

self.onmessage = async (ev) => {
  const { user_agent, isolated, pass, module } = ev.data;
  try {
    ready ??= init({ module_or_path: module });
    await ready;
    self.postMessage({ kind: "headline", headline: headline(user_agent, isolated, pass) });
  } catch (e) {
    self.postMessage({ kind: "failed", message: String(e && e.message ? e.message : e) });
  }
};

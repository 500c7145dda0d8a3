// What every part of the page shares: element lookup and making, the status and error
// lines, the record of errors and times the tests and the benchmark read, and the way to
// become cross-origin isolated through the service worker.

export const $ = (id) => document.getElementById(id);

// Every error the page meets, for the reader and for the end-to-end tests.
const pageErrors = [];
self.ticklabErrors = pageErrors;
// When the first answer and the first result reached the screen and how long the run took,
// in ms, for the benchmark (`cargo xtask bench`).
self.ticklabTimes = {};
export function noteError(msg) {
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

export function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

export function showError(msg) {
  $("error").textContent = msg || "";
}

export function status(msg) {
  $("status").textContent = msg;
}

export async function becomeIsolated() {
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

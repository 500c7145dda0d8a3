// The clocks a page builds from APIs never meant as clocks (Schwarz et al., "Fantastic
// Timers"; Rokicki et al., "SoK: In Search of Lost Time"): the animation timeline, a CSS
// animation read back, an AudioWorklet's frame count, Event Timing's durations, and counts
// of messages and timeouts. This file only reads them; the Lab finds their ticks.
import { state } from "./lab-state.js";
import { countAgainstNow } from "./counting.js";

// Which of their APIs this browser has: the Lab gives a reason for each one missing.
export function apis() {
  const types = (self.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  return {
    timeline: !!(document.timeline && "currentTime" in document.timeline),
    css_animation: typeof getComputedStyle === "function" && !!self.CSS && CSS.supports("animation-name", "a"),
    audio_worklet: typeof self.AudioWorkletNode === "function" && !!(state.audio && state.audio.audioWorklet),
    event_timing: types.includes("event"),
  };
}

// Event Timing reports input events as they end: watched from the lab's start, so the
// durations of every click and key before a run are there when it asks.
const durations = new Map();
export function watchEvents() {
  if (!apis().event_timing) return;
  const keep = (list) => {
    // One event may come as "first-input" and as "event": kept once.
    for (const e of list.getEntries()) durations.set(`${e.name}@${e.startTime}`, e.duration);
  };
  new PerformanceObserver(keep).observe({ type: "event", durationThreshold: 16, buffered: true });
  new PerformanceObserver(keep).observe({ type: "first-input", buffered: true });
}

// A promise resolved after `ms`, or at once when the run is cancelled.
function pause(ms, woken) {
  return Promise.race([new Promise((r) => setTimeout(r, ms)), woken]);
}

// An element whose text-indent a CSS animation carries from 0 to 1 000 000 px over 1000 s
// (style.css): its computed text-indent in px is the time in ms since it began.
function cssClock() {
  const e = document.createElement("div");
  e.className = "css-clock";
  e.setAttribute("aria-hidden", "true");
  document.body.append(e);
  return e;
}

// Readings in the clock's raw unit, each taken after `wait` (a task, or a frame: rAF reads its
// timestamp), for `seconds`.
export async function perTask(id, seconds, wait, onProgress) {
  let css = null;
  const read = {
    "rAF": (frame) => frame,
    "timeline.currentTime": () => document.timeline.currentTime,
    "css-animation": () => parseFloat(getComputedStyle(css).textIndent),
    "audio.currentTime": () => state.audio.currentTime,
    "audio.contextTime": () => state.audio.getOutputTimestamp().contextTime,
    "audio.performanceTime": () => state.audio.getOutputTimestamp().performanceTime,
  }[id];
  if (id === "css-animation") css = cssClock();
  const readings = [];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  try {
    while (performance.now() < end && !state.cancelled) {
      const v = read(await wait());
      if (typeof v === "number" && v === v) readings.push(v);
      if (readings.length % 64 === 0) onProgress((performance.now() - t0) / (end - t0));
    }
  } finally {
    if (css) css.remove();
  }
  return { readings, elapsed: (performance.now() - t0) / 1000 };
}

// The AudioWorklet's currentFrame, posted at each render quantum while it plays silence.
export async function workletFrames(seconds, woken) {
  const audio = state.audio;
  state.worklet ||= audio.audioWorklet.addModule(new URL("./audio-clock.js", import.meta.url));
  await state.worklet;
  const node = new AudioWorkletNode(audio, "ticklab-clock", { numberOfInputs: 0, numberOfOutputs: 1 });
  const readings = [];
  node.port.onmessage = (e) => readings.push(e.data);
  const t0 = performance.now();
  node.connect(audio.destination);
  await pause(seconds * 1000, woken);
  node.disconnect();
  node.port.onmessage = null;
  node.port.close();
  return { readings, elapsed: (performance.now() - t0) / 1000 };
}

// Event Timing's durations so far, after one sampling time more to gather them.
export async function eventDurations(seconds, woken) {
  const t0 = performance.now();
  await pause(seconds * 1000, woken);
  return { readings: [...durations.values()], elapsed: (performance.now() - t0) / 1000 };
}

// A chain of setTimeout(0): after five levels, HTML makes each wait at least 4 ms.
export const timeoutChain = (seconds) =>
  countAgainstNow(seconds, (f) => setTimeout(f, 0), () => state.cancelled);

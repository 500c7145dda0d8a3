// The lab's worker: spins on clocks so the page never freezes. It speaks the wasm module's
// `Message` protocol: one ask in (a clock to run, the playground, files to read for
// Compare, a MessageChannel's messages to count, the page's figures for ?bench), progress
// and one answer out. The wasm's `answer` does all but the counting, whose messages are
// JavaScript events.
import init, { answer, Message } from "./pkg/ticklab_www.js";
import { pingPong } from "./counting.js";

let ready;
const post = (m) => self.postMessage(m);

self.onmessage = async (ev) => {
  const ask = ev.data;
  // The page's compiled module comes first.
  if (ask.module) return void (ready = init({ module_or_path: ask.module }));
  try {
    await ready;
    if (ask.kind === Message.Count) {
      // Alone in this worker, the messages wait on nothing but each other.
      post({ kind: Message.Counted, id: ask.id, ...(await pingPong(ask.seconds, () => false)) });
    } else {
      answer(ask, post);
    }
  } catch (e) {
    post({ kind: Message.Failed, id: ask.id, message: String(e && e.message ? e.message : e) });
  }
};

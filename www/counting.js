// Clocks made of counts: a count kept by events (messages, timeouts), read with
// performance.now at each of its edges, so the Lab can calibrate its rate. No imports: the
// page and its worker both count with it.

// `arm(f)` makes one event call `f` later; each call counts one and arms the next, until
// `seconds` have passed or `stopped()`. The pairs (time, count) are taken whenever
// performance.now has moved.
export function countAgainstNow(seconds, arm, stopped) {
  return new Promise((resolve) => {
    const times = [];
    const counts = [];
    let n = 0;
    let last = -1;
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    const step = () => {
      n += 1;
      const t = performance.now();
      if (t !== last) {
        times.push(t);
        counts.push(n);
        last = t;
      }
      if (t < end && !stopped()) arm(step);
      else resolve({ times, counts, elapsed: (t - t0) / 1000 });
    };
    arm(step);
  });
}

// One message bounced between the two ports of a MessageChannel: a count per round trip.
export function pingPong(seconds, stopped) {
  const ch = new MessageChannel();
  let next = null;
  ch.port2.onmessage = () => ch.port2.postMessage(0);
  ch.port1.onmessage = () => next();
  return countAgainstNow(seconds, (f) => {
    next = f;
    ch.port1.postMessage(0);
  }, stopped).finally(() => {
    ch.port1.close();
    ch.port2.close();
  });
}

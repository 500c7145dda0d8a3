// The AudioWorklet processor behind the page's "AudioWorklet currentFrame" clock: at each
// render quantum it posts the audio thread's own count of sample frames, and plays silence.
registerProcessor("ticklab-clock", class extends AudioWorkletProcessor {
  process() {
    this.port.postMessage(currentFrame);
    return true;
  }
});

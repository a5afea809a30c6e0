// www/js/worker-host.js: one simulator Web Worker that can be replaced. After a trap (the module ran
// out of memory or panicked) its wasm instance is unusable, so the page terminates it and starts a
// fresh worker with a fresh module; `ready` resolves again once the new one has booted.

export class WorkerHost {
  /**
   * url: the worker script; onMessage(msg) gets every message but 'ready' and 'fatal', which go to
   * onReady(msg) and onFatal(message).
   */
  constructor(url, { onMessage, onReady = () => {}, onFatal = () => {} }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onReady = onReady;
    this.onFatal = onFatal;
    this.generation = 0;
    this.replacements = 0;
    this.start();
  }

  start() {
    const gen = ++this.generation;
    this.ready = new Promise((resolve) => { this.resolveReady = resolve; });
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.onmessage = (e) => {
      if (gen !== this.generation) return; // a message from a worker already replaced
      const msg = e.data;
      if (msg.type === 'ready') { this.resolveReady(msg); this.onReady(msg); return; }
      if (msg.type === 'fatal') { this.onFatal(msg.message); return; }
      this.onMessage(msg);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (gen === this.generation) this.onFatal(`the worker script failed to load (${e.message || 'is www/pkg/ built? run `cargo xtask build`'})`);
    };
  }

  post(msg) { this.worker.postMessage(msg); }

  /** Drops the broken worker and boots a fresh one; resolves with its 'ready' message. */
  replace() {
    this.worker.terminate();
    this.replacements += 1;
    this.start();
    return this.ready;
  }

  terminate() { this.generation += 1; this.worker.terminate(); }
}

// www/js/worker-host.js: one simulator Web Worker that can be replaced. After a trap (the module ran
// out of memory or panicked) its wasm instance is unusable, so the page terminates it and starts a
// fresh worker with a fresh module; `ready` resolves again once the new one has booted.

export class WorkerHost {
  /**
   * url: the worker script; onMessage(msg) gets every message but 'ready' and 'fatal', which go to
   * onReady(msg) and onFatal(message).
   */
  constructor(url, { onMessage, onReady = () => {}, onFatal = () => {}, adopt = false }) {
    this.url = url;
    this.adopt = adopt; // take over the worker boot.js started for this url, if there is one
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
    const early = this.adopted();
    this.worker = early ? early.worker : new Worker(this.url, { type: 'module' });
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
    // What the early worker said before these handlers existed, in the order it said it: in a
    // microtask, after the constructor has returned (onReady may use the host), before any later
    // message (those arrive as tasks).
    if (early) {
      queueMicrotask(() => {
        for (const e of early.events) (e.type === 'error' ? this.worker.onerror : this.worker.onmessage)(e);
      });
    }
  }

  /** boot.js's worker, once, if this host adopts and it runs the same script. */
  adopted() {
    const boot = window.__kvfleetBoot;
    if (!this.adopt || !boot || boot.url !== new URL(this.url, location.href).href) return null;
    window.__kvfleetBoot = null;
    return boot;
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

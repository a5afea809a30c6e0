// www/js/worker-host.js: one simulator Web Worker that can be replaced. After a trap (the module ran
// out of memory or panicked) its wasm instance is unusable, so the page terminates it and starts a
// fresh worker with a fresh module; `ready` resolves again once the new one has booted.

import { afterPress } from './press.js';

// Set once a worker from a blob: URL has been refused: later workers start from their scripts.
let blobRefused = false;

/**
 * A module worker running `url`, started from a one-line module in memory that imports it, with
 * `viaBlob` saying so. Chromium fetches a worker's own script at a low priority, after everything
 * the page is loading (100 to 300 ms on a cold load); a module the worker imports is fetched at
 * once. A plain worker if the browser refuses the in-memory module at once.
 */
export function startModuleWorker(url) {
  const href = new URL(url, location.href).href;
  if (blobRefused) return { worker: new Worker(href, { type: 'module' }), viaBlob: false };
  try {
    const src = URL.createObjectURL(new Blob([`import ${JSON.stringify(href)};\n`], { type: 'text/javascript' }));
    return { worker: new Worker(src, { type: 'module' }), viaBlob: true };
  } catch {
    return { worker: new Worker(href, { type: 'module' }), viaBlob: false };
  }
}

export class WorkerHost {
  /**
   * url: the worker script; onMessage(msg) gets every message but 'ready' and 'fatal', which go to
   * onReady(msg) and onFatal(message).
   */
  constructor(url, { onMessage, onReady = () => {}, onFatal = () => {}, adopt = false }) {
    this.url = url;
    this.adopt = adopt; // take over the worker index.html's first script started for this url, if there is one
    this.onMessage = onMessage;
    this.onReady = onReady;
    this.onFatal = onFatal;
    this.generation = 0;
    this.replacements = 0;
    this.fallbacks = 0; // in-memory starts refused (a blob: policy), each followed by a plain start
    this.start();
  }

  /**
   * Starts a worker (index.html's first script's, if this host adopts it). `direct` starts the script itself rather
   * than through an in-memory module; `keepReady` keeps the pending `ready` (a fallback's restart).
   */
  start(direct = false, keepReady = false) {
    const gen = ++this.generation;
    if (!keepReady) this.ready = new Promise((resolve) => { this.resolveReady = resolve; });
    const early = direct ? null : this.adopted();
    const started = early || (direct ? { worker: new Worker(this.url, { type: 'module' }), viaBlob: false } : startModuleWorker(this.url));
    this.worker = started.worker;
    this.viaBlob = started.viaBlob;
    let heard = false;
    if (!keepReady) this.unheard = []; // posted before the worker first spoke: sent again after a fallback
    // Handled at once, or just after the release of a press on the page (press.js: a result that
    // moves a button between a press and its release would lose the click).
    this.worker.onmessage = (e) => afterPress(() => {
      if (gen !== this.generation) return; // a message from a worker already replaced
      heard = true;
      this.unheard = null;
      const msg = e.data;
      if (msg.type === 'ready') { this.resolveReady(msg); this.onReady(msg); return; }
      if (msg.type === 'fatal') { this.onFatal(msg.message); return; }
      this.onMessage(msg);
    }, e.data?.type);
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (gen !== this.generation) return;
      // A page whose content security policy refuses blob: workers fails the in-memory start before
      // the worker has said anything: start the script itself instead, once.
      if (started.viaBlob && !heard) {
        this.worker.terminate();
        this.fallbacks += 1;
        blobRefused = true;
        this.start(true, true);
        for (const m of this.unheard || []) this.worker.postMessage(m);
        return;
      }
      this.onFatal(`the worker script failed to load (${e.message || 'is www/pkg/ built? run `cargo xtask build`'})`);
    };
    // What the early worker said before these handlers existed, in the order it said it: in a
    // microtask, after the constructor has returned (onReady may use the host), before any later
    // message (those arrive as tasks).
    if (early) {
      queueMicrotask(() => {
        for (const e of early.events) {
          if (gen !== this.generation) return; // replaced by the fallback above
          (e.type === 'error' ? this.worker.onerror : this.worker.onmessage)(e);
        }
      });
    }
  }

  /** The worker index.html's first script started, once, if this host adopts and it runs the same script. */
  adopted() {
    const boot = window.__kvfleetBoot;
    if (!this.adopt || !boot || boot.url !== new URL(this.url, location.href).href) return null;
    window.__kvfleetBoot = null;
    return boot;
  }

  post(msg) {
    this.unheard?.push(msg);
    this.worker.postMessage(msg);
  }

  /** Drops the broken worker and boots a fresh one; resolves with its 'ready' message. */
  replace() {
    this.worker.terminate();
    this.replacements += 1;
    this.start();
    return this.ready;
  }

  terminate() { this.generation += 1; this.worker.terminate(); }
}

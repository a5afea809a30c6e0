// www/js/boot.js: starts the simulator's Web Worker as soon as the page begins to load, so the wasm
// downloads and compiles while the page's own modules load and run. main.js adopts this worker
// (WorkerHost's `adopt`) together with the messages it sent before anyone listened.
(() => {
  try {
    const url = new URL('js/worker.js', document.baseURI).href;
    const worker = new Worker(url, { type: 'module' });
    const events = [];
    worker.onmessage = (e) => events.push(e);
    worker.onerror = (e) => { e.preventDefault(); events.push(e); };
    window.__kvfleetBoot = { url, worker, events };
  } catch (e) {
    // A file:// page or no module workers: main.js starts its own worker and says what failed.
  }
})();

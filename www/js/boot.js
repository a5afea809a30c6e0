// www/js/boot.js: starts the simulator's Web Worker as soon as the page begins to load, so the wasm
// downloads and compiles while the page's own modules load and run. main.js adopts this worker
// (WorkerHost's `adopt`) together with the messages it sent before anyone listened.
// The worker is started from a one-line module in memory that imports js/worker.js: Chromium fetches
// a worker's own script at a low priority, behind every module the page preloads (about 100 ms on
// a cold load), while a module the worker imports is fetched at once. WorkerHost falls back to a
// plain `new Worker(url)` if the page's content security policy refuses workers from blob: URLs.
(() => {
  try {
    const url = new URL('js/worker.js', document.baseURI).href;
    let worker;
    let viaBlob = true;
    try {
      const src = URL.createObjectURL(new Blob([`import ${JSON.stringify(url)};\n`], { type: 'text/javascript' }));
      worker = new Worker(src, { type: 'module' });
    } catch (e) {
      viaBlob = false;
      worker = new Worker(url, { type: 'module' });
    }
    const events = [];
    worker.onmessage = (e) => events.push(e);
    worker.onerror = (e) => { e.preventDefault(); events.push(e); };
    window.__kvfleetBoot = { url, worker, events, viaBlob };
  } catch (e) {
    // A file:// page or no module workers: main.js starts its own worker and says what failed.
  }
})();

// www/js/worker.js: the Web Worker that owns the wasm simulator. Runs jobs in slices so a newer
// request supersedes (or a cancel stops) a run in flight; reads trace files here, off the UI thread.
//
// In:  {type:'run', id, lane, config, trace?}  lane 'main' | 'compare'; a newer id on a lane supersedes
//      {type:'compare', id, configs: [config, ...], trace?}  (reports come back in the same order)
//      {type:'cancel', lane}
//      {type:'plan', id, config, spec}  -> {type:'plan-result', id, plan} | {type:'plan-error', id, message}
// Out: {type:'ready', version, params, defaults, lessons} | {type:'fatal', message}
//      {type:'progress', id, lane, p} | {type:'result', id, lane, report, ms}
//      {type:'error', id, lane, message} | {type:'cancelled', id, lane}
//      {type:'compare-result', id, reports, ms}
// A trace is {name, url} (a built-in file to fetch) or {name, file} (a File the reader chose).

let wasm = null;
const latest = { main: 0, compare: 0 };
const cancelled = { main: 0, compare: 0 };
const traceCache = new Map(); // key -> text (only the most recent few)
const SLICE_BUDGET_MS = 12;   // work between checks of the message queue
const PROGRESS_EVERY_MS = 60;

function yieldToQueue() {
  // A macrotask, so pending messages (a newer run, a cancel) are handled before we continue.
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve();
    ch.port2.postMessage(0);
  });
}

function messageOf(err) {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try { return JSON.stringify(err); } catch { return String(err); }
}

async function traceText(trace) {
  const key = trace.file ? `file:${trace.name}:${trace.file.size}:${trace.file.lastModified}` : `url:${trace.url}`;
  if (traceCache.has(key)) return traceCache.get(key);
  let text;
  if (trace.file) {
    text = await trace.file.text();
  } else {
    const res = await fetch(trace.url);
    if (!res.ok) throw new Error(`${trace.name}: could not load the built-in trace (HTTP ${res.status} for ${trace.url})`);
    text = await res.text();
  }
  if (traceCache.size >= 3) traceCache.delete(traceCache.keys().next().value);
  traceCache.set(key, text);
  return text;
}

// Runs one config to completion in slices. Returns the report text, or null if superseded/cancelled.
async function runJob(lane, id, configJson, trace, onProgress) {
  const text = trace ? await traceText(trace) : null;
  if (latest[lane] !== id || cancelled[lane] >= id) return null;
  const job = trace ? wasm.Job.trace(configJson, text, trace.name) : wasm.Job.synthetic(configJson);
  try {
    let slice = 4096;
    let lastCheck = performance.now();
    let lastProgress = lastCheck;
    for (;;) {
      const t = performance.now();
      const done = job.advance(slice);
      const dt = performance.now() - t;
      if (done) break;
      if (dt < SLICE_BUDGET_MS / 4) slice = Math.min(slice * 2, 1 << 24);
      else if (dt > SLICE_BUDGET_MS) slice = Math.max(64, slice >> 1);
      const now = performance.now();
      if (now - lastCheck >= SLICE_BUDGET_MS * 2) {
        if (now - lastProgress >= PROGRESS_EVERY_MS) {
          onProgress(job.progress());
          lastProgress = now;
        }
        await yieldToQueue();
        lastCheck = performance.now();
        if (latest[lane] !== id || cancelled[lane] >= id) return null;
      }
    }
    return job.report_json();
  } finally {
    job.free();
  }
}

async function handleRun(msg) {
  const { id, lane } = msg;
  const t0 = performance.now();
  try {
    const report = await runJob(lane, id, JSON.stringify(msg.config), msg.trace, (p) =>
      postMessage({ type: 'progress', id, lane, p }));
    if (report === null) { postMessage({ type: 'cancelled', id, lane }); return; }
    postMessage({ type: 'result', id, lane, report, ms: performance.now() - t0 });
  } catch (err) {
    postMessage({ type: 'error', id, lane, message: messageOf(err) });
  }
}

// Runs a list of configs on the compare lane, one after another, yielding between them so the main
// lane (the slider) is never stuck behind a comparison.
async function handleCompare(msg) {
  const { id, configs } = msg;
  const lane = 'compare';
  const t0 = performance.now();
  const reports = [];
  try {
    for (let i = 0; i < configs.length; i++) {
      const report = await runJob(lane, id, JSON.stringify(configs[i]), msg.trace, (p) =>
        postMessage({ type: 'progress', id, lane, p: (i + p) / configs.length }));
      if (report === null) { postMessage({ type: 'cancelled', id, lane }); return; }
      reports.push(report);
      postMessage({ type: 'progress', id, lane, p: (i + 1) / configs.length });
      await yieldToQueue();
      if (latest[lane] !== id || cancelled[lane] >= id) { postMessage({ type: 'cancelled', id, lane }); return; }
    }
    postMessage({ type: 'compare-result', id, reports, ms: performance.now() - t0 });
  } catch (err) {
    postMessage({ type: 'error', id, lane, message: messageOf(err) });
  }
}

async function boot() {
  try {
    if (typeof WebAssembly !== 'object') throw new Error('this browser has no WebAssembly support');
    let mod;
    try {
      mod = await import('../pkg/kvfleet.js');
    } catch (err) {
      throw new Error(`its JavaScript bindings (pkg/kvfleet.js) did not load (${messageOf(err)})`);
    }
    try {
      await mod.default();
    } catch (err) {
      throw new Error(`the WebAssembly module (pkg/kvfleet_bg.wasm) could not be downloaded or compiled; the browser said: ${messageOf(err)}`);
    }
    wasm = mod;
    postMessage({
      type: 'ready',
      version: mod.version(),
      params: JSON.parse(mod.params_json()),
      defaults: JSON.parse(mod.defaults_json()),
      lessons: typeof mod.lessons_json === 'function' ? JSON.parse(mod.lessons_json()) : [],
    });
  } catch (err) {
    postMessage({ type: 'fatal', message: messageOf(err) });
  }
}

const booted = boot();

function handlePlan(msg) {
  try {
    if (typeof wasm.sweep_plan_json !== 'function') throw new Error('this build of the simulator has no sweeps');
    postMessage({ type: 'plan-result', id: msg.id, plan: JSON.parse(wasm.sweep_plan_json(JSON.stringify(msg.config), msg.spec)) });
  } catch (err) {
    postMessage({ type: 'plan-error', id: msg.id, message: messageOf(err) });
  }
}

self.onmessage = async (e) => {
  const msg = e.data;
  if (msg.type === 'cancel') { cancelled[msg.lane] = latest[msg.lane]; return; }
  if (msg.type === 'plan') { await booted; if (wasm) handlePlan(msg); return; }
  if (msg.type === 'run' || msg.type === 'compare') {
    const lane = msg.type === 'compare' ? 'compare' : msg.lane;
    latest[lane] = msg.id;
    await booted;
    if (!wasm) return;
    if (latest[lane] !== msg.id) { postMessage({ type: 'cancelled', id: msg.id, lane }); return; }
    if (msg.type === 'run') await handleRun(msg); else await handleCompare(msg);
  }
};

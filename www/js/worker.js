// www/js/worker.js: the Web Worker that owns the wasm simulator. Runs jobs in slices so a newer
// request supersedes (or a cancel stops) a run in flight; reads trace files here, off the UI thread.
//
// In:  {type:'run', id, lane, config, trace?}  lane 'main' | 'compare'; a newer id on a lane supersedes
//      {type:'compare', id, configs: [config, ...], trace?}  (reports come back in the same order)
//      {type:'cancel', lane}
//      {type:'plan', id, config, spec}  -> {type:'plan-result', id, plan} | {type:'plan-error', id, message}
//      {type:'batch', id, configs, trace?}  lane 'batch': each config's summary point as it finishes (a
//          batch of the id still running adds its configs to those it has still to run)
//      {type:'seeds', id, jobs: [{config, base?}], k, trace?}  lane 'seeds': each config on seeds config.seed ..
//          config.seed + k - 1 (base: seed config.seed's {hit_rate_tokens, ttft_ms_p99}, known already), each
//          figure's spread by the wasm's spread_json -> {type:'seeds-part', id, index, point} | {type:'seeds-done', id}
//      {type:'decisions', id, config, trace?, first, count}  lane 'decisions': the decision records of requests
//          first .. first + count - 1 -> {type:'decisions-result', id, decisions} (a JSON array, as the CLI writes them)
//      {type:'capacity', id, config, policy, spec, trace?}  one policy's capacity plan (blocking; the page
//          cancels by terminating the worker) -> {type:'capacity-result', id, plan} | {type:'capacity-error', id, message}
//      {type:'capacity-mix', id, config, policy, spec, trace?}  the cheapest mix of the presets given (plan_mix_json)
//          -> {type:'capacity-mix-result', id, result: {mix, headline}} | {type:'capacity-error', id, message}
//      {type:'capacity-autoscale', id, config, replicas, spec, trace?}  the static fleet against the config's
//          scaler (plan_autoscale_json) -> {type:'capacity-autoscale-result', id, comparison} | capacity-error
//      {type:'capacity-headline', plans, spec} -> {type:'capacity-headline', headline, cheapest, tied}  (plan_headline, plan_cheapest and plan_tied over the plans' JSON)
//      {type:'lesson-material', id, trace?}  a lesson's interview answers and short check (runs the lesson's configs)
//          -> on a trace first {type:'lesson-diagram', id, diagram} (the figure, measured first), then
//          {type:'lesson-material', id, material} | {type:'lesson-material-error', id, message}
//      {type:'calibrate', id, log: {name, url} | {name, file}, form, kvCapacityTokens}  fits a step log (calibrate_json)
//          -> {type:'calibrate-result', id, fit, name} | {type:'calibrate-error', id, message}
//      {type:'reqfit-*', ...}  the fit by simulation of a request log, a batch at a time: worker-reqfit.js
//      {type:'debug-trap'}  (tests) traps the module on purpose, to exercise recovery
// Out: {type:'ready', version, params, defaults, lessons, presets, marks} | {type:'fatal', message}
//      (marks: when this script started, its bindings loaded and the wasm was compiled, epoch ms)
//      {type:'progress', id, lane, p} | {type:'result', id, lane, report, ms, parses}  (parses: traces parsed so far)
//      {type:'error', id, lane, message, trap?} | {type:'cancelled', id, lane}
//      {type:'compare-result', id, reports, ms}
//      {type:'batch-part', id, index, point, parses} | {type:'batch-done', id, ms, parses}
// A trace is {name, url} (a built-in file to fetch) or {name, file} (a File the reader chose).
//
// A trap (a WebAssembly RuntimeError: out of memory, a panic) leaves the module's state broken, so
// after one this worker answers every message with the same 'error' (trap: true) and the page
// replaces it with a fresh worker and a fresh module; the error says what happened in plain words.

import { pointOf } from './sweep-point.js';
import { handleReqfit } from './worker-reqfit.js';

const epochNow = () => performance.timeOrigin + performance.now();
const bootMarks = { workerStart: epochNow() };
// The wasm module: the download the page's first script started in this worker's first lines
// (self.kvfleetWasm) or, in a worker started otherwise, or if that download failed, one of its own.
const WASM_URL = new URL('../pkg/kvfleet_bg.wasm', import.meta.url);
const early = self.kvfleetWasm;
const wasmSource = early
  ? early.then((res) => (res.ok ? res : fetch(WASM_URL)), () => fetch(WASM_URL))
  : fetch(WASM_URL);
wasmSource.catch(() => {}); // awaited in boot(), after the bindings load: no unhandled rejection meanwhile
let wasm = null;
let trapped = null; // the plain-words message of the trap that broke this module, if any
const latest = { main: 0, compare: 0, batch: 0, decisions: 0, seeds: 0 };
const cancelled = { main: 0, compare: 0, batch: 0, decisions: 0, seeds: 0 };
const traceCache = new Map(); // trace key | block size -> parsed wasm Trace (only the most recent few)
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

/** True for the errors that leave the wasm instance unusable. */
function isTrap(err) {
  return (typeof WebAssembly === 'object' && err instanceof WebAssembly.RuntimeError)
    || (err instanceof RangeError && /memory|allocation/i.test(err.message));
}

/** The panic's message and location, kept by the module's panic hook ('' if it did not panic). */
function panicOf() {
  try { return wasm?.last_panic?.() || ''; } catch { return ''; }
}

function trapWords(err) {
  const m = String(err?.message || err);
  const panic = panicOf();
  if (panic) {
    return `the simulator hit an internal error and stopped (${panic}). This is a bug in kvfleet: please report the settings in the address bar. It has been restarted`;
  }
  if (/unreachable|memory|allocation|out of bounds/i.test(m)) {
    return `the simulator stopped abruptly (WebAssembly error: ${m}). Most likely it ran out of memory in this browser tab: try fewer requests, a bounded cache or fewer replicas. If it happens on a small run, please report the settings in the address bar. It has been restarted`;
  }
  return `the simulator crashed (${m}). It has been restarted`;
}

function messageOf(err) {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try { return JSON.stringify(err); } catch { return String(err); }
}

function traceKey(trace) {
  return trace.file ? `file:${trace.name}:${trace.file.size}:${trace.file.lastModified}` : `url:${trace.url}`;
}

async function traceText(trace) {
  if (trace.file) return trace.file.text();
  const res = await fetch(trace.url);
  if (!res.ok) throw new Error(`${trace.name}: could not load the built-in trace (HTTP ${res.status} for ${trace.url})`);
  return res.text();
}

// A trace is read and parsed once per (trace, block size) and kept (the most recent few), so a
// slider step replays the parsed requests instead of parsing the text again. `parses` counts the
// parses this worker has done (the page's tests read it from every result).
let parses = 0;
async function parsedTrace(trace, blockSize) {
  const key = `${traceKey(trace)}|${blockSize}`;
  if (traceCache.has(key)) return traceCache.get(key);
  const text = await traceText(trace);
  const parsed = wasm.Trace.parse(text, trace.name, blockSize);
  parses += 1;
  if (traceCache.size >= 2) {
    const oldest = traceCache.keys().next().value;
    try { traceCache.get(oldest).free(); } catch { /* already gone with a trapped module */ }
    traceCache.delete(oldest);
  }
  traceCache.set(key, parsed);
  return parsed;
}

// Runs one config (an object: the wasm reads it as it is, no JSON text) to completion in slices.
// Returns the report text, or null if superseded/cancelled.
// With `range` ({first, count}) it also logs those decisions and returns {report, decisions}; with
// `point`, the report comes without its time series and latency distributions (a sweep's point).
async function runJob(lane, id, config, trace, onProgress, range = null, point = false) {
  const parsed = trace ? await parsedTrace(trace, config?.block_size ?? 512) : null;
  if (latest[lane] !== id || cancelled[lane] >= id) return null;
  const job = trace ? wasm.Job.from_trace(config, parsed) : wasm.Job.synthetic(config);
  let ok = false;
  try {
    if (range) job.record_decisions(range.first, range.count);
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
    const report = point ? job.point_json() : job.report_json();
    const decisions = range ? job.decisions_json() : null;
    ok = true;
    return range ? { report, decisions } : report;
  } catch (err) {
    if (isTrap(err)) trapped = trapWords(err);
    throw err;
  } finally {
    // After a trap the Job is still borrowed inside the broken module: freeing it would throw and
    // hide the real error. The whole module is dropped with this worker instead.
    if (ok || !trapped) { try { job.free(); } catch { /* the module is already unusable */ } }
  }
}

function postError(id, lane, err) {
  if (isTrap(err) && !trapped) trapped = trapWords(err);
  if (trapped) postMessage({ type: 'error', id, lane, message: trapped, trap: true });
  else postMessage({ type: 'error', id, lane, message: messageOf(err) });
}

// The batch lane's queue: the configs of batch `id` not yet run. A batch of the same id (the page
// handing a worker its next points as the earlier ones come in) joins it; a newer id replaces it.
let batchQueue = { id: 0, configs: [], running: false };

// Runs a batch's configs, and those later sent with the same id, posting each one's point as soon
// as it is done (the hero's curves fill in), then 'batch-done' once the queue is empty.
async function handleBatch(msg) {
  const { id } = msg;
  const lane = 'batch';
  if (batchQueue.id === id) {
    batchQueue.configs.push(...msg.configs);
    if (batchQueue.running) return;
  } else {
    batchQueue = { id, configs: [...msg.configs], running: false };
  }
  const queue = batchQueue;
  queue.running = true;
  const t0 = performance.now();
  try {
    for (let i = 0; queue.configs.length; i++) {
      const report = await runJob(lane, id, queue.configs.shift(), msg.trace, () => {}, null, true);
      if (report === null) { postMessage({ type: 'cancelled', id, lane }); return; }
      postMessage({ type: 'batch-part', id, index: i, point: pointOf(JSON.parse(report)), parses });
      await yieldToQueue();
      if (latest[lane] !== id) { postMessage({ type: 'cancelled', id, lane }); return; }
    }
    postMessage({ type: 'batch-done', id, ms: performance.now() - t0, parses });
  } catch (err) {
    postError(id, lane, err);
  } finally {
    queue.running = false;
  }
}

/** The figures a seed's run gives the band: {hit_rate_tokens, ttft_ms_p99} (NaN for a statistic over nothing). */
const SEED_FIGURES = ['hit_rate_tokens', 'ttft_ms_p99'];

// Runs each job's config on its K seeds (the first from `base` when given), posting each point's spread as it is done.
async function handleSeeds(msg) {
  const { id, jobs, k } = msg;
  const lane = 'seeds';
  try {
    for (let i = 0; i < jobs.length; i++) {
      const { config, base } = jobs[i];
      const rows = base ? [base] : [];
      for (let j = rows.length; j < k; j++) {
        // The point's report (no time series or latency distributions): the band reads two figures of its summary.
        const report = await runJob(lane, id, { ...config, seed: config.seed + j }, msg.trace, () => {}, null, true);
        if (report === null) { postMessage({ type: 'cancelled', id, lane }); return; }
        const s = JSON.parse(report).summary || {};
        rows.push(Object.fromEntries(SEED_FIGURES.map((f) => [f, s[f] ?? NaN])));
      }
      const point = { instances: config.prefill_instances ?? config.instances, routing: config.routing };
      for (const f of SEED_FIGURES) point[f] = JSON.parse(wasm.spread_json(Float64Array.from(rows, (r) => r[f] ?? NaN)));
      postMessage({ type: 'seeds-part', id, index: i, point });
      await yieldToQueue();
      if (latest[lane] !== id || cancelled[lane] >= id) { postMessage({ type: 'cancelled', id, lane }); return; }
    }
    postMessage({ type: 'seeds-done', id });
  } catch (err) {
    postError(id, lane, err);
  }
}

async function handleRun(msg) {
  const { id, lane } = msg;
  const t0 = performance.now();
  try {
    const report = await runJob(lane, id, msg.config, msg.trace, (p) =>
      postMessage({ type: 'progress', id, lane, p }));
    if (report === null) { postMessage({ type: 'cancelled', id, lane }); return; }
    postMessage({ type: 'result', id, lane, report, ms: performance.now() - t0, parses });
  } catch (err) {
    postError(id, lane, err);
  }
}

// The decision records of a range of requests of one config (the page's decision table).
async function handleDecisions(msg) {
  const { id } = msg;
  const lane = 'decisions';
  try {
    const out = await runJob(lane, id, msg.config, msg.trace, () => {}, { first: msg.first, count: msg.count });
    if (out === null) { postMessage({ type: 'cancelled', id, lane }); return; }
    postMessage({ type: 'decisions-result', id, decisions: out.decisions });
  } catch (err) {
    postError(id, lane, err);
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
      const report = await runJob(lane, id, configs[i], msg.trace, (p) =>
        postMessage({ type: 'progress', id, lane, p: (i + p) / configs.length }));
      if (report === null) { postMessage({ type: 'cancelled', id, lane }); return; }
      reports.push(report);
      postMessage({ type: 'progress', id, lane, p: (i + 1) / configs.length });
      await yieldToQueue();
      if (latest[lane] !== id || cancelled[lane] >= id) { postMessage({ type: 'cancelled', id, lane }); return; }
    }
    postMessage({ type: 'compare-result', id, reports, ms: performance.now() - t0 });
  } catch (err) {
    postError(id, lane, err);
  }
}

async function boot() {
  try {
    if (typeof WebAssembly !== 'object') throw new Error('this browser has no WebAssembly support');
    let mod;
    try {
      mod = await import('../pkg/kvfleet.js');
      bootMarks.bindingsLoaded = epochNow();
    } catch (err) {
      throw new Error(`its JavaScript bindings (pkg/kvfleet.js) did not load (${messageOf(err)})`);
    }
    try {
      await mod.default({ module_or_path: await wasmSource });
    } catch (err) {
      throw new Error(`the WebAssembly module (pkg/kvfleet_bg.wasm) could not be downloaded or compiled; the browser said: ${messageOf(err)}`);
    }
    wasm = mod;
    bootMarks.wasmCompiled = epochNow();
    postMessage({
      type: 'ready',
      version: mod.version(),
      params: JSON.parse(mod.params_json()),
      defaults: JSON.parse(mod.defaults_json()),
      lessons: typeof mod.lessons_json === 'function' ? JSON.parse(mod.lessons_json()) : [],
      presets: typeof mod.presets_json === 'function' ? JSON.parse(mod.presets_json(512)) : [],
      marks: { ...bootMarks, readySent: epochNow() },
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

// One routing policy's capacity plan (src/plan: fewest replicas meeting the targets, then goodput).
async function handleCapacity(msg) {
  try {
    if (typeof wasm.plan_policy_json !== 'function') throw new Error('this build of the simulator has no planner');
    const config = JSON.stringify(msg.config);
    const spec = JSON.stringify(msg.spec);
    const plan = msg.trace
      ? wasm.plan_policy_trace_json(config, msg.policy, spec, await parsedTrace(msg.trace, msg.config.block_size ?? 512))
      : wasm.plan_policy_json(config, msg.policy, spec);
    postMessage({ type: 'capacity-result', id: msg.id, plan });
  } catch (err) {
    if (isTrap(err) && !trapped) trapped = trapWords(err);
    postMessage({ type: 'capacity-error', id: msg.id, message: trapped || messageOf(err) });
  }
}

// The mix search and the autoscaled-against-static comparison (src/plan/mix.rs, src/plan/autoscale.rs).
async function handleCapacityMore(msg) {
  try {
    if (typeof wasm.plan_mix_json !== 'function') throw new Error('this build of the simulator has no mix planner');
    const config = JSON.stringify(msg.config);
    const spec = JSON.stringify(msg.spec);
    const trace = msg.trace ? await parsedTrace(msg.trace, msg.config.block_size ?? 512) : null;
    if (msg.type === 'capacity-mix') {
      const out = trace ? wasm.plan_mix_trace_json(config, msg.policy, spec, trace) : wasm.plan_mix_json(config, msg.policy, spec);
      postMessage({ type: 'capacity-mix-result', id: msg.id, result: JSON.parse(out) });
    } else {
      const out = trace ? wasm.plan_autoscale_trace_json(config, msg.replicas, spec, trace) : wasm.plan_autoscale_json(config, msg.replicas, spec);
      postMessage({ type: 'capacity-autoscale-result', id: msg.id, comparison: JSON.parse(out) });
    }
  } catch (err) {
    if (isTrap(err) && !trapped) trapped = trapWords(err);
    postMessage({ type: 'capacity-error', id: msg.id, message: trapped || messageOf(err) });
  }
}

async function handleLessonMaterial(msg) {
  try {
    // The figure goes out as soon as its runs are done, ahead of the interview's and the check's.
    const onDiagram = (text) => postMessage({ type: 'lesson-diagram', id: msg.id, diagram: JSON.parse(text) });
    const text = msg.trace
      ? wasm.lesson_material_trace_json(msg.id, await parsedTrace(msg.trace, msg.blockSize ?? 512), onDiagram)
      : wasm.lesson_material_json(msg.id);
    postMessage({ type: 'lesson-material', id: msg.id, material: JSON.parse(text) });
  } catch (err) {
    postMessage({ type: 'lesson-material-error', id: msg.id, message: messageOf(err) });
  }
}

// A step log's fit (src/calibrate: the numbers `kvfleet calibrate --calibrate-json` writes), read here.
async function handleCalibrate(msg) {
  try {
    if (typeof wasm.calibrate_json !== 'function') throw new Error('this build of the simulator has no calibration');
    const log = msg.log;
    let text;
    if (log.file) text = await log.file.text();
    else {
      const res = await fetch(log.url);
      if (!res.ok) throw new Error(`${log.name}: could not load the sample (HTTP ${res.status} for ${log.url})`);
      text = await res.text();
    }
    const fit = JSON.parse(wasm.calibrate_json(text, log.name, msg.form, msg.kvCapacityTokens ?? undefined));
    postMessage({ type: 'calibrate-result', id: msg.id, fit, name: log.name });
  } catch (err) {
    if (isTrap(err) && !trapped) trapped = trapWords(err);
    postMessage({ type: 'calibrate-error', id: msg.id, message: trapped || messageOf(err) });
  }
}

function handleCapacityHeadline(msg) {
  try {
    postMessage({ type: 'capacity-headline', headline: wasm.plan_headline(msg.plans, JSON.stringify(msg.spec)), cheapest: wasm.plan_cheapest(msg.plans), tied: JSON.parse(wasm.plan_tied(msg.plans)) });
  } catch (err) {
    postMessage({ type: 'capacity-error', message: messageOf(err) });
  }
}

function debugTrap() {
  try {
    wasm.debug_trap();
  } catch (err) {
    postError(0, 'main', err);
  }
}

const LANE_OF = { run: null, compare: 'compare', batch: 'batch', decisions: 'decisions', seeds: 'seeds' };

self.onmessage = async (e) => {
  const msg = e.data;
  if (msg.type === 'cancel') { cancelled[msg.lane] = latest[msg.lane]; return; }
  if (trapped) {
    // A broken module answers nothing else; the page is replacing this worker.
    postMessage({ type: 'error', id: msg.id ?? 0, lane: msg.lane || LANE_OF[msg.type] || 'main', message: trapped, trap: true });
    return;
  }
  if (msg.type === 'debug-trap') { await booted; if (wasm) debugTrap(); return; }
  if (msg.type === 'plan') { await booted; if (wasm) handlePlan(msg); return; }
  if (msg.type === 'capacity') { await booted; if (wasm) await handleCapacity(msg); return; }
  if (msg.type === 'capacity-mix' || msg.type === 'capacity-autoscale') { await booted; if (wasm) await handleCapacityMore(msg); return; }
  if (msg.type === 'capacity-headline') { await booted; if (wasm) handleCapacityHeadline(msg); return; }
  if (msg.type === 'calibrate') { await booted; if (wasm) await handleCalibrate(msg); return; }
  if (msg.type.startsWith('reqfit-')) { await booted; if (wasm) await handleReqfit(wasm, msg, (err) => (isTrap(err) ? trapWords(err) : messageOf(err))); return; }
  if (msg.type === 'lesson-material') { await booted; if (wasm) await handleLessonMaterial(msg); return; }
  if (msg.type in LANE_OF) {
    const lane = LANE_OF[msg.type] || msg.lane;
    latest[lane] = msg.id;
    await booted;
    if (!wasm) return;
    if (latest[lane] !== msg.id) { postMessage({ type: 'cancelled', id: msg.id, lane }); return; }
    if (msg.type === 'run') await handleRun(msg);
    else if (msg.type === 'compare') await handleCompare(msg);
    else if (msg.type === 'decisions') await handleDecisions(msg);
    else if (msg.type === 'seeds') await handleSeeds(msg);
    else await handleBatch(msg);
  }
};

// tests/e2e/hero-open-timeline.mjs: where the time goes between opening the page and the hero's sweep
// whole, step by step, in ms since the navigation's start: the page's first worker (its script in, the
// wasm compiled, its `ready` handled), the first run (sent, its result in, drawn), the sweep's workers
// (started, booted, the trace read), the sweep (its first point handed out, each worker's first and
// last point back, whole) and the panels below the first screen. Not a test: prints each step's
// median over `--runs` cold opens (a fresh context each) and the fastest and slowest, and the
// machine's one-minute load average before and after. With `--www=DIR,DIR` it serves each directory
// and interleaves them, open by open.
//   node tests/e2e/hero-open-timeline.mjs [--runs=5] [--path=/?trace=conversation_trace.jsonl&routing=kv] [--www=/tmp/www-before,www]
import { loadavg } from 'node:os';
import { startServer, launchBrowser } from './harness.mjs';
const arg = (name, d) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? d;
const runs = +arg('runs', 5);
const path = arg('path', '/?trace=conversation_trace.jsonl&routing=kv');
const dirs = arg('www')?.split(',') ?? [null];
const servers = await Promise.all(dirs.map((dir) => (dir ? startServer({ dir }) : startServer())));
const browser = await launchBrowser();
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Logs, in the page, each worker's start, its `ready` (with its boot marks), `prepared` and points back. */
function watchWorkers() {
  const log = (window.__workers = []);
  const epoch = (m) => Object.fromEntries(Object.entries(m || {}).map(([k, v]) => [k, v - performance.timeOrigin]));
  window.Worker = class extends window.Worker {
    constructor(...args) {
      super(...args);
      const w = { started: performance.now(), name: args[1]?.name || '', points: [] };
      log.push(w);
      this.addEventListener('message', ({ data: m }) => {
        if (m?.type === 'ready') Object.assign(w, { ready: performance.now() }, epoch(m.marks));
        if (m?.type === 'prepared') Object.assign(w, epoch(m.marks));
        if (m?.type === 'batch-part') w.points.push(performance.now());
      });
    }
  };
}

/** One cold open: the steps' times (ms since the navigation's start). */
async function open(server) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(watchWorkers);
  const page = await context.newPage();
  await page.goto(server.url + path);
  await page.waitForFunction(() => (window.kvfleet?.heroDone || 0) >= 1 && !window.kvfleet.hero.pending && window.kvfleet.panelsBuilt, null, { timeout: 120000 });
  const { marks, workers } = await page.evaluate(() => ({ marks: window.kvfleet.marks, workers: window.__workers }));
  await context.close();
  // The page's first worker is index.html's (it has no name); the sweep's are named 'sweep' (or, in
  // an older page, are the workers started after the first one, before the sweep was whole).
  const sweepers = workers.filter((w, i) => w.name === 'sweep' || (i > 0 && !w.name && w.started < marks.heroDone && w.points.length));
  const first = workers[0];
  const steps = {
    'first worker: script in': first.workerStart, 'first worker: wasm compiled': first.wasmCompiled, 'page: ready handled': marks.ready,
    'first run sent': marks.firstRunSent, 'first run: result in': marks.firstResult, 'first run: drawn': marks.firstRender,
  };
  const each = (label, f) => { const xs = sweepers.map(f).filter(Number.isFinite); if (xs.length) steps[label] = Math.max(...xs); };
  each('sweep workers: started (last)', (w) => w.started);
  each('sweep workers: script in (last)', (w) => w.workerStart);
  each('sweep workers: wasm ready (last)', (w) => w.wasmCompiled);
  each('sweep workers: trace parsed (last)', (w) => w.traceParsed);
  Object.assign(steps, { 'sweep: first point handed out': marks.heroSweep });
  each('sweep: each worker\'s first point back (last)', (w) => w.points[0]);
  Object.assign(steps, { 'sweep: whole': marks.heroDone, 'panels below: built': marks.panelsBuilt });
  return steps;
}

const load0 = loadavg()[0];
const results = dirs.map(() => []);
for (let i = 0; i < runs; i++) {
  for (const [d, server] of servers.entries()) results[d].push(await open(server));
}
for (const [d, dir] of dirs.entries()) {
  console.log(`${dir ?? 'www'} ${path}: medians of ${runs} cold opens, ms since the navigation's start (fastest-slowest)`);
  const names = [...new Set(results[d].flatMap((r) => Object.keys(r)))];
  const rows = names.map((k) => [k, results[d].map((r) => r[k]).filter(Number.isFinite)]).filter(([, xs]) => xs.length);
  for (const [k, xs] of rows.sort((a, b) => med(a[1]) - med(b[1]))) {
    console.log(`  ${k.padEnd(46)} ${String(Math.round(med(xs))).padStart(6)}  (${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))})`);
  }
}
console.log(`load average (1 min): ${load0.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`);
await browser.close();
await Promise.all(servers.map((s) => s.close()));

// tests/e2e/wasm-bench.mjs: times the wasm build in headless Chromium against the native CLI.
//
//   node tests/e2e/wasm-bench.mjs [--runs N]     (after `cargo xtask build` and `cargo build --release`)
//   --json=FILE also writes the medians as JSON: wasm_ms, native_ms (in process), ratio_x,
//   native_process_ms, runs, native_runs (the in-process runs) (what `cargo xtask perf record wasm-vs-native` reads; a release build).
//
// In a dedicated module worker that imports the page's own www/pkg/kvfleet.js: the Mooncake
// conversation trace (www/data/conversation_trace.jsonl, 12,031 requests) under kv on 8 replicas via
// run_trace_json (JSON parsing of the trace included, the fetch excluded), and the seed example
// (run_json("{}")); one warm-up run each, then the median of N. Natively: the same replay as a process
// (`kvfleet --des-mooncake-trace data/mooncake/conversation_trace.jsonl --des-instances 8 --des-routing kv`),
// process wall time, and, with a release binary, the in-process time of `kvfleet bench --scenario`
// for the same scenario (what `kvfleet bench` reports). bench.test.mjs runs it in CI (correctness only).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './harness.mjs';

export const TRACE = 'data/mooncake/conversation_trace.jsonl';
export const CONFIG = { instances: 8, routing: 'kv' };

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (xs) => xs.map((x) => x.toFixed(1)).join(', ');

// The worker's source: a module that imports the page's bindings by absolute URL.
const workerSource = (origin) => `
import init, * as m from '${origin}/pkg/kvfleet.js';
self.onmessage = async (e) => {
  try {
    const { runs, seedRuns, config } = e.data;
    await init();
    const text = await (await fetch('${origin}/data/conversation_trace.jsonl')).text();
    const cfg = JSON.stringify(config);
    const time = (f) => { const t = performance.now(); const r = f(); return [performance.now() - t, r]; };
    const trace = [], seed = [];
    let report = null, seedReport = null;
    for (let i = 0; i <= runs; i++) {           // run 0 is the warm-up
      const [ms, r] = time(() => m.run_trace_json(cfg, text, 'conversation_trace.jsonl'));
      if (i > 0) trace.push(ms);
      report = r;
    }
    for (let i = 0; i <= seedRuns; i++) {
      const [ms, r] = time(() => m.run_json('{}'));
      if (i > 0) seed.push(ms);
      seedReport = r;
    }
    postMessage({ ok: true, trace, seed, report, seedReport, bytes: text.length, version: m.version() });
  } catch (err) {
    postMessage({ ok: false, message: String(err && err.stack || err) });
  }
};`;

/** Runs the wasm side in `page` (any page of the served www/ origin). */
export async function wasmBench(page, origin, { runs = 5, seedRuns = 21 } = {}) {
  const out = await page.evaluate(([src, opts]) => new Promise((resolve) => {
    const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    const w = new Worker(url, { type: 'module' });
    w.onmessage = (e) => { w.terminate(); resolve(e.data); };
    w.onerror = (e) => { e.preventDefault(); resolve({ ok: false, message: `worker error: ${e.message}` }); };
    w.postMessage(opts);
  }), [workerSource(origin), { runs, seedRuns, config: CONFIG }]);
  if (!out.ok) throw new Error(`wasm bench failed in Chromium: ${out.message}`);
  return { ...out, report: JSON.parse(out.report), seedReport: JSON.parse(out.seedReport) };
}

/** The native binary: release if built, else debug (and says which). */
export function nativeBin() {
  for (const kind of ['release', 'debug']) {
    const p = path.join(ROOT, 'target', kind, 'kvfleet');
    if (existsSync(p)) return { bin: p, kind };
  }
  throw new Error('no native kvfleet binary: run `cargo build --release` (or `cargo build`) first');
}

/** The native replay as a process: wall times (ms, startup and report writing included) and its report. */
export function nativeBench({ runs = 5 } = {}) {
  const { bin, kind } = nativeBin();
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-bench-')), 'report.json');
  const args = ['--des-mooncake-trace', TRACE, '--des-instances', String(CONFIG.instances), '--des-routing', CONFIG.routing, '--des-report-json', out];
  const times = [];
  for (let i = 0; i <= runs; i++) {
    const t = process.hrtime.bigint();
    execFileSync(bin, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (i > 0) times.push(ms);
  }
  const report = JSON.parse(readFileSync(out, 'utf8'));
  // In-process figure (parse + simulate, as `kvfleet bench` measures it), release builds only:
  // find the scenario whose events and requests match this replay.
  let inProcess = null;
  if (kind === 'release') {
    for (const i of [7, 8]) {
      try {
        const m = JSON.parse(execFileSync(bin, ['bench', '--scenario', String(i)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
        if (m.requests === report.summary.requests && m.events === report.summary.events) { inProcess = { scenario: i, ...m }; break; }
      } catch { /* no such scenario */ }
    }
  }
  return { bin: path.relative(ROOT, bin), kind, args, times, report, inProcess };
}

/** Prints the comparison lines; returns the figures. */
export function summarise(w, n, log = console.log) {
  const wm = median(w.trace), nm = median(n.times), sm = median(w.seed);
  log(`wasm bench: conversation kv x8 (${w.report.summary.requests} requests, run_trace_json, parse included, fetch excluded): median ${wm.toFixed(1)} ms (runs: ${fmt(w.trace)})`);
  log(`wasm bench: seed example run_json("{}") (${w.seedReport.summary.requests} requests): median ${sm.toFixed(2)} ms (runs: ${fmt(w.seed)})`);
  log(`native (${n.kind}: ${n.bin} ${n.args.slice(0, -2).join(' ')}): process wall median ${nm.toFixed(1)} ms (runs: ${fmt(n.times)})`);
  log(`wasm/native ratio (vs process wall, ${n.kind}): ${(wm / nm).toFixed(2)}x`);
  if (n.inProcess) {
    log(`native in-process (kvfleet bench --scenario ${n.inProcess.scenario}: parse + simulate, median of ${n.inProcess.runs}): ${n.inProcess.wall_ms_median.toFixed(1)} ms`);
    log(`wasm/native ratio (vs in-process): ${(wm / n.inProcess.wall_ms_median).toFixed(2)}x`);
  }
  return { wasmMs: wm, seedMs: sm, nativeMs: nm, inProcessMs: n.inProcess?.wall_ms_median ?? null };
}

/** The figures as JSON in `file` (--json): the in-process native time needs a release build. */
function writeFigures(file, f, runs, nativeRuns) {
  if (f.inProcessMs === null) throw new Error('--json needs the release binary (cargo build --release): the in-process time comes from it');
  const r = (x, d) => Math.round(x * 10 ** d) / 10 ** d;
  const figures = { wasm_ms: r(f.wasmMs, 1), native_ms: r(f.inProcessMs, 1), ratio_x: r(f.wasmMs / f.inProcessMs, 2), native_process_ms: r(f.nativeMs, 1), runs, native_runs: nativeRuns };
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`written to ${file}`);
}

// Standalone: node tests/e2e/wasm-bench.mjs [--runs N] [--json=FILE]
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { startSite } = await import('./harness.mjs');
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 7;
  const site = await startSite();
  try {
    const ctx = await site.browser.newContext();
    const page = await ctx.newPage();
    await page.route(`${site.url}/__bench__`, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>bench</title>' }));
    await page.goto(`${site.url}/__bench__`);
    const w = await wasmBench(page, site.url, { runs });
    const n = nativeBench({ runs });
    const figures = summarise(w, n);
    const json = process.argv.find((a) => a.startsWith('--json='))?.slice('--json='.length);
    if (json) writeFigures(json, figures, runs, n.inProcess?.runs);
    const same = JSON.stringify(w.report.summary) === JSON.stringify(n.report.summary);
    console.log(`summaries equal: ${same}`);
    if (!same) process.exitCode = 1;
  } finally {
    await site.close();
  }
}

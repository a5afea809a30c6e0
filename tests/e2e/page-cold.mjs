// tests/e2e/page-cold.mjs: a Chrome trace (with JS samples) of one cold load, for finding where the
// time to the first chart goes. Not a test: prints the kvfleet marks, each request's start and end,
// and the main thread's and the worker's top-level tasks (wall and thread ms, what they were)
// up to the first chart.
//   node tests/e2e/page-cold.mjs [--out=/tmp/kvfleet-cold.json] [--dir=www] [--path=/] [--min=2]
import { writeFileSync } from 'node:fs';
import { startServer, launchBrowser, WWW } from './harness.mjs';
const arg = (k, d) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? d;
const out = arg('out', '/tmp/kvfleet-cold.json');
const minMs = +arg('min', '2');
const server = await startServer({ dir: arg('dir', WWW) });
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'v8',
  'blink.user_timing', 'disabled-by-default-v8.cpu_profiler', 'toplevel', 'blink', 'loading', 'netlog', 'disabled-by-default-devtools.timeline.frame'] });
const reqs = [];
page.on('requestfinished', (r) => reqs.push(r));
await page.goto(server.url + arg('path', '/'));
await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0, null, { timeout: 60000 });
const marks = await page.evaluate(() => window.kvfleet.marks);
await page.waitForTimeout(300);
const buf = await browser.stopTracing();
writeFileSync(out, buf);
console.log('marks', Object.entries(marks).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', '));
const t0 = await page.evaluate(() => performance.timeOrigin);
for (const r of reqs) {
  const t = r.timing();
  console.log(`  req ${(t.startTime - t0).toFixed(0).padStart(5)} +${t.responseEnd.toFixed(0).padStart(4)} (send ${t.requestStart.toFixed(0)}, first byte ${t.responseStart.toFixed(0)}) ${r.url().replace(server.url, '')}`);
}
const ev = JSON.parse(buf.toString()).traceEvents;
const nav = ev.find((e) => e.name === 'navigationStart' && e.args?.data?.isLoadingMainFrame) || ev.find((e) => e.name === 'navigationStart');
const names = new Map(ev.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
const firstRender = nav.ts + marks.firstRender * 1000;
const byThread = new Map();
for (const e of ev) {
  if (e.ph !== 'X' || e.name !== 'RunTask' || e.ts + e.dur < nav.ts || e.ts > firstRender + 50000) continue;
  const k = `${e.pid}:${e.tid}`;
  if (!/CrRendererMain|DedicatedWorker/.test(names.get(k) || '')) continue;
  (byThread.get(k) || byThread.set(k, []).get(k)).push(e);
}
for (const [k, tasks] of byThread) {
  let wall = 0, cpu = 0;
  console.log(`${names.get(k)} (${k})`);
  for (const t of tasks.sort((a, b) => a.ts - b.ts)) {
    if (t.ts > firstRender) continue;
    wall += t.dur; cpu += t.tdur || 0;
    if (t.dur / 1000 < minMs) continue;
    const inside = ev.filter((e) => e.pid === t.pid && e.tid === t.tid && e.ph === 'X' && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e !== t && e.dur > 1000)
      .sort((a, b) => b.dur - a.dur).slice(0, 4).map((e) => `${e.name}${e.args?.data?.url ? '(' + e.args.data.url.split('/').pop() + ')' : ''}${e.args?.data?.functionName ? '(' + e.args.data.functionName + ')' : ''} ${(e.dur / 1000).toFixed(0)}`);
    console.log(`  ${((t.ts - nav.ts) / 1000).toFixed(0).padStart(5)} wall ${(t.dur / 1000).toFixed(1).padStart(6)} cpu ${((t.tdur || 0) / 1000).toFixed(1).padStart(6)}  ${inside.join(', ')}`);
  }
  console.log(`  total to first render: wall ${(wall / 1000).toFixed(0)} cpu ${(cpu / 1000).toFixed(0)}`);
  // Thread time by kind of work up to the first chart (nested events counted once, at their outermost).
  const kinds = ['ParseHTML', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'EvaluateScript', 'v8.evaluateModule', 'v8.compile', 'v8.compileModule', 'FunctionCall', 'TimerFire', 'FireAnimationFrame', 'HandlePostMessage', 'RunMicrotasks', 'MajorGC', 'MinorGC'];
  const [pid, tid] = k.split(':').map(Number);
  const evs = ev.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && kinds.includes(e.name) && e.ts >= nav.ts && e.ts <= firstRender).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const sum = {}; let end = 0;
  const layoutish = new Set(['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint']);
  for (const e of evs) {
    if (layoutish.has(e.name)) { sum[e.name] = (sum[e.name] || 0) + (e.tdur ?? e.dur); continue; } // nested inside scripts too
    if (e.ts < end) continue;
    end = e.ts + e.dur; sum[e.name] = (sum[e.name] || 0) + (e.tdur ?? e.dur);
  }
  console.log('  thread ms by kind:', Object.entries(sum).map(([n, v]) => `${n} ${(v / 1000).toFixed(1)}`).join(', '));
}
await browser.close();
await server.close();

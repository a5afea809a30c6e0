// tests/e2e/page-profile.mjs: a Chrome trace (with JS samples) of 10 replicas-slider steps on the
// default scenario, for finding where a redraw's time goes. Not a test: writes the trace and prints
// per step the wall time from input to redrawn charts and the main thread's CPU time inside it
// (thread time, which other load on the machine inflates far less than wall time).
//   node tests/e2e/page-profile.mjs [--out=/tmp/trace.json] [--wait-hero] [--dir=www] [--path=/?trace=conversation_trace.jsonl] [--slider=hero-input-instances]
import { writeFileSync } from 'node:fs';
import { startServer, launchBrowser, WWW } from './harness.mjs';
const arg = (k, d) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? d;
const out = arg('out', '/tmp/kvfleet-trace.json');
const server = await startServer({ dir: arg('dir', WWW) });
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
await page.goto(server.url + arg('path', '/'));
await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
if (process.argv.includes('--wait-hero')) await page.waitForFunction(() => window.kvfleet.heroDone > 0, null, { timeout: 60000 });
await page.focus(`[data-testid="${arg('slider', 'input-instances')}"]`); // hero-input-instances: the first screen's slider
await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame',
  'v8.execute', 'blink.user_timing', 'disabled-by-default-v8.cpu_profiler', 'toplevel', 'blink', 'cc', 'gpu'] });
const steps = [];
for (let i = 0; i < 10; i++) {
  await page.evaluate(() => {
    window.__t0 = 0;
    document.addEventListener('input', () => { window.__t0 = performance.now(); performance.mark('step:input'); }, { capture: true, once: true });
    document.addEventListener('kvfleet:rendered', () => performance.mark('step:rendered'), { once: true });
  });
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.keyboard.press(i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, n, { timeout: 60000 });
  steps.push(await page.evaluate(() => ({ t: window.kvfleet.lastRenderAt - window.__t0, ...window.kvfleet.lastTimes })));
  await page.waitForTimeout(150);
}
const buf = await browser.stopTracing();
writeFileSync(out, buf);
const cpu = mainCpu(JSON.parse(buf.toString()).traceEvents);
steps.forEach((s, i) => console.log(`${Object.entries(s).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}; main-thread CPU ${cpu[i]?.toFixed(1)} ms`));
const med = (xs) => { const v = [...xs].sort((a, b) => a - b); return (v[(v.length - 1) >> 1] + v[v.length >> 1]) / 2; };
console.log(`median: wall ${med(steps.map((s) => s.t)).toFixed(1)} ms, main-thread CPU ${med(cpu).toFixed(1)} ms`);
await browser.close();
await server.close();

// The main thread's CPU time (top-level tasks' thread time, clipped) between each step's marks.
function mainCpu(ev) {
  const at = (name) => ev.filter((e) => e.name === name).sort((a, b) => a.ts - b.ts);
  const ins = at('step:input'), outs = at('step:rendered');
  const tid = ins[0]?.tid;
  const tasks = ev.filter((e) => e.tid === tid && e.ph === 'X' && e.name === 'RunTask' && e.tdur !== undefined);
  return ins.map((m, i) => {
    const end = outs.find((o) => o.ts > m.ts)?.ts ?? m.ts;
    let sum = 0;
    for (const t of tasks) {
      const a = Math.max(t.ts, m.ts - 20000), b = Math.min(t.ts + t.dur, end); // the input's own task starts before its mark
      if (b > a && t.ts + t.dur > m.ts) sum += t.tdur * ((b - a) / t.dur);
    }
    return sum / 1000;
  });
}

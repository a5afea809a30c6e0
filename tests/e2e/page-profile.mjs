// tests/e2e/page-profile.mjs: a Chrome trace (with JS samples) of 10 replicas-slider steps on the
// default scenario, for finding where a redraw's time goes. Not a test: writes the trace and prints
// a per-step timeline of the main thread and the workers.
//   node tests/e2e/page-profile.mjs [--out=/tmp/trace.json] [--wait-hero] [--dir=www]
import { writeFileSync } from 'node:fs';
import { startServer, launchBrowser, WWW } from './harness.mjs';
const arg = (k, d) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? d;
const out = arg('out', '/tmp/kvfleet-trace.json');
const server = await startServer({ dir: arg('dir', WWW) });
const browser = await launchBrowser();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
await page.goto(server.url + '/');
await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
if (process.argv.includes('--wait-hero')) await page.waitForFunction(() => window.kvfleet.heroDone > 0, null, { timeout: 60000 });
await page.focus('[data-testid="input-instances"]');
await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame',
  'v8.execute', 'blink.user_timing', 'disabled-by-default-v8.cpu_profiler', 'toplevel', 'blink', 'cc', 'gpu'] });
const steps = [];
for (let i = 0; i < 10; i++) {
  await page.evaluate(() => { window.__t0 = 0; document.addEventListener('input', () => { window.__t0 = performance.now(); performance.mark('step:input'); }, { capture: true, once: true }); });
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.keyboard.press(i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, n);
  steps.push(await page.evaluate(() => ({ t: window.kvfleet.lastRenderAt - window.__t0, ...window.kvfleet.lastTimes })));
  await page.waitForTimeout(150);
}
const buf = await browser.stopTracing();
writeFileSync(out, buf);
for (const s of steps) console.log(Object.entries(s).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', '));
await browser.close();
await server.close();

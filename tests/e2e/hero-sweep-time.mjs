// tests/e2e/hero-sweep-time.mjs: how long after the page is opened the hero's sweep is whole (every
// drawn policy at every count to 256), per setup, the median of `--runs` cold loads; then, on the same
// page, how long after a setting's change (the hero's cache slider one step down, a new sweep of
// every point) the run on screen is drawn and the new sweep is whole, and whether the sweep's first
// point was handed out only after that run was drawn. Not a test: prints one line per setup and case
// (median, min and max ms, the points each policy got).
//   node tests/e2e/hero-sweep-time.mjs [--runs=5] [--only=trace]
import { startServer, launchBrowser } from './harness.mjs';
const runs = +(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const ALL = ['/', '/?routing=kv', '/?routing=sglang', '/?trace=conversation_trace.jsonl&routing=kv'];
const SETUPS = only ? ALL.filter((p) => p.includes(only)) : ALL;
const server = await startServer();
const browser = await launchBrowser();
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const span = (xs) => `median of ${xs.length}; ${Math.min(...xs)}-${Math.max(...xs)}`;
const whole = (page, n) => page.waitForFunction((k) => (window.kvfleet?.heroDone || 0) >= k && !window.kvfleet.hero.pending, n, { timeout: 120000 });

/** The hero's cache slider one step down (a real key press); ms from it to the run drawn, to the sweep whole. */
async function changeSetting(page) {
  const before = await page.evaluate(() => ({ runs: window.kvfleet.runCount, done: window.kvfleet.heroDone }));
  const slider = '[data-testid="hero-input-kv_blocks"]';
  await page.focus(slider);
  await page.evaluate((sel) => {
    window.__changeAt = 0;
    document.querySelector(sel).addEventListener('input', (e) => { window.__changeAt = e.timeStamp; }, { once: true });
  }, slider);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, before.runs, { timeout: 120000 });
  await whole(page, before.done + 1);
  return page.evaluate(() => {
    const t = window.kvfleet.hero.timing, at = window.__changeAt;
    return { drawn: window.kvfleet.lastRenderAt - at, whole: t.done - at, runFirst: t.started >= window.kvfleet.lastRenderAt };
  });
}

for (const path of SETUPS) {
  const ms = [], drawn = [], changed = [];
  let points = null, runFirst = true;
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(server.url + path);
    await whole(page, 1);
    ms.push(Date.now() - t0);
    points = await page.evaluate(() => Object.fromEntries(Object.entries(window.kvfleet.hero.sweeps).map(([k, v]) => [k, v.length])));
    const c = await changeSetting(page);
    drawn.push(Math.round(c.drawn));
    changed.push(Math.round(c.whole));
    runFirst &&= c.runFirst;
    await context.close();
  }
  console.log(`${path}: sweep whole ${med(ms)} ms after opening (${span(ms)}), points ${JSON.stringify(points)}`);
  console.log(`${path}: a setting's change: its run drawn after ${med(drawn)} ms (${span(drawn)}), the new sweep whole after ${med(changed)} ms (${span(changed)}); ` +
    `the sweep started after the run was drawn: ${runFirst ? 'every time' : 'NOT every time'}`);
}
await browser.close();
await server.close();

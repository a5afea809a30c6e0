// tests/e2e/hero-sweep-time.mjs: how long after the page is opened the hero's sweep is whole (every
// drawn policy at every count to 256), per setup, the median of `--runs` cold loads. Not a test:
// prints one line per setup (median, min and max ms, the points each policy got).
//   node tests/e2e/hero-sweep-time.mjs [--runs=5]
import { startServer, launchBrowser } from './harness.mjs';
const runs = +(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
const SETUPS = ['/', '/?routing=kv', '/?routing=sglang', '/?trace=conversation_trace.jsonl&routing=kv'];
const server = await startServer();
const browser = await launchBrowser();
for (const path of SETUPS) {
  const ms = [];
  let points = null;
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(server.url + path);
    await page.waitForFunction(() => (window.kvfleet?.heroDone || 0) >= 1 && !window.kvfleet.hero.pending, null, { timeout: 120000 });
    ms.push(Date.now() - t0);
    points = await page.evaluate(() => Object.fromEntries(Object.entries(window.kvfleet.hero.sweeps).map(([k, v]) => [k, v.length])));
    await context.close();
  }
  ms.sort((a, b) => a - b);
  console.log(`${path}: sweep whole ${ms[ms.length >> 1]} ms after opening (median of ${runs}; ${ms[0]}-${ms.at(-1)}), points ${JSON.stringify(points)}`);
}
await browser.close();
await server.close();

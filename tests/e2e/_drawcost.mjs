import { startServer, launchBrowser } from './harness.mjs';
const server = await startServer();
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(server.url + '/?trace=conversation_trace.jsonl&routing=kv');
await page.waitForFunction(() => window.kvfleet?.hero && window.kvfleet.runCount > 0, null, { timeout: 60000 });
await page.evaluate(() => {
  const h = window.kvfleet.hero; window.__cost = { draw: 0, words: 0, nd: 0, nw: 0 };
  for (const k of ['draw', 'words']) { const f = h[k].bind(h); h[k] = (...a) => { const t = performance.now(); const r = f(...a); window.__cost[k] += performance.now() - t; window.__cost['n' + k[0]] += 1; return r; }; }
});
await page.waitForFunction(() => (window.kvfleet?.heroDone || 0) >= 1 && !window.kvfleet.hero.pending, null, { timeout: 120000 });
console.log(JSON.stringify(await page.evaluate(() => window.__cost)));
await browser.close(); await server.close();

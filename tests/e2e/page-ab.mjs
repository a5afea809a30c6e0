// tests/e2e/page-ab.mjs: interleaved A/B of the page's cold load (window.kvfleet.firstRenderAt, a fresh
// context each time) and, with --redraw, its input -> redraw median, for www directories given as
// arguments (e.g. a copy of www/ from another commit, and www). Not a test: prints figures only.
//   node tests/e2e/page-ab.mjs /tmp/www-before www --rounds=6 [--redraw] [--hero]
import { startServer, launchBrowser } from './harness.mjs';
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rounds = +(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) || 5);
const redraw = process.argv.includes('--redraw');
const hero = process.argv.includes('--hero'); // also wait for the hero's sweep (its marks.heroDone)
const path = process.argv.find((a) => a.startsWith('--path='))?.slice(7) || '/';
const servers = await Promise.all(dirs.map((dir) => startServer({ dir })));
const browser = await launchBrowser();
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const res = dirs.map(() => ({ cold: [], heroFirst: [], redraw: [], extra: [] }));
for (let r = 0; r < rounds; r++) {
  for (let v = 0; v < dirs.length; v++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(servers[v].url + path);
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0, null, { timeout: 30000 });
    if (hero) await page.waitForFunction(() => window.kvfleet.heroDone > 0, null, { timeout: 30000 }); // (marks.heroDone, if the page takes it)
    (res[v].marks ||= []).push(await page.evaluate(() => window.kvfleet.marks || {}));
    res[v].cold.push(await page.evaluate(() => window.kvfleet.firstRenderAt));
    if (redraw) {
      await page.waitForFunction(() => window.kvfleet.heroDone > 0, null, { timeout: 60000 });
      await page.focus('[data-testid="input-instances"]');
      const times = [];
      for (let i = 0; i < 10; i++) {
        await page.evaluate(() => { window.__t0 = 0; document.addEventListener('input', () => { window.__t0 = performance.now(); }, { capture: true, once: true }); });
        const n = await page.evaluate(() => window.kvfleet.runCount);
        await page.keyboard.press(i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft');
        await page.waitForFunction((n) => window.kvfleet.runCount > n, n);
        times.push(await page.evaluate(() => [window.kvfleet.lastRenderAt - window.__t0, window.kvfleet.lastRunMs, window.kvfleet.lastDrawMs, window.kvfleet.lastTimes || null]));
      }
      res[v].redraw.push(med(times.map((t) => t[0])));
      res[v].extra.push({ run: med(times.map((t) => t[1])), draw: med(times.map((t) => t[2])), times: times.map((t) => t[3]) });
    }
    await context.close();
  }
}
for (let v = 0; v < dirs.length; v++) {
  const x = res[v];
  console.log(`${dirs[v]}: cold median ${med(x.cold).toFixed(0)} [${x.cold.map((t) => t.toFixed(0)).join(' ')}]` +
    (redraw ? `; redraw median-of-medians ${med(x.redraw).toFixed(1)} [${x.redraw.map((t) => t.toFixed(1)).join(' ')}] run ${med(x.extra.map((e) => e.run)).toFixed(1)} draw ${med(x.extra.map((e) => e.draw)).toFixed(1)}` : ''));
  if (x.marks && x.marks[0]) { const ks = Object.keys(x.marks[0]); console.log('   marks', ks.map((k) => `${k} ${med(x.marks.map((m) => m[k] ?? NaN)).toFixed(0)}`).join(', ')); }
  if (process.argv.includes('--verbose')) console.log(JSON.stringify(x.extra.map((e) => e.times)));
}
await browser.close();
for (const s of servers) await s.close();

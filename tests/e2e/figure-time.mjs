// tests/e2e/figure-time.mjs: how long two slow figures take, per build, builds in turns (a copy of www/
// from another commit, then this one), the median of `--runs` cold pages. Not a test: prints per build
// the "cache too small" lesson's figure on the conversation trace (from opening ?lesson=cache-too-small to
// its canvas, and to the whole material: interview and check) and the hero's spread over 16 seeds (from
// ticking "Spread over seeds" with 16 seeds, the first screen's sweep done, to every point's band).
//   node tests/e2e/figure-time.mjs [--runs=3] [--only=lesson|band] [DIR ...]   (default: www)
import { startServer, launchBrowser } from './harness.mjs';

const args = process.argv.slice(2);
const arg = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const runs = +(arg('runs') ?? 3);
const only = arg('only')?.split(',') ?? ['lesson', 'band'];
const dirs = args.filter((a) => !a.startsWith('--'));
const servers = await Promise.all((dirs.length ? dirs : [null]).map((dir) => (dir ? startServer({ dir }) : startServer())));
const browser = await launchBrowser();
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const TIMEOUT = { timeout: 120000 };

/** The lesson's figure and its whole material, ms after opening. */
async function lesson(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const t0 = Date.now();
  await page.goto(`${url}/?lesson=cache-too-small`);
  await page.waitForSelector('[data-testid=lesson-diagram] canvas', TIMEOUT);
  const figure = Date.now() - t0;
  await page.waitForFunction(() => window.kvfleet?.lessonMaterial?.id === 'cache-too-small', null, TIMEOUT);
  const material = Date.now() - t0;
  await ctx.close();
  return { figure, material };
}

/** The band over 16 seeds, ms after it is asked for. */
async function band(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  await page.goto(`${url}/`);
  await page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending, null, TIMEOUT);
  await page.fill('[data-testid=hero-band-k]', '16');
  const t0 = Date.now();
  await page.check('[data-testid=hero-band-on]');
  await page.waitForFunction(() => {
    const b = window.kvfleet.heroBand;
    return b && !b.pending && b.ctx && b.spreads.size === b.ctx.policies.length * b.ctx.xs.length;
  }, null, TIMEOUT);
  const ms = Date.now() - t0;
  await ctx.close();
  return ms;
}

const res = servers.map(() => ({ figure: [], material: [], band: [] }));
for (let r = 0; r < runs; r++) {
  for (const [i, s] of servers.entries()) {
    if (only.includes('lesson')) { const l = await lesson(s.url); res[i].figure.push(l.figure); res[i].material.push(l.material); }
    if (only.includes('band')) res[i].band.push(await band(s.url));
  }
}
for (const [i, r] of res.entries()) {
  const name = dirs[i] ?? 'www';
  if (only.includes('lesson')) console.log(`${name}: the lesson's figure ${med(r.figure)} ms after opening, its whole material ${med(r.material)} ms (medians of ${runs}; ${r.figure.join(', ')})`);
  if (only.includes('band')) console.log(`${name}: the band over 16 seeds ${med(r.band)} ms after it is asked for (median of ${runs}; ${r.band.join(', ')})`);
}
await browser.close();
await Promise.all(servers.map((s) => s.close()));

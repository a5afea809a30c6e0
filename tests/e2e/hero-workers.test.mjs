// tests/e2e/hero-workers.test.mjs: the hero's sweep spreads its points over two or more workers (each
// takes the next point when it finishes one), every point once, the run on screen not run again (its
// point, taken from its report, equal to a worker's); after a change of setting, the new sweep starts
// only once that setting's run is drawn, and it is still whole and equal to single runs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 120000;
const whole = (page, n) => page.waitForFunction((k) => (window.kvfleet?.heroDone || 0) >= k && !window.kvfleet.hero.pending, n, { timeout: PAGE_TIMEOUT });
const perWorker = (page) => page.evaluate(() => window.kvfleet.hero.hosts.map((h) => h.points || 0));
/** The point a fresh sweep worker sends back for the run on screen's settings. */
const workerPoint = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  const h = window.kvfleet.hero;
  const w = new Worker(h.workerUrl, { type: 'module' });
  w.onmessage = ({ data: m }) => {
    if (m.type === 'batch-part') { w.terminate(); resolve(m.point); }
    if (m.type === 'error' || m.type === 'fatal') { w.terminate(); reject(new Error(m.message)); }
  };
  w.postMessage({ type: 'batch', id: 1, configs: [{ ...h.config }], trace: h.source });
}));
const shownPoint = (page) => page.evaluate(() => {
  const r = window.kvfleet.lastReport;
  return window.kvfleet.hero.sweeps[r.config.routing].find((q) => q.instances === r.config.instances);
});
const counts = (page) => page.evaluate(() => Object.fromEntries(Object.entries(window.kvfleet.hero.sweeps).map(([p, v]) => [p, v.map((q) => q.instances)])));

test('the sweep spreads over the workers; a changed setting\'s sweep starts after its run is drawn', async () => {
  const { page, errors } = await site.open('/?routing=kv', { viewport: { width: 1280, height: 900 } });
  await whole(page, 1);
  const xs = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 24, 32, 48, 64, 96, 128, 192, 256];
  const first = await perWorker(page);
  assert.ok(first.length >= 2, `${first.length} workers`);
  assert.ok(first.every((n) => n > 0), `every worker ran points: ${first}`);
  assert.equal(first.reduce((a, b) => a + b, 0), 3 * xs.length - 1, 'each of the 60 points once, the run on screen not again');
  for (const [p, got] of Object.entries(await counts(page))) assert.deepEqual(got, xs, p);
  assert.equal(JSON.stringify(await shownPoint(page)), JSON.stringify(await workerPoint(page)), 'the run on screen\'s point is a worker\'s');

  // The cache slider one step down: a new sweep of every point, after the new run is drawn.
  const runs = await page.evaluate(() => window.kvfleet.runCount);
  await page.focus('[data-testid="hero-input-kv_blocks"]');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, runs, { timeout: PAGE_TIMEOUT });
  await whole(page, 2);
  const t = await page.evaluate(() => ({ ...window.kvfleet.hero.timing, drawn: window.kvfleet.lastRenderAt, blocks: window.kvfleet.lastReport.config.kv_blocks }));
  assert.ok(Number.isFinite(t.blocks), 'the run is of a bounded cache');
  assert.ok(t.started >= t.drawn, `the sweep started at ${t.started.toFixed(0)} ms, the run was drawn at ${t.drawn.toFixed(0)} ms`);
  const second = await perWorker(page);
  assert.equal(second.reduce((a, b) => a + b, 0) - first.reduce((a, b) => a + b, 0), 3 * xs.length - 1, 'the new sweep ran each point once, the run on screen not again');
  for (const [p, got] of Object.entries(await counts(page))) assert.deepEqual(got, xs, p);
  // Its point at the run's own count and policy is the run on screen.
  const here = await page.evaluate(() => {
    const r = window.kvfleet.lastReport;
    return { run: r.summary.hit_rate_tokens, point: window.kvfleet.hero.sweeps.kv.find((q) => q.instances === r.config.instances).hit_rate_tokens };
  });
  assert.equal(here.point, here.run);
  assert.deepEqual(errors, []);
});

test('a worker holds at most two of the sweep\'s points at a time, and is handed the next as each comes back', async () => {
  // In order, per worker: each batch of points the page posts, and each point that comes back (logged
  // before the page handles it, so a point comes before the one handed out in its place).
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    window.__batchLog = [];
    let workers = 0;
    window.Worker = class extends window.Worker {
      constructor(...args) {
        super(...args);
        const w = workers++;
        this.addEventListener('message', (e) => { if (e.data?.type === 'batch-part') window.__batchLog.push({ w, got: e.data.id }); });
        const post = this.postMessage.bind(this);
        this.postMessage = (msg, ...rest) => {
          if (msg?.type === 'batch') window.__batchLog.push({ w, sent: msg.id, n: msg.configs.length });
          return post(msg, ...rest);
        };
      }
    };
  });
  try {
    const page = await context.newPage();
    await page.goto(`${site.url}/?routing=kv`);
    await whole(page, 1);
    const { log, id } = await page.evaluate(() => ({ log: window.__batchLog, id: window.kvfleet.hero.nextId - 1 }));
    const held = new Map(); // worker -> points handed to it and not yet back
    let most = 0, handed = 0, messages = 0;
    for (const e of log) {
      if (e.sent === id) {
        held.set(e.w, (held.get(e.w) || 0) + e.n);
        most = Math.max(most, held.get(e.w));
        handed += e.n;
        messages += 1;
      } else if (e.got === id) held.set(e.w, held.get(e.w) - 1);
    }
    assert.equal(handed, 59, 'the 59 points to run (the run on screen is the 60th) were handed out once each');
    assert.ok(most <= 2, `a worker held ${most} points at once`);
    assert.ok(messages > 2 * held.size, `the points went out as the workers sent theirs back (${messages} messages to ${held.size} workers)`);
    assert.ok([...held.values()].every((n) => n === 0), `every point handed out came back: ${[...held]}`);
  } finally { await context.close(); }
});

// tests/e2e/split-predict.test.mjs: a split (prefill + decode) fleet with predict on route, in real
// Chromium (issue #46). The simulator used to trap on it (the router's predictions covered the prefill
// pool, the hits it extended the whole fleet), and the page shows the predict control in a split
// layout. Opened from a link and reached through the controls as a reader would, the run finishes with
// no trap, no error and no console error; the charts are drawn; the numbers on screen account for
// every request, counted from the settings (nothing can be rejected or time out: unbounded cache and
// queue, no timeout). A report that says some request did not end exactly once (`unended`) shows its
// sentence, the report's first warning, as an error over the result, gone with the next clean run.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, collectErrors, screenshot, ROOT } from './harness.mjs';

const N = 300; // requests
const P = 2;   // prefill replicas
const D = 2;   // decode replicas
const TTL = 500; // predict on route, ms
const CHARTS = ['chart-hit', 'chart-load', 'chart-latency', 'chart-queue', 'chart-cache'];
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** Waits until the main run has been drawn (more than `after` runs) or the worker trapped. */
async function runOrTrap(page, after = 0) {
  await page.waitForFunction((k) => window.kvfleet?.runCount > k || (window.kvfleet?.traps ?? 0) > 0, after, { timeout: 30000 });
  const k = await page.evaluate(() => ({ traps: window.kvfleet.traps ?? 0, errors: window.kvfleet.errors }));
  assert.equal(k.traps, 0, `the simulator trapped: ${k.errors.join(' | ')}`);
}

/** Numbers as the page writes them ("1,234"). */
const int = (s) => Number(s.replace(/[,\s\u202f]/g, ''));

/** The checks of a finished split run with predict on route: no trap or error; charts; every request told. */
async function assertWholeRun(page, errors, ttl) {
  const report = await page.evaluate(() => window.kvfleet.lastReport);
  assert.equal(report.config.prefill_instances, P);
  assert.equal(report.config.decode_instances, D);
  assert.equal(report.config.router_predict_ttl_ms, ttl, 'predict on route is on in the run on screen');

  // No trap, no rejected run, no error shown.
  assert.equal(await page.evaluate(() => window.kvfleet.workerReplacements()), 0, 'the worker was never replaced');
  assert.deepEqual(await page.evaluate(() => window.kvfleet.errors), []);
  assert.equal(await page.isVisible('[data-testid=run-error]'), false, await page.textContent('[data-testid=run-error]'));

  // The hero's sweep of the prefill pool under these settings (its own worker) finished, and drew.
  await page.waitForFunction((t) => {
    const h = window.kvfleet.hero;
    return /could not run/.test(document.querySelector('#hero-caption')?.textContent)
      || (h.config.router_predict_ttl_ms === t && !h.pending && Object.keys(h.sweeps).length > 0);
  }, ttl, { timeout: 60000 });
  assert.doesNotMatch(await page.textContent('#hero-caption'), /could not run/);
  const sweep = await page.evaluate(() => window.kvfleet.hero.sweeps.kv);
  assert.ok(sweep.length > 1, `the hero swept kv over prefill pools: ${JSON.stringify(sweep)}`);
  for (const q of sweep) assert.deepEqual([q.requests, q.rejected, q.timed_out], [N, 0, 0], `hero point at ${q.instances}`);
  assert.ok(sweep.some((q) => q.instances === P), 'the run on screen is a hero point');
  const hero = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hero]')).data.datasets
    .reduce((n, d) => n + d.data.filter((p) => Number.isFinite(p?.y ?? p)).length, 0));
  assert.ok(hero >= sweep.length, `the hero chart has the sweep's points (${hero})`);

  // The dashboard's charts drew the run: each has a point that is a number.
  await page.evaluate(() => window.kvfleet.drawAllCharts());
  for (const id of CHARTS) {
    const finite = await page.evaluate((x) => {
      const c = window.Chart.getChart(document.querySelector(`[data-testid="${x}"]`));
      return c ? c.data.datasets.reduce((n, d) => n + d.data.filter((p) => Number.isFinite(typeof p === 'object' && p ? p.y : p)).length, 0) : -1;
    }, id);
    assert.ok(finite > 0, `${id} drew data (${finite} points)`);
  }

  // Every request accounted for on screen, counted from the settings.
  assert.match(await page.textContent('[data-testid=status]'), new RegExp(`^${N} requests on ${P + D} replicas, routing=kv`));
  const makespan = await page.textContent('[data-testid=fig-makespan]');
  assert.match(makespan, new RegExp(`(?<![\\d,])${N} done\\b`), makespan);
  assert.doesNotMatch(makespan, /rejected|timed out/);
  assert.equal(await page.isVisible('[data-testid=fig-dropped]'), false, 'nobody turned away');
  const rows = await page.locator('[data-testid=replica-rows] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
  assert.equal(rows.length, P + D);
  const sum = (pool) => rows.filter(([name]) => name.endsWith(pool)).reduce((n, [, v]) => n + int(v), 0);
  assert.equal(sum('· prefill'), N, `the prefill pool took every request: ${JSON.stringify(rows)}`);
  assert.equal(sum('· decode'), N, `the decode pool answered every request: ${JSON.stringify(rows)}`);
  assert.match(await page.textContent('[data-testid=transfers-words]'), new RegExp(`^${N} prompts crossed to the decode pool`));
  assert.deepEqual(errors, []);
}

test('a link to a split fleet with predict on route runs: no trap, charts drawn, every request told', async () => {
  const url = `/?routing=kv&prefill_instances=${P}&decode_instances=${D}&instances=${P + D}&router_predict_ttl_ms=${TTL}&num_requests=${N}`;
  const { page, errors, context } = await site.open(url);
  try {
    await runOrTrap(page);
    await page.waitForFunction(() => window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    await page.evaluate(() => { document.getElementById('group-router').open = true; });
    assert.equal(await page.isVisible('[data-testid=field-router_predict_ttl_ms]'), true, 'the predict control shows in the split layout');
    assert.equal(await page.textContent('[data-testid=readout-router_predict_ttl_ms]'), `${TTL} ms`);
    assert.equal(await page.isVisible('[data-testid=field-decode_instances]'), true);
    await assertWholeRun(page, errors, TTL);
    await screenshot(page, 'split-predict-link');
  } finally { await context.close(); }
});

test('turning on the split layout and predict on route with the controls runs every request', async () => {
  const { page, errors, context } = await site.open(`/?routing=kv&num_requests=${N}`);
  try {
    await runOrTrap(page);
    await page.waitForFunction(() => window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    let n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('label[for="in-fleet_layout-disaggregated"]');
    await runOrTrap(page, n);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.prefill_instances), P, 'the 4 replicas split 2 + 2');
    // "Advanced: what the router knows", then the predict slider's first step up from off.
    await page.click('#group-router > summary');
    await page.focus('[data-testid=input-router_predict_ttl_ms]');
    n = await page.evaluate(() => window.kvfleet.runCount);
    await page.keyboard.press('ArrowRight');
    await runOrTrap(page, n);
    const ttl = await page.evaluate(() => window.kvfleet.lastReport.config.router_predict_ttl_ms);
    assert.ok(ttl > 0, 'the step turned predict on');
    assert.equal(await page.textContent('[data-testid=readout-router_predict_ttl_ms]'), `${ttl} ms`);
    await assertWholeRun(page, errors, ttl);
  } finally { await context.close(); }
});

test('a report with a request that did not end exactly once shows its sentence as an error, until a clean run', async () => {
  // The simulator no longer loses requests, so the report is broken on its way to the page: while
  // window.__unended is set, every main-lane result gains `unended` and its sentence as the first
  // warning, as src/report.rs writes them.
  const sentence = '1 request(s) arrived and never ended (simulator bug): #7 waiting on an idle replica (replica 2).';
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((text) => {
    window.__unended = true;
    const Base = window.Worker;
    window.Worker = class extends Base {
      set onmessage(f) {
        super.onmessage = (e) => {
          const m = e.data;
          if (!(window.__unended && m?.type === 'result' && m.lane === 'main')) return f(e);
          const r = JSON.parse(m.report);
          r.unended = { count: 1, ended_twice: [], in_flight: [{ id: 7, replica: 2, state: 'waiting on an idle replica' }] };
          r.warnings = [text, ...r.warnings];
          return f({ data: { ...m, report: JSON.stringify(r) } });
        };
      }
      get onmessage() { return super.onmessage; }
    };
  }, sentence);
  const page = await context.newPage();
  const errors = collectErrors(page);
  try {
    await page.goto(`${site.url}/?routing=kv&num_requests=${N}`);
    await runOrTrap(page);
    await page.waitForFunction(() => window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    const box = page.locator('[data-testid=run-error]');
    assert.equal(await box.isVisible(), true, 'the error shows');
    assert.equal(await box.getAttribute('role'), 'alert');
    const text = await box.textContent();
    assert.ok(text.endsWith(sentence), text);
    assert.match(text, /^Simulator error: /);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.unended.count), 1);
    await screenshot(page, 'split-predict-unended', { fullPage: false });

    // The next run is whole: the error goes.
    await page.evaluate(() => { window.__unended = false; });
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await page.focus('[data-testid=input-instances]');
    await page.keyboard.press('ArrowRight');
    await runOrTrap(page, n);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.unended), undefined);
    assert.equal(await box.isVisible(), false, 'a clean run clears the error');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

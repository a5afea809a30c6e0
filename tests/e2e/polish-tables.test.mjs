// tests/e2e/polish-tables.test.mjs: two figures a first-time reader took for one another, in real
// Chromium. The sweep table leads with the token hit rate (the page's headline figure) under that
// name, and calls the share of requests with any cached block by what it counts; a loaded row's token
// hit rate is the headline's. The Tasks card names its two near hit rates: the turns' rates averaged
// (each turn once) and the run's over all prompt tokens (the headline's).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT } from './harness.mjs';

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

async function openPage(where) {
  const opened = await site.open(where, { viewport: { width: 1280, height: 900 } });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
  return opened;
}

/** format.js pct: a share as a percentage to a tenth. */
const pct = (x) => `${(100 * x).toFixed(1)}%`;

test('the sweep table: "Token hit rate" holds each point\'s token hit rate, "Any cached block" its request share; a loaded row\'s is the headline\'s', async () => {
  const { page, errors } = await openPage('/');
  const seq = await page.evaluate(() => window.kvfleet.lastSweep?.seq ?? 0);
  await page.click('[data-testid="sweep-run"]');
  await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, seq, { timeout: 60000 });
  const head = await page.$$eval('[data-testid="sweep-table"] thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(!head.includes('Hit rate'), `no bare "Hit rate" column: ${head}`);
  const tok = head.indexOf('Token hit rate'), any = head.indexOf('Any cached block');
  assert.ok(tok > 0 && any > tok, `"Token hit rate" first, then "Any cached block": ${head}`);
  const rows = await page.$$eval('[data-testid="sweep-table"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const points = await page.evaluate(() => window.kvfleet.lastSweep.series.flatMap((se) => se.points.map((p) => p.summary)));
  assert.equal(rows.length, points.length);
  // The two rates part on the defaults (a request counts with one cached block), so a swapped column shows.
  assert.ok(points.some((s) => pct(s.hit_rate_tokens) !== pct(s.hit_rate_requests)), 'the sweep has points where the two rates differ');
  rows.forEach((cells, i) => {
    assert.equal(cells[tok], pct(points[i].hit_rate_tokens), `row ${i + 1}: token hit rate`);
    assert.equal(cells[any], pct(points[i].hit_rate_requests), `row ${i + 1}: requests with any cached block`);
  });
  // Load the last row: the headline's token hit rate is that row's cell.
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.click('[data-testid="sweep-table"] tbody tr:last-child .point-load');
  await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
  const headline = await page.textContent('[data-testid="fig-hit-rate"]');
  assert.ok(headline.includes(rows.at(-1)[tok]), `the headline "${headline}" shows the row's ${rows.at(-1)[tok]}`);
  await page.locator('[data-testid="sweep-table"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'polish-sweep-table', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('the Tasks card names its two near hit rates: the mean of the turns\' rates, and all prompt tokens\' (the headline\'s)', async () => {
  const { page, errors } = await openPage('/?lesson=more-replicas-slower');
  await page.waitForSelector('[data-testid="tasks"]:not([hidden])');
  const r = await page.evaluate(() => window.kvfleet.lastReport);
  const rates = r.sessions.token_hit_rate_by_turn.filter((x) => Number.isFinite(x)).map((x) => 100 * x);
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  const sub = await page.textContent('[data-testid="fig-task-last-hit"] .sub');
  assert.equal(sub, `turn 1: ${rates[0].toFixed(1)}% · mean of the ${rates.length} turns: ${mean.toFixed(1)}% · all prompt tokens: ${pct(r.summary.hit_rate_tokens)}`);
  // The two are near here (a reader would take one for the other without the names) and not equal.
  assert.notEqual(mean.toFixed(1), (100 * r.summary.hit_rate_tokens).toFixed(1));
  assert.ok(Math.abs(mean - 100 * r.summary.hit_rate_tokens) < 2, `near: ${mean} against ${100 * r.summary.hit_rate_tokens}`);
  const headline = await page.textContent('[data-testid="fig-hit-rate"]');
  assert.ok(headline.includes(pct(r.summary.hit_rate_tokens)), `"all prompt tokens" is the headline's figure: ${headline}`);
  await page.locator('[data-testid="tasks"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'polish-tasks-card', { fullPage: false });
  assert.deepEqual(errors, []);
});

// tests/e2e/fleet-sweeps.test.mjs: the page's replica sweeps on fleets that are not a fixed number of
// identical replicas. A mixed fleet's policy comparison runs its replica sweep in the fleet's
// proportions (at the fleet's own size the sweep's point is the run at the current settings). Under an
// autoscaler the first screen sweeps only the starting counts the autoscaler's bounds accept (the
// spike lesson: 2 to 12), says so, and draws no simple-model prediction, which counts a fixed fleet.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

test('a mixed fleet\'s policy comparison runs its replica sweep; at the fleet\'s own 4 replicas it equals the table', async () => {
  const { page, errors, context } = await site.open('/?fleet=2:llama3-8b-h100,2:llama3-8b-mi300x&routing=kv', { heroSweep: false });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
    const choices = await page.evaluate(() => window.kvfleet.params.find((p) => p.name === 'routing').choices);
    await page.click('[data-testid="compare-run"]');
    await page.waitForFunction(() => /Compare failed/.test(document.getElementById('compare-status').textContent)
      || (document.querySelectorAll('[data-testid="compare-table"] tbody tr').length > 0 && !document.querySelector('[data-testid="compare-run"]').disabled),
    null, { timeout: 120000 });
    assert.doesNotMatch(await page.textContent('#compare-status'), /Compare failed/);
    assert.equal(await page.locator('[data-testid="compare-table"] tbody tr').count(), choices.length);
    const sweep = await page.evaluate(() => {
      const ch = window.Chart.getChart(document.querySelector('[data-testid="compare-sweep"]'));
      return { labels: ch.data.labels, lines: Object.fromEntries(ch.data.datasets.map((d) => [d.label, d.data])) };
    });
    assert.deepEqual(sweep.labels, ['1', '2', '4', '8', '16', '32']);
    for (const [policy, ys] of Object.entries(sweep.lines)) assert.ok(ys.every(Number.isFinite), `${policy}: every point ran (${ys})`);
    // At 4 replicas the sweep's kv point is the fleet itself: the table's kv row, the run on screen.
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    assert.equal(r.config.routing, 'kv');
    const kvAt4 = sweep.lines.kv[sweep.labels.indexOf('4')];
    assert.ok(Math.abs(kvAt4 - 100 * r.summary.hit_rate_tokens) < 1e-9, `kv at 4 replicas: ${kvAt4} against the run's ${100 * r.summary.hit_rate_tokens}`);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('under the spike lesson\'s autoscaler the first screen sweeps its allowed starting sizes only, says so, and predicts nothing', async () => {
  const { page, errors, context } = await site.open('/?lesson=spike-cold-replicas');
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
      null, { timeout: 180000 });
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    const lo = r.config.min_instances ?? 1, hi = r.config.max_instances;
    assert.equal(r.config.autoscale, 'kpa');
    assert.deepEqual([lo, hi], [2, 12], 'the lesson runs 2 to 12 replicas');
    const caption = await page.textContent('[data-testid="hero-caption"]');
    assert.doesNotMatch(caption, /could not run/, caption);
    assert.match(caption, /each starting replica count the autoscaler's bounds allow \(2 to 12\)/, caption);
    assert.match(caption, /No prediction line: .*fixed fleet/, caption);
    const counts = await page.evaluate(() => Object.values(window.kvfleet.hero.sweeps).map((pts) => pts.map((q) => q.instances)));
    assert.ok(counts.length >= 2, `policies swept: ${counts.length}`);
    for (const xs of counts) {
      assert.ok(xs.every((x) => x >= lo && x <= hi), `swept counts within 2..12: ${xs}`);
      assert.ok(xs.includes(lo) && xs.includes(hi), `both ends swept: ${xs}`);
    }
    assert.doesNotMatch(await page.textContent('body'), /the model predicts/);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('without an autoscaler the sentence still states the model\'s prediction', async () => {
  const { page, errors, context } = await site.open('/', { heroSweep: false });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0, null, { timeout: 60000 });
    await page.waitForFunction(() => /the model predicts/.test(document.body.textContent), null, { timeout: 30000 });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

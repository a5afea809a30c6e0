// tests/e2e/over-time-kpa.test.mjs: the load-over-time card says when the KPA scaled down before its
// stable window had filled (at the start its window holds only the time since 0 s, and it has no
// scale-down delay), from the run's own changes; a run whose first drain comes later, and the slo
// scaler, say nothing of it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;

/** Opens `link`, waits for its autoscaled run and returns the card's words and the report. */
async function cardOf(link, width = 1280) {
  const { page, errors, context } = await site.open(link, { viewport: { width, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.autoscale && document.querySelector('[data-testid=ts-words]')?.textContent,
    null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => ({ words: document.querySelector('[data-testid=ts-words]').textContent, report: window.kvfleet.lastReport }));
  return { ...got, page, errors, context };
}

/** The first drain and the ready replicas before it and after that tick's drains, read off the changes. */
function firstDrain(changes) {
  let ready = null;
  for (const [i, c] of changes.entries()) {
    if (c.kind !== 'drain') { ready = c.ready; continue; }
    const same = changes.slice(i).filter((d) => d.kind === 'drain' && d.t_s === c.t_s);
    return { t: c.t_s, from: ready ?? c.ready + 1, to: same[same.length - 1].ready };
  }
  return null;
}

test('two starting replicas under the KPA: the card says it scaled down to one at its first tick, before its 60 s window filled', async () => {
  const { words, report, page, errors, context } = await cardOf('/?autoscale=kpa&instances=2');
  try {
    assert.equal(report.autoscale.scaler, 'kpa');
    const d = firstDrain(report.autoscale.changes);
    // Its first tick is at 2 s (Knative's tick interval), well inside the default 60 s stable window.
    assert.deepEqual(d, { t: 2, from: 2, to: 1 }, JSON.stringify(report.autoscale.changes.slice(0, 3)));
    assert.ok(words.includes('The kpa autoscaler scaled down from 2 to 1 ready replica at 2.0 s, before its 60 s stable window had filled: '
      + 'it averages the requests in flight over the time since the start, and has no scale-down delay (Knative\'s defaults).'), words);
    await page.locator('[data-testid=timeseries]').scrollIntoViewIfNeeded();
    await screenshot(page, 'over-time-kpa-early-drain', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a KPA run whose first drain comes after its window filled, and the slo scaler, say nothing of it', async () => {
  // One starting replica at 16 req/s, then 1 req/s from 20 s: it grows at once and drains only at
  // 54 s, long after its 6 s window filled.
  for (const link of ['/?autoscale=kpa&instances=1&kpa_stable_window_s=6&request_rate_schedule=0s:16,20s:1&num_requests=400',
    '/?autoscale=slo&instances=2']) {
    const { words, report, errors, context } = await cardOf(link);
    try {
      const d = firstDrain(report.autoscale.changes);
      const window = report.config.kpa_stable_window_s ?? 60;
      if (report.autoscale.scaler === 'kpa') assert.ok(d && d.t >= window, `${link}: first drain ${JSON.stringify(d)}`);
      assert.doesNotMatch(words, /scaled down from|stable window had filled/, `${link}: ${words}`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
});

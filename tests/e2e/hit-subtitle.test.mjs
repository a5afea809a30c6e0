// The per-replica hit-rate chart's subtitle: the fleet's token hit rate and the replicas' spread, as a
// range only when the replicas' rates differ once rounded (a reader found "42%–42%", a range of nothing).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const subtitleOf = (page) => page.evaluate(() => {
  const c = window.Chart.getChart(document.querySelector('[data-testid="chart-hit"]'));
  return { text: c.options.plugins.subtitle.text, rates: c.data.datasets[0].data.filter((v) => v !== null) };
});

for (const [path, kind] of [['/', 'even'], ['/?instances=16', 'spread']]) {
  test(`the hit-rate chart's subtitle on ${path}: ${kind === 'even' ? 'one value for replicas that round alike' : 'a range for replicas that differ'}`, async () => {
    const { page, errors } = await site.open(path);
    await page.waitForFunction(() => window.kvfleet?.runCount > 0, null, { timeout: 60_000 });
    const { text, rates } = await subtitleOf(page);
    const s = await page.evaluate(() => window.kvfleet.lastReport.summary);
    assert.ok(text.startsWith(`- - fleet ${(100 * s.hit_rate_tokens).toFixed(1)}%`), text);
    // Computed here from the chart's own bars (percent values), rounded as the subtitle rounds them.
    const lo = `${Math.min(...rates).toFixed(0)}%`, hi = `${Math.max(...rates).toFixed(0)}%`;
    if (lo === hi) assert.ok(text.endsWith(`▒ every replica ≈ ${lo}`), `${kind}: ${text}`);
    else assert.ok(/▒ (per-replica spread )?/.test(text) && text.endsWith(` ${lo}–${hi}`) && !text.includes('every replica'), `${kind}: ${text}`); // a narrow chart drops "per-replica spread"
    assert.equal(lo === hi, kind === 'even', `the default run's replicas round alike, 16 replicas' do not: ${lo} ${hi}`);
    assert.deepEqual(errors, []);
  });
}

// tests/e2e/over-time-align.test.mjs: the load-over-time card's three charts share one time axis: the
// same x range, and one time at one page x on each (the plot areas line up, with or without the
// rates chart's right axis of ready replicas); and the card's description is short.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const IDS = ['ts-rate', 'ts-hit', 'ts-ttft'];

/** Opens `link`, waits for its run (`ready`), scrolls through the card and waits for its three charts drawn on the run's time range. */
async function openCard(link, ready) {
  const opened = await site.open(link, { viewport: { width: 1280, height: 900 } });
  const { page } = opened;
  await page.waitForFunction(ready, null, { timeout: PAGE_TIMEOUT });
  for (const id of IDS) await page.locator(`[data-testid=${id}]`).scrollIntoViewIfNeeded();
  await page.waitForFunction((ids) => {
    const end = window.kvfleet.lastReport.series.t_s.at(-1);
    return ids.every((id) => {
      const c = window.Chart.getChart(document.querySelector(`[data-testid=${id}]`));
      return c?.scales?.x && c.scales.x.max === end && c.chartArea?.width > 0 && c.data.datasets.length > 0;
    });
  }, IDS, { timeout: PAGE_TIMEOUT });
  return opened;
}

/** Per chart: the x range, and the page x of each time in `at` (the canvas's left edge plus the scale's pixel). */
function xs(page) {
  return page.evaluate((ids) => {
    const end = window.kvfleet.lastReport.series.t_s.at(-1);
    const at = [0, end / 4, end / 2, end];
    return ids.map((id) => {
      const c = window.Chart.getChart(document.querySelector(`[data-testid=${id}]`));
      const left = c.canvas.getBoundingClientRect().left;
      return { id, min: c.scales.x.min, max: c.scales.x.max, px: at.map((t) => left + c.scales.x.getPixelForValue(t)) };
    });
  }, IDS);
}

function assertAligned(charts) {
  const [rate, ...others] = charts;
  assert.equal(rate.min, 0);
  for (const c of others) {
    assert.deepEqual([c.min, c.max], [rate.min, rate.max], `${c.id}'s time range`);
    c.px.forEach((x, k) => assert.ok(Math.abs(x - rate.px[k]) < 1, `${c.id} at point ${k}: ${x} vs ${rate.px[k]} px`));
  }
  // The plot spans the card: the end of the run is well right of its start.
  assert.ok(rate.px[3] - rate.px[0] > 600, `${rate.px[3] - rate.px[0]} px`);
}

test('autoscaled, with the ready replicas on a right axis: one time is at one x on the three charts', async () => {
  const { page, errors } = await openCard('/?request_rate_schedule=0s:2,20s:24&num_requests=700&instances=2&autoscale=kpa&kpa_target=4&startup_s=5',
    () => window.kvfleet?.lastReport?.config.autoscale === 'kpa');
  const shown = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=ts-rate]')).scales.y2?.width || 0);
  assert.ok(shown > 0, 'the rates chart has its right axis');
  assertAligned(await xs(page));
  // The description: at most 35 words.
  const words = (await page.textContent('#timeseries figcaption > p:not([id])')).trim().split(/\s+/);
  assert.ok(words.length <= 35, `${words.length} words: ${words.join(' ')}`);
  assert.deepEqual(errors, []);
});

test('a schedule without an autoscaler: no right axis, and still one x per time', async () => {
  const { page, errors } = await openCard('/?request_rate_schedule=0s:2,20s:8&num_requests=300',
    () => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:2,20s:8');
  assertAligned(await xs(page));
  assert.deepEqual(errors, []);
});

// tests/e2e/queue-chart.test.mjs: the queue chart's highest point is the per-replica table's peak queue, on
// a run where the point-sampled depth steps over it (a first-time reader saw "Peak queue 12" beside a
// chart that never passed 7); so are the chart's words and the timeline embed's sentence.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const URL = '/?trace=conversation_trace.jsonl&routing=kv&instances=4';

test('the queue chart reaches each replica\'s peak queue as the table prints it, where the point samples fall short', async () => {
  const { page, errors } = await site.open(URL, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.instances === 4 && window.kvfleet.lastReport.summary.requests === 12031, null, { timeout: PAGE_TIMEOUT });
  await page.locator('[data-testid=chart-queue]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=chart-queue]'))?.data.datasets.length || 0) === 4, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-queue]'));
    const r = window.kvfleet.lastReport;
    // The table as printed: the "Peak queue" column of each replica's row.
    const table = document.querySelector('.replica-table table');
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
    const col = heads.findIndex((h) => h.startsWith('Peak queue'));
    const printed = [...table.querySelectorAll('tbody tr')].map((tr) => Number(tr.children[col].textContent.replace(/,/g, '')));
    return {
      drawn: c.data.datasets.map((d) => Math.max(...d.data.map((p) => p.y))),
      printed,
      points: r.series.queue.map((row) => Math.max(...row)),
      label: c.canvas.getAttribute('aria-label'),
    };
  });
  assert.deepEqual(got.drawn, got.printed, `the chart's highest points ${got.drawn}, the table's peak queues ${got.printed}`);
  assert.ok(got.points.some((p, i) => p < got.printed[i]), `the point samples ${got.points} miss a peak of ${got.printed}: the case this is about`);
  assert.equal(got.label, `Queue depth over time; the deepest queue reached ${Math.max(...got.printed).toLocaleString('en-US')} requests.`);
  assert.deepEqual(errors, []);
});

test('the timeline embed names the deepest queue the table has', async () => {
  const { page, errors } = await site.open(`/?embed=1&show=timeline&trace=conversation_trace.jsonl&routing=kv&instances=4`, { viewport: { width: 640, height: 500 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.summary.requests === 12031, null, { timeout: PAGE_TIMEOUT });
  const { sentence, peaks } = await page.evaluate(() => ({
    sentence: document.querySelector('[data-testid=embed-sentence]').textContent,
    peaks: window.kvfleet.lastReport.per_instance.map((p) => p.peak_queue),
  }));
  const top = Math.max(...peaks);
  assert.equal(sentence, `The deepest queue: ${top.toLocaleString('en-US')} request${top === 1 ? '' : 's'} waiting on R${peaks.indexOf(top)}.`);
  assert.deepEqual(errors, []);
});

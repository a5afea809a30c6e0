// tests/e2e/rate-tail.test.mjs: the load-over-time card's last interval, which ends with the run at its
// last completion, is never shorter than the others: a burst of completions at the very end (the last
// batch finishing together) is a rate over an interval as long as the words say, not a spike over a
// stub. The expectation comes from the report's own sampling windows (the completions in each), not
// from the card's merging.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';
import { mergeWindows } from '../../www/js/timeseries.js';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
// The slo autoscaler under a load step: the run ends with about 150 requests finishing within a second.
const STEP = '/?request_rate_schedule=0s:2,20s:24&num_requests=700&instances=2&autoscale=slo';

/** The completions in the report's sampling windows that end after `from_s` (rate × length, rounded). */
function completionsAfter(s, from_s) {
  let n = 0;
  for (let k = 1; k < s.t_s.length; k++) if (s.t_s[k] > from_s + 1e-9) n += Math.round((s.served_rate[k] ?? 0) * (s.t_s[k] - s.t_s[k - 1]));
  return n;
}

test('a last interval shorter than the others joins the one before: its served rate counts its completions over its whole length', async () => {
  const { page, errors } = await site.open(STEP, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.autoscale === 'slo', null, { timeout: PAGE_TIMEOUT });
  await page.locator('[data-testid=ts-rate]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'))?.data.datasets.length || 0) >= 3, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
    const served = c.data.datasets.find((d) => d.label === 'served').data;
    const r = window.kvfleet.lastReport;
    return { served, s: r.series, completed: r.summary.completed, makespan: r.summary.makespan_s, words: document.querySelector('[data-testid=ts-words]').textContent };
  });
  const { s } = got;
  // The windows hold every completion of the run.
  assert.equal(completionsAfter(s, 0), got.completed);
  const binS = Number(/over intervals of ([0-9.]+) s/.exec(got.words)?.[1]);
  assert.ok(binS > 0, got.words);
  // Every interval drawn spans at least binS; the last ends with the run.
  // The line's first point is the first interval's start (0 s); each other point ends an interval.
  assert.equal(got.served[0].x, 0);
  assert.equal(got.served[0].y, got.served[1].y, 'the first interval drawn from its start');
  const ends = got.served.slice(1).map((p) => p.x);
  ends.forEach((x, i) => assert.ok(x - (i ? ends[i - 1] : 0) >= binS - 0.01, `interval ${i} ends at ${x} s, under ${binS} s after the one before`));
  const [from, to] = ends.slice(-2);
  assert.ok(Math.abs(to - got.makespan) < 1e-6);
  // The run ends on a burst: most of the last interval's completions come in its last second.
  const tail = completionsAfter(s, from);
  assert.ok(completionsAfter(s, to - 1) > 0.8 * tail && tail >= 100, `${tail} completions after ${from} s`);
  // Its served rate is those completions over the interval's whole length, and the words say so.
  const last = got.served.at(-1).y;
  assert.ok(Math.abs(last - tail / (to - from)) < 1e-6, `${last} against ${tail} / ${to - from}`);
  assert.match(got.words, new RegExp(`over intervals of ${binS.toFixed(2).replace('.', '\\.')} s \\(the last, ${(to - from).toFixed(2).replace('.', '\\.')} s, ends with the run\\) the fleet served up to`));
  const most = Math.max(...got.served.map((p) => p.y ?? 0));
  assert.ok(got.words.includes(`served up to ${most.toFixed(1)} req/s.`), got.words);
  await screenshot(page, 'rate-tail');
  assert.deepEqual(errors, []);
});

test('mergeWindows on windows built by hand: a tail under a whole bin joins the bin before, counts exact', () => {
  // Eleven 1 s windows then a 0.6 s tail; 2 windows a bin for at most 6 bins: bins of 2 s, the last
  // [10, 11.6] 1.6 s long (over half a bin, under a whole one), so it joins the one before: [8, 11.6]
  // with 2 + 2 + 3 + 30 completions over 3.6 s.
  const t = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11.6];
  const done = [0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 30];
  const series = { t_s: t, interval_s: 1, served_rate: done.map((n, k) => (k ? n / (t[k] - t[k - 1]) : null)), offered_rate: done.map(() => 0) };
  const { bins, binS } = mergeWindows(series, 6);
  assert.equal(binS, 2);
  assert.deepEqual(bins.map((b) => [b.start, b.end]), [[0, 2], [2, 4], [4, 6], [6, 8], [8, 11.6]]);
  assert.ok(Math.abs(bins.at(-1).served - 37 / 3.6) < 1e-9, String(bins.at(-1).served));
});

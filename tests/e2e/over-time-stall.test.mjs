// tests/e2e/over-time-stall.test.mjs: the load-over-time card under the slo autoscaler and a load step
// that stalls the fleet: its words say when the served rate (completions) fell near 0 while requests
// arrived, and how many were in flight, as the report's series show; its mean-TTFT axis reads in
// seconds once the TTFT reaches a second, in ms below.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const STALLED = '/?request_rate_schedule=0s:2,20s:24&num_requests=700&instances=2&autoscale=slo';

/** Opens `link`, waits for its run (`ready`) and for the card's TTFT chart to be drawn. */
async function openCard(link, ready) {
  const opened = await site.open(link, { viewport: { width: 1280, height: 900 } });
  await opened.page.waitForFunction(ready, null, { timeout: PAGE_TIMEOUT });
  await opened.page.locator('[data-testid=ts-ttft]').scrollIntoViewIfNeeded();
  await opened.page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=ts-ttft]'))?.scales.y.ticks.length || 0) > 1,
    null, { timeout: PAGE_TIMEOUT });
  return opened;
}

/** The TTFT chart's axis title, tick labels and drawn values. */
function ttftAxis(page) {
  return page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-ttft]'));
    return { title: c.options.scales.y.title.text, ticks: c.scales.y.ticks.map((t) => t.label), drawn: c.data.datasets[0].data.map((p) => p.y).filter((y) => y !== null) };
  });
}

test('a step that stalls the fleet: the words give the stretch with almost no completions and the requests in flight', async () => {
  const { page, errors } = await openCard(STALLED, () => window.kvfleet?.lastReport?.config.autoscale === 'slo');
  const { words, s } = await page.evaluate(() => ({
    words: document.querySelector('[data-testid=ts-words]').textContent, s: window.kvfleet.lastReport.series,
  }));
  const m = /From ([\d.]+) to ([\d.]+) s the fleet completed at most ([\d.]+) req\/s while ([\d.]+)–([\d.]+) req\/s arrived: served counts completions, and up to ([\d,]+) requests were in flight at once \(waiting, or running in batches too long to finish yet\)\./.exec(words);
  assert.ok(m, words);
  const [from, to] = [Number(m[1]), Number(m[2])];
  // About 30 s from the step at 20 s.
  assert.ok(from >= 19 && from <= 23 && to - from >= 20, `${from}–${to}`);
  // Over the stretch, from the report's own windows: arrivals at least ten times the completions.
  let arrived = 0, done = 0, most = 0;
  for (let k = 1; k < s.t_s.length; k++) {
    if (s.t_s[k - 1] < from - 1e-9 || s.t_s[k] > to + 1e-9) continue;
    const span = s.t_s[k] - s.t_s[k - 1];
    arrived += s.offered_rate[k] * span;
    done += s.served_rate[k] * span;
  }
  assert.ok(arrived > 400 && done * 10 < arrived, `${done} completions of ${arrived} arrivals`);
  // The most requests in flight at a sample in the stretch: waiting plus running, all replicas.
  for (let k = 0; k < s.t_s.length; k++) {
    if (s.t_s[k] < from - 0.01 || s.t_s[k] > to + 0.01) continue;
    const sum = (cols) => cols.reduce((a, c) => a + c[k], 0);
    most = Math.max(most, sum(s.queue) + sum(s.running));
  }
  assert.equal(Number(m[6].replace(/,/g, '')), most);
  assert.ok(most >= 256, `${most} in flight`);
  assert.deepEqual(errors, []);
});

test('the mean-TTFT axis reads in seconds once the TTFT reaches a second, in ms below', async () => {
  const { page, errors } = await openCard(STALLED, () => window.kvfleet?.lastReport?.config.autoscale === 'slo');
  const slow = await ttftAxis(page);
  const worst = await page.evaluate(() => Math.max(...window.kvfleet.lastReport.series.ttft_ms_mean.filter(Number.isFinite)));
  assert.ok(worst > 10000, `${worst} ms`);
  assert.equal(slow.title, 'Mean TTFT (s)');
  // Labels are seconds: none past the worst window's TTFT in seconds by more than a tick; no "50,000".
  assert.ok(slow.ticks.every((l) => /^\d+(\.\d+)?$/.test(l) && Number(l) <= worst / 1000 + 10), slow.ticks.join(' | '));
  assert.ok(Math.max(...slow.drawn) > 10 && Math.max(...slow.drawn) <= worst / 1000, `${Math.max(...slow.drawn)}`);
  // A run that keeps up: every TTFT under a second, in ms.
  const fast = await openCard('/?request_rate_schedule=0s:2,20s:4&num_requests=200', () => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:2,20s:4');
  const quick = await ttftAxis(fast.page);
  const worstFast = await fast.page.evaluate(() => Math.max(...window.kvfleet.lastReport.series.ttft_ms_mean.filter(Number.isFinite)));
  assert.ok(worstFast < 1000, `${worstFast} ms`);
  assert.equal(quick.title, 'Mean TTFT (ms)');
  assert.ok(Math.max(...quick.drawn) > 10, 'drawn in ms');
  assert.deepEqual([...errors, ...fast.errors], []);
});

test('the words give the mean TTFT per interval as the card gives its times: seconds to one decimal', async () => {
  const { page, errors } = await openCard(STALLED, () => window.kvfleet?.lastReport?.config.autoscale === 'slo');
  const slow = await ttftAxis(page); // the chart's values, in seconds on this run
  const words = await page.textContent('[data-testid=ts-words]');
  const m = /Mean TTFT per interval: (\S+) (ms|s) to (\S+) (ms|s)\./.exec(words);
  assert.ok(m, words);
  // The largest interval's mean, from the chart's own points, to one decimal of a second ("101.7 s").
  const top = Math.max(...slow.drawn);
  assert.ok(top >= 1, `${top} s`);
  assert.equal(`${m[3]} ${m[4]}`, `${top.toFixed(1)} s`, words);
  const low = Math.min(...slow.drawn);
  assert.equal(`${m[1]} ${m[2]}`, low >= 1 ? `${low.toFixed(1)} s` : `${(low * 1000).toFixed(low * 1000 < 10 ? 1 : 0)} ms`, words);
  assert.deepEqual(errors, []);
});

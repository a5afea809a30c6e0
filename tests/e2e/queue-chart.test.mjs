// tests/e2e/queue-chart.test.mjs: the queue chart's highest point is the per-replica table's peak queue, on
// a run where the point-sampled depth steps over it (a first-time reader saw "Peak queue 12" beside a
// chart that never passed 7); so are the chart's words and the timeline embed's sentence.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); }); // (no test here looks at the first screen's figure)
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

test('a rate schedule in the link shows the load-over-time card: the schedule, offered and served rates, and the SLO attained, as the report has them', async () => {
  const { page, errors } = await site.open('/?request_rate_schedule=0s:2,40s:12&num_requests=800&routing=kv&slo_ttft_ms=90', { viewport: { width: 1440, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:2,40s:12', null, { timeout: PAGE_TIMEOUT });
  await page.locator('[data-testid=ts-rate]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'))?.data.datasets.length || 0) === 3, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
    const s = window.kvfleet.lastReport.series;
    return {
      hidden: document.querySelector('[data-testid=timeseries]').hidden,
      field: document.querySelector('[data-testid=input-request_rate_schedule]')?.value,
      drawn: Object.fromEntries(c.data.datasets.map((d) => [d.label, d.data])),
      hit: Object.fromEntries(window.Chart.getChart(document.querySelector('[data-testid=ts-hit]')).data.datasets.map((d) => [d.label, d.data])),
      attained: window.kvfleet.lastReport.summary.slo_attained,
      series: s,
      words: document.querySelector('[data-testid=ts-words]').textContent,
    };
  });
  assert.equal(got.hidden, false);
  // SLO attained per bin, worked from the report's windows here: each window's completions (served rate
  // x its length) times its share met, summed over the windows a bin ends with, over its completions.
  const win = got.series;
  const bins = got.hit['SLO attained'];
  assert.ok(bins && bins.length === got.hit['requests with any cached block'].length, Object.keys(got.hit).join());
  let k = 1, allMet = 0, allDone = 0;
  const want = bins.map((b) => {
    let met = 0, done = 0;
    for (; k < win.t_s.length && win.t_s[k] <= b.x + 1e-9; k++) {
      const n = Math.round((win.served_rate[k] ?? 0) * (win.t_s[k] - win.t_s[k - 1]));
      met += Math.round((win.slo_attained[k] ?? 0) * n);
      done += n;
    }
    allMet += met; allDone += done;
    return done > 0 ? (100 * met) / done : null;
  });
  bins.forEach((b, i) => assert.ok(b.y === want[i] || Math.abs(b.y - want[i]) < 1e-9, `bin ${i}: ${b.y} vs ${want[i]}`));
  assert.ok(Math.abs(allMet / allDone - got.attained) < 1e-12, `${allMet}/${allDone} vs ${got.attained}`);
  const shown = want.filter((y) => y !== null);
  assert.ok(Math.min(...shown) < 100, 'some interval misses the 90 ms target');
  assert.ok(got.words.endsWith(`Requests completed within the SLO (TTFT ≤ 90 ms) per interval: ${Math.min(...shown).toFixed(0)}–${Math.max(...shown).toFixed(0)}%.`), got.words);
  assert.equal(got.field, '0s:2,40s:12');
  const s = got.series;
  // The schedule is drawn at every sample: 2/s before 40 s, 12/s from it.
  assert.deepEqual(got.drawn.schedule.map((p) => p.y), s.t_s.map((t) => (t < 40 ? 2 : 12)));
  // Offered and served are the report's windows merged in runs of equal count: arrivals over the run's
  // length, so every request arrived (the first, at 0 s, in the first window, [0, t1]) and completed.
  const total = (pts) => pts.reduce((sum, p, i) => sum + p.y * (p.x - (i ? pts[i - 1].x : 0)), 0);
  assert.ok(got.drawn.offered.length <= 48 && got.drawn.offered.length >= 24, `${got.drawn.offered.length} bins`);
  assert.ok(Math.abs(total(got.drawn.offered) - 800) < 1e-6, `offered ${total(got.drawn.offered)}`);
  assert.ok(Math.abs(total(got.drawn.served) - 800) < 1e-6, `served ${total(got.drawn.served)}`);
  // Before the step the fleet is offered about 2/s, after it about 12/s (bins wholly inside each).
  const mean = (pts, lo, hi) => { const ys = pts.filter((p, i) => i > 0 && pts[i - 1].x >= lo && p.x <= hi).map((p) => p.y); return ys.reduce((a, b) => a + b, 0) / ys.length; };
  assert.ok(Math.abs(mean(got.drawn.offered, 5, 38) - 2) < 0.6, `before ${mean(got.drawn.offered, 5, 38)}`);
  assert.ok(Math.abs(mean(got.drawn.offered, 42, 80) - 12) < 2, `after ${mean(got.drawn.offered, 42, 80)}`);
  const served = Math.max(...got.drawn.served.map((p) => p.y));
  assert.match(got.words, new RegExp(`^The schedule ran from 2\\.0 to 12\\.0 req/s; over intervals of [0-9.]+ s( \\(the last, [0-9.]+ s, ends with the run\\))? the fleet served up to ${served.toFixed(1).replace('.', '\\.')} req/s\\.`));
  // The request-rate slider does nothing under the schedule: off, with the note on screen; clearing the
  // schedule gives it back.
  const rateField = await page.evaluate(() => {
    const note = document.querySelector('[data-testid=schedule-note-request_rate]');
    return { disabled: document.querySelector('[data-testid=input-request_rate]').disabled, note: note && !note.hidden ? note.textContent : null };
  });
  assert.deepEqual(rateField, { disabled: true, note: 'Set by the rate schedule: clear the schedule to use this rate.' });
  await page.evaluate(() => { document.querySelector('[data-testid=field-request_rate_schedule]').closest('details').open = true; });
  await page.locator('[data-testid=input-request_rate_schedule]').fill('');
  await page.locator('[data-testid=input-request_rate_schedule]').dispatchEvent('change');
  await page.waitForFunction(() => !document.querySelector('[data-testid=input-request_rate]').disabled, null, { timeout: PAGE_TIMEOUT });
  assert.equal(await page.evaluate(() => document.querySelector('[data-testid=schedule-note-request_rate]').hidden), true);
  assert.deepEqual(errors, []);
});

test('an autoscaled link shows its settings beside the schedule and the ready replicas in the load-over-time card, as the report has them', async () => {
  const link = '/?request_rate_schedule=0s:2,20s:24&num_requests=700&routing=kv&instances=2&autoscale=kpa&kpa_target=4&startup_s=5';
  const { page, errors } = await site.open(link, { viewport: { width: 1440, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.autoscale === 'kpa', null, { timeout: PAGE_TIMEOUT });
  await page.locator('[data-testid=ts-rate]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'))?.data.datasets.length || 0) === 4, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
    const r = window.kvfleet.lastReport;
    const shown = (name) => !document.querySelector(`[data-testid=field-${name}]`)?.closest('[hidden]');
    return {
      labels: c.data.datasets.map((d) => d.label),
      hitLabels: window.Chart.getChart(document.querySelector('[data-testid=ts-hit]')).data.datasets.map((d) => d.label),
      ready: c.data.datasets[3].data.map((p) => p.y),
      axis: c.data.datasets[3].yAxisID,
      series: r.series.replicas,
      t: r.series.t_s,
      changes: r.autoscale.changes,
      scaler: r.autoscale,
      words: document.querySelector('[data-testid=ts-words]').textContent,
      status: document.getElementById('status-text').textContent,
      fields: { kpa: shown('kpa_target'), slo: shown('slo_interval_s'), sloTarget: shown('slo_ttft_ms'), startup: shown('startup_s'), value: document.querySelector('[data-testid=input-kpa_target]')?.value },
    };
  });
  assert.deepEqual(got.labels, ['offered', 'served', 'schedule', 'ready replicas']);
  // No latency target (the KPA has none): no SLO line, no SLO sentence.
  assert.deepEqual(got.hitLabels, ['requests with any cached block']);
  assert.ok(!got.words.includes('SLO'), got.words);
  assert.equal(got.axis, 'y2');
  // The line is the report's series; worked from the changes: the ready count after the last change
  // at or before each sample (2 at the start).
  assert.deepEqual(got.ready, got.series);
  const expected = got.t.map((t) => got.changes.filter((c) => c.t_s <= t).reduce((_, c) => c.ready, 2));
  assert.deepEqual(got.series, expected);
  const lo = Math.min(...got.series), hi = Math.max(...got.series);
  assert.ok(hi > 2, `the step to 24/s scales up (${hi})`);
  const starts = got.changes.filter((c) => c.kind === 'start').length;
  const drains = got.changes.filter((c) => c.kind === 'drain').length;
  assert.ok(got.words.includes(`The kpa autoscaler kept ${lo} to ${hi} replicas ready (${starts} started, ${drains} drained; each ready 5 s after its start, cache empty), ${got.scaler.gpu_hours.toFixed(3)} GPU-hours ($${got.scaler.cost_usd.toFixed(2)}).`), got.words);
  // The status bar names the ready replicas' range, not the fleet's slots.
  assert.ok(got.status.startsWith(`700 requests on ${lo}–${hi} replicas (kpa autoscaled), routing=kv`), got.status);
  // The hero names where the run started and the ready range, and makes no even-share claim.
  await page.waitForFunction((lead) => document.querySelector('[data-testid=takeaway]')?.textContent.startsWith(lead),
    `Starting on 2 replicas (kpa autoscaled, ${lo}–${hi} ready), kv serves`, { timeout: PAGE_TIMEOUT });
  const head = await page.evaluate(() => document.querySelector('[data-testid=hero-reps-head]').textContent);
  assert.match(head, /^This run \(autoscaled; replicas came and went\): busiest R\d+, [\d.]+% of requests$/);
  // The KPA's knobs are shown under kpa, the SLO rule's are not; its targets are (they define the SLO
  // attained on any run).
  assert.deepEqual(got.fields, { kpa: true, slo: false, sloTarget: true, startup: true, value: '4' });
  assert.deepEqual(errors, []);
});

test('the run\'s last sliver of time is no bin of its own: "served up to" is a rate over an interval as long as the words say', async () => {
  // The schedule field's own example at the page's defaults ends at about 49 s, a few hundredths of a second
  // after a sample: drawn alone, its one completion read as a rate of hundreds of requests a second.
  const { page, errors } = await site.open('/?request_rate_schedule=0s:4,60s:16,120s:4', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:4,60s:16,120s:4', null, { timeout: PAGE_TIMEOUT });
  await page.locator('[data-testid=ts-rate]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'))?.data.datasets.length || 0) >= 3, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
    const pts = (label) => c.data.datasets.find((d) => d.label.toLowerCase().startsWith(label)).data;
    return { offered: pts('offered'), served: pts('served'), words: document.querySelector('[data-testid=ts-words]')?.textContent ?? '' };
  });
  const binS = Number(got.words.match(/over intervals of ([0-9.]+) s/)?.[1]);
  assert.ok(binS > 0, got.words);
  // The line's first point is the first bin's start (0 s); each other point ends a bin.
  assert.equal(got.served[0].x, 0);
  got.served.slice(1).forEach((p, i) => {
    const len = p.x - got.served[i].x;
    assert.ok(len >= binS / 2 - 1e-9, `bin ${i} spans ${len} s, under half of ${binS} s`);
  });
  // At 4 requests a second nothing queues on the default fleet: a bin serves about what it was offered.
  const most = (pts) => Math.max(...pts.map((p) => p.y ?? 0));
  assert.ok(most(got.served) <= 3 * most(got.offered), `served up to ${most(got.served)} against offered ${most(got.offered)}`);
  assert.deepEqual(errors, []);
});

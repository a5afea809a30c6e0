// tests/e2e/over-time.test.mjs: the load-over-time card as a first-time reader meets it: its hit chart
// names the quantity it draws (requests with any cached block, not the headline's token hit rate); a
// schedule whose changes come after the run's last arrival says so, with the requests that reach them;
// the charts are tall enough at 1280 px, the ready replicas a solid line in the legend; the hero's
// busiest-share chart is not drawn under an autoscaler; and a rejected Requests value is named in the
// status bar at every later change, as a trap is.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const AUTOSCALED = '/?request_rate_schedule=0s:2,20s:24&num_requests=700&routing=kv&instances=2&autoscale=kpa&kpa_target=4&startup_s=5';

/** Opens `link`, waits for its run (`ready`: a test on the report) and for the card's rate chart. */
async function openCard(link, ready, opts = {}) {
  const opened = await site.open(link, { viewport: { width: 1280, height: 900 }, ...opts });
  await opened.page.waitForFunction(ready, null, { timeout: PAGE_TIMEOUT });
  await opened.page.locator('[data-testid=ts-rate]').scrollIntoViewIfNeeded();
  await opened.page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'))?.data.datasets.length || 0) >= 3, null, { timeout: PAGE_TIMEOUT });
  return opened;
}

test('the hit chart draws the requests with any cached block, under that name, and its words set it beside the token hit rate', async () => {
  const { page, errors } = await openCard('/?request_rate_schedule=0s:2,40s:12&num_requests=800&routing=kv',
    () => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:2,40s:12');
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-hit]'));
    const r = window.kvfleet.lastReport;
    return {
      labels: c.data.datasets.map((d) => d.label),
      drawn: c.data.datasets[0].data.map((p) => p.y),
      series: r.series,
      summary: r.summary,
      words: document.querySelector('[data-testid=ts-words]').textContent,
      anyHit: document.querySelector('[data-testid=fig-any-hit] .value')?.textContent.trim(),
      tokenHit: document.querySelector('[data-testid=fig-hit-rate] .value')?.textContent.trim(),
      aria: c.canvas.getAttribute('aria-label'),
    };
  });
  assert.deepEqual(got.labels, ['requests with any cached block']);
  // The series is the summary's hit_rate_requests per window: the windows' hits over their admissions
  // give the run's.
  const s = got.series;
  const hits = s.hit_rate_fleet.reduce((sum, h, k) => sum + (h ?? 0) * s.admitted[k], 0);
  const admitted = s.admitted.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(hits / admitted - got.summary.hit_rate_requests) < 1e-12, `${hits}/${admitted} vs ${got.summary.hit_rate_requests}`);
  // ...which is not the token hit rate: the two differ on this run, so one name for both would mislead.
  assert.ok(Math.abs(got.summary.hit_rate_requests - got.summary.hit_rate_tokens) > 0.05);
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  assert.equal(got.anyHit, pct(got.summary.hit_rate_requests));
  assert.equal(got.tokenHit, pct(got.summary.hit_rate_tokens));
  const shown = got.drawn.filter((y) => y !== null);
  assert.ok(got.words.includes(`Requests with any cached block per interval: ${Math.min(...shown).toFixed(0)}–${Math.max(...shown).toFixed(0)}% `
    + `(${got.anyHit} over the run; the token hit rate, ${got.tokenHit}, counts the prompt tokens served from cache instead).`), got.words);
  assert.doesNotMatch(got.words, /\bhit rate per interval/i);
  assert.match(got.aria, /^Share of the requests admitted with any cached block per interval/);
  assert.deepEqual(errors, []);
});

test('a schedule whose changes come after the run\'s last arrival says which, when the arrivals ended, and the requests that reach them; enough requests, and it is gone', async () => {
  const link = '/?request_rate_schedule=0s:4,60s:16,120s:4';
  const { page, errors } = await openCard(link, () => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:4,60s:16,120s:4');
  const got = await page.evaluate(() => {
    const el = document.querySelector('[data-testid=ts-unreached]');
    return { text: el.textContent, hidden: el.hidden || !el.offsetParent, summary: window.kvfleet.lastReport.summary };
  });
  // The last arrival: the arrivals after the first (at 0 s) over the offered rate the summary gives.
  const last = (got.summary.requests - 1) / got.summary.offered_rate;
  assert.equal(got.summary.requests, 200);
  assert.ok(last < 60, `the default run ends its arrivals at ${last} s`);
  // 4/s for 60 s and 16/s for the next 60: 1,200 requests expected by 120 s, and a tenth more, to two figures.
  assert.equal(got.hidden, false);
  assert.equal(got.text, `⚠ The run's 200 requests arrived by ${last.toFixed(1)} s; the schedule's changes at 60 s and 120 s are never reached: raise Requests to about 1,400 to reach them (1,200 arrive by 120 s on average; a tenth more, as arrivals are random).`);
  // The suggestion holds: 1,400 requests arrive past 120 s, and the warning is gone.
  const more = await openCard(`${link}&num_requests=1400`, () => window.kvfleet?.lastReport?.config.num_requests === 1400);
  const then = await more.page.evaluate(() => {
    const el = document.querySelector('[data-testid=ts-unreached]');
    return { hidden: el.hidden, text: el.textContent, s: window.kvfleet.lastReport.summary };
  });
  assert.ok((then.s.requests - 1) / then.s.offered_rate > 120, `1,400 requests end at ${(then.s.requests - 1) / then.s.offered_rate} s`);
  assert.deepEqual([then.hidden, then.text], [true, '']);
  // One change missed of two: named alone, with the requests to reach it.
  const one = await openCard('/?request_rate_schedule=0s:4,30s:8,100s:4', () => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:4,30s:8,100s:4');
  const oneText = await one.page.evaluate(() => document.querySelector('[data-testid=ts-unreached]').textContent);
  const s1 = await one.page.evaluate(() => window.kvfleet.lastReport.summary);
  const last1 = (s1.requests - 1) / s1.offered_rate;
  assert.ok(last1 > 30 && last1 < 100, `${last1}`);
  // 4 × 30 + 8 × 70 = 680 expected by 100 s; 748 with a tenth more, up to 750.
  assert.equal(oneText, `⚠ The run's 200 requests arrived by ${last1.toFixed(1)} s; the schedule's change at 100 s is never reached: raise Requests to about 750 to reach it (680 arrive by 100 s on average; a tenth more, as arrivals are random).`);
  assert.deepEqual([...errors, ...more.errors, ...one.errors], []);
});

test('at 1280 px the card\'s charts are tall, and the ready replicas are a solid line in the legend', async () => {
  const { page, errors } = await openCard(AUTOSCALED, () => window.kvfleet?.lastReport?.config.autoscale === 'kpa');
  // The chart's data, then its legend (rebuilt when the chart is next drawn: charts draw near the screen).
  await page.waitForFunction(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
    return c.data.datasets.length === 4 && (c.legend?.legendItems || []).some((i) => i.text === 'ready replicas');
  }, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
    const ready = c.data.datasets.find((d) => d.label === 'ready replicas');
    const h = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect().height;
    return {
      heights: { rate: h('ts-rate'), hit: h('ts-hit'), ttft: h('ts-ttft') },
      width: document.querySelector('[data-testid=ts-rate]').getBoundingClientRect().width,
      legend: c.legend.legendItems.map((i) => i.text),
      ready: { width: ready.borderWidth, dash: ready.borderDash ?? [], axis: ready.yAxisID, fill: ready.fill },
    };
  });
  assert.ok(got.heights.rate >= 300, `the rates chart is ${got.heights.rate} px tall`);
  assert.ok(got.heights.hit >= 240 && got.heights.ttft >= 240, JSON.stringify(got.heights));
  assert.ok(got.width >= 700, `the rates chart spans the card (${got.width} px)`);
  assert.ok(got.legend.includes('ready replicas'), got.legend.join());
  assert.ok(got.ready.width >= 2.5 && got.ready.dash.length === 0, JSON.stringify(got.ready));
  assert.equal(got.ready.axis, 'y2');
  assert.deepEqual(errors, []);
});

test('under an autoscaler the hero says why the busiest replica\'s share is not drawn; on a fixed fleet it is drawn', async () => {
  const { page, errors } = await site.open(AUTOSCALED, { viewport: { width: 1280, height: 900 }, heroSweep: true });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.autoscale === 'kpa', null, { timeout: PAGE_TIMEOUT });
  await page.waitForFunction(() => document.querySelector('[data-testid=chart-hero-share-off]')?.offsetParent, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => ({
    note: document.querySelector('[data-testid=chart-hero-share-off]').textContent,
    canvas: document.querySelector('[data-testid=chart-hero-share]').hidden,
    ttft: document.querySelector('[data-testid=chart-hero-ttft]').hidden,
    detail: document.querySelector('[data-testid=takeaway-detail]').textContent,
  }));
  // Nor do the hero's words compare the busiest replica with an even share of a fleet that changed.
  assert.ok(got.detail.length > 0);
  assert.doesNotMatch(got.detail, /even share/, got.detail);
  assert.equal(got.note, 'Busiest replica\'s share of requests: not drawn under an autoscaler, where the replicas come and go and no share is even.');
  assert.deepEqual([got.canvas, got.ttft], [true, false]);
  // The same link on a fixed fleet: the chart, its even-share band, and no note.
  const fixed = await site.open(AUTOSCALED.replace('autoscale=kpa', 'autoscale=off'), { viewport: { width: 1280, height: 900 }, heroSweep: true });
  await fixed.page.waitForFunction(() => window.kvfleet?.lastReport && !window.kvfleet.lastReport.config.autoscale, null, { timeout: PAGE_TIMEOUT });
  await fixed.page.waitForFunction(() => (window.Chart.getChart(document.querySelector('[data-testid=chart-hero-share]'))?.data.datasets.length || 0) > 1, null, { timeout: PAGE_TIMEOUT });
  const back = await fixed.page.evaluate(() => ({
    canvas: document.querySelector('[data-testid=chart-hero-share]').hidden,
    note: document.querySelector('[data-testid=chart-hero-share-off]'),
  }));
  assert.deepEqual(back, { canvas: false, note: null });
  assert.deepEqual([...errors, ...fixed.errors], []);
});

test('a Requests value too large for memory is named in the status bar at every later change, until it changes; a trap says so too', async () => {
  const { page, errors } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.runCount >= 1, null, { timeout: PAGE_TIMEOUT });
  // The status bar reaching `want` (a string, or a pattern's source): waited for, since a run's result
  // and its status line land in separate steps on a loaded machine; it fails if the words never come.
  const statusBecomes = (want, isPattern = false) => page.waitForFunction(([w, re]) => {
    const t = document.getElementById('status-text').textContent;
    return re ? new RegExp(w).test(t) : t === w;
  }, [isPattern ? want.source : want, isPattern], { timeout: PAGE_TIMEOUT });
  const errorsSeen = () => page.evaluate(() => window.kvfleet.errors.length);
  await page.click('#group-traffic > summary');
  await page.focus('[data-testid="input-num_requests"]');
  await page.keyboard.press('End'); // 10 million requests: refused before the run, for memory
  await page.waitForFunction(() => window.kvfleet.errors.length === 1, null, { timeout: PAGE_TIMEOUT });
  const want = 'Requests 10M req was rejected (change it to run again); the previous result is still shown.';
  await statusBecomes(want);
  // Another setting changed: still rejected for Requests, and the status bar says so by name.
  await page.focus('[data-testid="input-instances"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.kvfleet.errors.length === 2, null, { timeout: PAGE_TIMEOUT });
  assert.match((await page.evaluate(() => window.kvfleet.errors))[1], /^invalid num_requests:/);
  await statusBecomes(want);
  assert.match(await page.textContent('[data-testid="run-error"]'), /^Requests 10M req was rejected: it must be a run that fits in memory/);
  // Requests back to what fits: it runs, with the other change.
  const runs = await page.evaluate(() => window.kvfleet.runCount);
  await page.focus('[data-testid="input-num_requests"]');
  await page.keyboard.press('Home');
  await page.waitForFunction((k) => window.kvfleet.runCount > k, runs, { timeout: PAGE_TIMEOUT });
  await statusBecomes(/^1 request on \d+ replicas, routing=/, true);
  assert.equal(await errorsSeen(), 2);
  // A trap (the module stopped): the status bar says the run could not finish, and the next change runs.
  await page.evaluate(() => window.kvfleet.debugTrap());
  await page.waitForFunction(() => (window.kvfleet.traps || 0) > 0 && window.kvfleet.workerReplacements() > 0, null, { timeout: PAGE_TIMEOUT });
  // The trap's words, or, once the fresh worker is up (onReplaced), the restart's: either says the run
  // stopped and the last result stands, and neither blames a setting.
  await statusBecomes(/^(That run could not finish; the previous result and its settings are back\.|The simulator was restarted after an error; the previous result is still shown\.)$/, true);
  assert.match(await page.textContent('[data-testid="run-error"]'), /^That run could not finish: /);
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.focus('[data-testid="input-instances"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: PAGE_TIMEOUT });
  await statusBecomes(/^1 request on \d+ replicas, routing=/, true);
  assert.deepEqual(errors.filter((e) => !/debug_trap|unreachable|RuntimeError/.test(e)), []);
});

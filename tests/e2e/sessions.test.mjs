// tests/e2e/sessions.test.mjs: the sessions workload's Tasks panel (task time, completed/failed,
// the by-turn chart) against window.kvfleet.lastReport; round robin -> sticky through the controls
// raises the token hit rate by turn; the hot-prefix lesson's rejections per replica in the load
// chart, the per-replica table and the headline; the Tasks panel hidden when it does not apply;
// 360 px and dark mode. Screenshots of each state in test-results/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT } from './harness.mjs';

let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});

after(async () => {
  await site?.close();
});

const SESSIONS = '/?workload=sessions&routing=round_robin&instances=8&num_sessions=30&turns=10';
const HOT_PREFIX = '/?request_rate=30&num_requests=3000&instances=6&routing=prefix_aware&num_prefixes=16&prefix_len=12000'
  + '&input_len=13000&output_len=200&prefix_popularity=hot:0.85&queue_capacity=32';

async function openPage(where, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height }, colorScheme });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

const report = (page) => page.evaluate(() => window.kvfleet.lastReport);
const runCount = (page) => page.evaluate(() => window.kvfleet.runCount);
async function waitForRun(page, after) {
  await page.waitForFunction((n) => window.kvfleet.runCount > n, after, { timeout: 30000 });
}

/** Labels and every dataset's data of a chart, read from Chart.js itself. */
const chart = (page, testid) => page.evaluate((id) => {
  const c = window.Chart.getChart(document.querySelector(`[data-testid="${id}"]`));
  return { labels: c.data.labels, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data, hidden: !!d.hidden, visible: c.isDatasetVisible(c.data.datasets.indexOf(d)) })) };
}, testid);

const text = (page, sel) => page.locator(sel).innerText();
const numText = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The page's seconds format (format.js `seconds`), for comparing figures with the report. */
function secondsText(x) {
  if (x >= 3600) return (x / 3600).toFixed(2);
  if (x >= 120) return (x / 60).toFixed(1);
  return x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

test('sessions: the Tasks panel shows the report\'s task figures and a 10-turn chart; sticky raises the hit rate by turn', async () => {
  const { page, errors, close } = await openPage(SESSIONS);
  try {
    const rr = await report(page);
    assert.equal(rr.config.workload, 'sessions');
    assert.equal(rr.config.routing, 'round_robin');
    assert.equal(rr.per_instance.length, 8);
    const t = rr.sessions;
    assert.ok(t, 'a sessions report carries a sessions object');
    assert.equal(t.tasks, 30);

    assert.equal(await page.isVisible('[data-testid="tasks"]'), true, 'Tasks panel shown for a sessions run');
    const meanFig = await text(page, '[data-testid="fig-task-mean"]');
    assert.ok(meanFig.includes(secondsText(t.task_s.mean)), `task mean ${t.task_s.mean} s shown: ${meanFig}`);
    const p99Fig = await text(page, '[data-testid="fig-task-p99"]');
    assert.ok(p99Fig.includes(secondsText(t.task_s.p99)), `task p99 ${t.task_s.p99} s shown: ${p99Fig}`);
    const doneFig = await text(page, '[data-testid="fig-task-done"]');
    assert.ok(doneFig.includes(`${numText(t.completed_tasks)}`) && doneFig.includes(`of ${numText(t.tasks)}`), doneFig);
    assert.ok(t.failed_tasks ? doneFig.includes(`${t.failed_tasks} failed`) : /none failed/.test(doneFig), doneFig);
    const lastHit = await text(page, '[data-testid="fig-task-last-hit"]');
    assert.ok(lastHit.includes(`${(t.token_hit_rate_by_turn[9] * 100).toFixed(1)}%`), lastHit);

    const turnsRR = await chart(page, 'chart-turns');
    assert.deepEqual(turnsRR.labels, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'], 'x = turn number from 1');
    assert.equal(turnsRR.sets[0].data.length, 10, 'token hit rate: 10 points');
    assert.equal(turnsRR.sets[1].data.length, 10, 'mean TTFT: 10 points');
    turnsRR.sets[0].data.forEach((v, i) => assert.ok(Math.abs(v - t.token_hit_rate_by_turn[i] * 100) < 1e-9, `turn ${i + 1} hit rate`));
    turnsRR.sets[1].data.forEach((v, i) => assert.ok(Math.abs(v - t.ttft_ms_by_turn[i]) < 1e-9, `turn ${i + 1} TTFT`));
    // No admission limit here: nothing turned away, no alarm in the headline.
    assert.equal(await page.locator('[data-testid="fig-dropped"]').count(), 0);
    await screenshot(page, 'sessions-round-robin-1280');

    // Round robin -> sticky through the routing control.
    const n = await runCount(page);
    await page.click('label[for="in-routing-sticky"]');
    await waitForRun(page, n);
    const st = await report(page);
    assert.equal(st.config.routing, 'sticky');
    const turnsST = await chart(page, 'chart-turns');
    assert.equal(turnsST.sets[0].data.length, 10);
    const later = (xs) => mean(xs.slice(1));  // turns 2..10: the ones that can reuse their session's cache
    assert.ok(later(turnsST.sets[0].data) > later(turnsRR.sets[0].data) + 15,
      `sticky token hit rate by turn (${later(turnsST.sets[0].data).toFixed(1)}%) well above round robin (${later(turnsRR.sets[0].data).toFixed(1)}%)`);
    assert.ok(turnsST.sets[0].data[9] > 85, `sticky's last turn stays high (${turnsST.sets[0].data[9].toFixed(1)}%)`);
    assert.ok(st.sessions.task_s.mean < rr.sessions.task_s.mean, 'sticky tasks finish sooner');
    assert.ok((await text(page, '[data-testid="fig-task-mean"]')).includes(secondsText(st.sessions.task_s.mean)));
    await screenshot(page, 'sessions-sticky-1280');

    // A synthetic workload: no Tasks panel.
    await page.goto(`${site.url}/?routing=kv`);
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    assert.equal((await report(page)).sessions ?? null, null);
    assert.equal(await page.isVisible('[data-testid="tasks"]'), false, 'Tasks panel hidden for a non-sessions run');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('sessions at 360 px in dark mode: the Tasks panel and its chart fit', async () => {
  const { page, errors, close } = await openPage(SESSIONS, { width: 360, height: 800, colorScheme: 'dark' });
  try {
    const box = await page.locator('[data-testid="tasks"]').boundingBox();
    assert.ok(box && box.width <= 360, `Tasks panel fits 360 px (${box?.width})`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal page scroll (${overflow}px)`);
    assert.equal((await chart(page, 'chart-turns')).sets[0].data.length, 10);
    await page.locator('[data-testid="tasks"]').screenshot({ path: path.join(ROOT, 'test-results', 'sessions-tasks-360-dark.png') });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('hot prefix: per-replica rejections are visible in the load chart, the table and the headline, equal to the report', async () => {
  const { page, errors, close } = await openPage(HOT_PREFIX);
  try {
    const r = await report(page);
    assert.equal(r.config.queue_capacity, 32);
    const s = r.summary;
    assert.ok(s.rejected > 0, 'the broken hot-prefix state rejects requests');
    assert.equal(s.requests, s.completed + s.rejected + s.timed_out);

    // Load chart: served + rejected (+ timed out) stacked per replica, rejected series shown and equal to the report.
    const load = await chart(page, 'chart-load');
    const rej = load.sets.find((d) => d.label === 'Rejected');
    assert.ok(rej && rej.visible, 'a "Rejected" series is drawn');
    assert.deepEqual(rej.data, r.per_instance.map((x) => x.rejected));
    const served = load.sets[0].data;
    r.per_instance.forEach((x, i) => assert.equal(served[i] + x.rejected + x.timed_out, x.requests, `R${i}: bar height = requests routed`));
    const tmo = load.sets.find((d) => d.label === 'Timed out');
    assert.equal(tmo.visible, s.timed_out > 0, 'the timed-out series only when something timed out');

    // Per-replica table: one row per replica, its rejected cells equal the report, non-zero ones marked.
    const cells = await page.locator('[data-testid="replica-rows"] tbody [data-testid="rejected"]').allInnerTexts();
    assert.deepEqual(cells, r.per_instance.map((x) => numText(x.rejected)));
    const badCount = await page.locator('[data-testid="replica-rows"] tbody td.bad[data-testid="rejected"]').count();
    assert.equal(badCount, r.per_instance.filter((x) => x.rejected > 0).length);
    assert.equal(await text(page, '[data-testid="rejected-total"]'), numText(s.rejected));
    assert.equal(await text(page, '[data-testid="timed-out-total"]'), numText(s.timed_out));
    const hot = r.per_instance.find((x) => x.rejected > 0);
    assert.match(await text(page, '[data-testid="replica-table-note"]'), new RegExp(`rejected.*R${hot.index}`));

    // Headline: the symptom card, with the count and the makespan line.
    const dropped = await text(page, '[data-testid="fig-dropped"]');
    assert.ok(dropped.includes(numText(s.rejected + s.timed_out)) && dropped.includes(`${numText(s.rejected)} rejected`), dropped);
    assert.ok((await text(page, '[data-testid="fig-makespan"]')).includes(`${numText(s.rejected)} rejected`));
    assert.equal(await page.isVisible('[data-testid="tasks"]'), false, 'no Tasks panel for a synthetic run');
    await screenshot(page, 'hot-prefix-rejections-1280');

    // A caller timeout adds the second symptom: timed out per replica, in the chart, the table and the headline.
    await page.goto(`${site.url}${HOT_PREFIX}&timeout_ms=5000`);
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    const r2 = await report(page);
    assert.ok(r2.summary.timed_out > 0, 'a 5 s timeout drops some of the hot replica\'s queue');
    const load2 = await chart(page, 'chart-load');
    const tmo2 = load2.sets.find((d) => d.label === 'Timed out');
    assert.ok(tmo2.visible);
    assert.deepEqual(tmo2.data, r2.per_instance.map((x) => x.timed_out));
    const cells2 = await page.locator('[data-testid="replica-rows"] tbody [data-testid="timed-out"]').allInnerTexts();
    assert.deepEqual(cells2, r2.per_instance.map((x) => numText(x.timed_out)));
    assert.ok((await text(page, '[data-testid="fig-dropped"]')).includes(`${numText(r2.summary.timed_out)} timed out`));
    assert.ok((await text(page, '[data-testid="fig-makespan"]')).includes(`${numText(r2.summary.timed_out)} timed out`));
    await screenshot(page, 'hot-prefix-timeouts-1280');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('hot-prefix lesson from the lessons panel, at 360 px dark: rejections shown per replica', async () => {
  const { page, errors, close } = await openPage('/', { width: 360, height: 800, colorScheme: 'dark' });
  try {
    const n = await runCount(page);
    await page.click('[data-testid="lesson-hot-prefix"]');
    await waitForRun(page, n);
    await page.waitForFunction(() => window.kvfleet.lastReport.config.routing === 'prefix_aware', null, { timeout: 30000 });
    const r = await report(page);
    assert.ok(r.summary.rejected > 0);
    const cells = await page.locator('[data-testid="replica-rows"] tbody [data-testid="rejected"]').allInnerTexts();
    assert.deepEqual(cells, r.per_instance.map((x) => numText(x.rejected)));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal page scroll (${overflow}px)`);
    await page.locator('[data-testid="headline"]').screenshot({ path: path.join(ROOT, 'test-results', 'hot-prefix-headline-360-dark.png') });
    await page.locator('[data-testid="replica-table"]').screenshot({ path: path.join(ROOT, 'test-results', 'hot-prefix-table-360-dark.png') });
    await page.locator('[data-testid="chart-load"]').screenshot({ path: path.join(ROOT, 'test-results', 'hot-prefix-load-360-dark.png') });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

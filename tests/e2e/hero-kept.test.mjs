// tests/e2e/hero-kept.test.mjs: the policy chosen before stays drawn beside the new one (a first-time
// reader lost kv's curve, and its latency, on choosing prefix_aware), and the words compare with it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const settled = (page) => page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
  null, { timeout: PAGE_TIMEOUT });

async function choose(page, policy) {
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.click(`label[for="hero-in-routing-${policy}"]`);
  await page.waitForFunction(([k, p]) => window.kvfleet.runCount > k && window.kvfleet.lastReport.config.routing === p, [n, policy], { timeout: PAGE_TIMEOUT });
  await settled(page);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

const curves = (page) => page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hero]')).data.datasets
  .filter((d) => !d.model && d.label !== 'this run').map((d) => d.label));
const pc1 = (x) => `${(100 * x).toFixed(1)}%`;
const ms = (x) => (x >= 60000 ? `${(x / 60000).toFixed(1)} min` : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);

test('on the trace, kv then prefix_aware: kv stays drawn, the lead gives its rate and the trade-off its speed; a third choice drops it', async () => {
  const { page, errors } = await site.open('/?trace=conversation_trace.jsonl&routing=kv', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  assert.deepEqual(await curves(page), ['round_robin', 'prefix_aware', 'kv']);
  await choose(page, 'prefix_aware');
  assert.deepEqual(await curves(page), ['round_robin', 'prefix_aware', 'kv'], 'kv, chosen before, stays beside prefix_aware');
  const at4 = await page.evaluate(() => Object.fromEntries(['round_robin', 'prefix_aware', 'kv'].map((p) => [p, window.kvfleet.hero.sweeps[p].find((q) => q.instances === 4)])));
  const lead = await page.textContent('[data-testid=takeaway]');
  assert.equal(lead, `On 4 replicas, prefix_aware serves ${pc1(at4.prefix_aware.hit_rate_tokens)} of prompt tokens from cache (round robin ${pc1(at4.round_robin.hit_rate_tokens)}, kv ${pc1(at4.kv.hit_rate_tokens)}).`);
  // The fastest drawn policy with fewer hits is kv (p99 2.98 s against round robin's 3.84 s): the trade-off names it.
  assert.ok(at4.kv.ttft_ms_p99 < at4.round_robin.ttft_ms_p99, 'kv is the faster of the two here');
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  assert.ok(detail.startsWith(`Here the most hits come with far slower answers: prefix_aware's first-token time is ${ms(at4.prefix_aware.ttft_ms_p50)} median and ${ms(at4.prefix_aware.ttft_ms_p99)} p99, kv's ${ms(at4.kv.ttft_ms_p50)} and ${ms(at4.kv.ttft_ms_p99)};`), detail);
  await screenshot(page, 'hero-kept-trace-1280', { fullPage: false });
  // Another choice: prefix_aware (drawn anyway) is the one chosen before; kv goes.
  await choose(page, 'sglang');
  assert.deepEqual(await curves(page), ['round_robin', 'prefix_aware', 'sglang']);
  assert.doesNotMatch(await page.textContent('[data-testid=takeaway]'), /\bkv\b/);
  assert.deepEqual(errors, []);
});

test('a scenario starts afresh: the hot-prefix preset draws the same curves whatever was chosen before it', async () => {
  const { page, errors } = await site.open('/?routing=kv', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  await choose(page, 'sglang');
  assert.deepEqual((await curves(page)).sort(), ['kv', 'prefix_aware', 'round_robin', 'sglang'], 'kv, chosen before sglang, is kept');
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.click('[data-testid=scenario-hot]');
  await page.waitForFunction((k) => window.kvfleet.runCount > k && window.kvfleet.lastReport.config.routing === 'prefix_aware', n, { timeout: PAGE_TIMEOUT });
  await settled(page);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // prefix_aware is chosen; round robin and prefix_aware are always drawn; sglang, chosen before the preset, is not kept.
  assert.deepEqual(await curves(page), ['round_robin', 'prefix_aware']);
  assert.doesNotMatch(await page.textContent('[data-testid=takeaway]'), /sglang/);
  // After the preset, a choice keeps the preset's policy beside it as before.
  await choose(page, 'kv');
  assert.deepEqual(await curves(page), ['round_robin', 'prefix_aware', 'kv']);
  assert.deepEqual(errors, []);
});

test('a lesson draws its fix\'s policy beside the broken setup\'s: sticky beside round robin, by link and by its button', async () => {
  const curvesNow = async (page) => { await settled(page); await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))); return curves(page); };
  // By link: the lesson's broken setup is round robin; its first fix routes by sticky.
  const { page, errors } = await site.open('/?lesson=more-replicas-slower', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lessonsList, null, { timeout: PAGE_TIMEOUT }); // the course is loaded
  const fixes = await page.evaluate(() => window.kvfleet.lessonsList.find((l) => l.id === 'more-replicas-slower').fixes.map((f) => f.config.routing));
  assert.deepEqual(fixes, ['sticky', 'kv']);
  await page.waitForFunction(() => window.kvfleet.lastReport?.config.workload === 'sessions', null, { timeout: PAGE_TIMEOUT });
  assert.deepEqual(await curvesNow(page), ['round_robin', 'prefix_aware', 'sticky']);
  const at8 = await page.evaluate(() => window.kvfleet.hero.sweeps.sticky.find((q) => q.instances === 8));
  assert.match(await page.textContent('[data-testid=takeaway]'), new RegExp(`sticky ${pc1(at8.hit_rate_tokens).replace('.', '\\.')}\\)\\.$`));
  // By its button, after another policy was chosen: sticky again, not the policy chosen before.
  await page.click('text=Leave the lesson');
  await choose(page, 'kv');
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await page.click('[data-testid=lesson-more-replicas-slower]');
  await page.waitForFunction((k) => window.kvfleet.runCount > k && window.kvfleet.lastReport.config.workload === 'sessions' && window.kvfleet.lastReport.config.routing === 'round_robin', n, { timeout: PAGE_TIMEOUT });
  assert.deepEqual(await curvesNow(page), ['round_robin', 'prefix_aware', 'sticky']);
  assert.deepEqual(errors, []);
});

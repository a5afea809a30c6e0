// tests/e2e/hero-ttft.test.mjs: the hero's second small multiple, the p99 time to first token against
// replicas, so "more hits, slower answers" shows without reading (a first-time reader's ask). Its
// points are the CLI's own p99s for the same runs, its log axis holds every point with ticks in time
// units, it lines up with the main chart, and its description names the values at the chosen count.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const settled = async (page) => {
  await page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
    null, { timeout: PAGE_TIMEOUT });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
};

// The CLI, run apart from the page (target/release/kvfleet --des-mooncake-trace conversation_trace.jsonl
// --des-instances N --des-routing P --des-report-json out.json), summary.ttft_ms_p99 in ms:
const CLI_P99_MS = {
  round_robin: { 1: 2128668.295576942, 4: 3835.9255326748294, 16: 2730.7618353382754 },
  prefix_aware: { 1: 2128668.295576942, 4: 2128668.295576942, 16: 2128668.295576942 },
  kv: { 1: 2128668.295576942, 4: 2978.8495228248903, 16: 2410.0393837999786 },
};

/** The TTFT chart as drawn: each series' points, the y axis's range and tick words, its description. */
const ttftChart = (page) => page.evaluate(() => {
  const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero-ttft]'));
  const y = c.scales.y;
  return {
    sets: Object.fromEntries(c.data.datasets.map((d) => [d.label, d.data.map((q) => [q.x, q.y])])),
    type: y.type, min: y.min, max: y.max, ticks: y.ticks.map((t) => [t.value, y.getLabelForValue ? String(c.options.scales.y.ticks.callback(t.value)) : '']),
    title: [c.options.plugins.title.text].flat().join(' '), aria: c.canvas.getAttribute('aria-label'),
    x: [c.scales.x.getPixelForValue(1), c.scales.x.getPixelForValue(16)].map(Math.round),
    mainX: (() => { const m = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]')).scales.x; return [m.getPixelForValue(1), m.getPixelForValue(16)].map(Math.round); })(),
  };
});

test('on the trace the time chart draws the CLI\'s p99s: prefix_aware stays at 35 minutes at every count while kv and round robin fall to seconds', async () => {
  const { page, errors } = await site.open('/?trace=conversation_trace.jsonl&routing=kv', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  const t = await ttftChart(page);
  assert.deepEqual(Object.keys(t.sets), ['round_robin', 'prefix_aware', 'kv']);
  for (const [p, byN] of Object.entries(CLI_P99_MS)) {
    for (const [n, ms] of Object.entries(byN)) {
      const pt = t.sets[p].find(([x]) => x === Number(n));
      assert.ok(pt, `${p} has a point at ${n} replicas`);
      assert.ok(Math.abs(pt[1] - ms) < 1e-6 * ms, `${p} at ${n}: drawn ${pt[1]}, the CLI's ${ms}`);
    }
  }
  // The picture the chart exists for: from 2 replicas on, prefix_aware's p99 is over 100 times kv's.
  for (const [x, y] of t.sets.kv.filter(([x]) => x >= 2)) {
    const pa = t.sets.prefix_aware.find(([px]) => px === x);
    assert.ok(pa[1] > 100 * y, `at ${x}: prefix_aware ${pa[1]} ms against kv ${y} ms`);
  }
  // A log axis that holds every point, its ticks in time units and in order.
  assert.equal(t.type, 'logarithmic');
  const ys = Object.values(t.sets).flat().map(([, y]) => y);
  assert.ok(t.min <= Math.min(...ys) && t.max >= Math.max(...ys), `the axis ${t.min}-${t.max} holds ${Math.min(...ys)}-${Math.max(...ys)}`);
  assert.ok(t.ticks.length >= 2 && t.ticks.length <= 4, `ticks ${JSON.stringify(t.ticks)}`);
  for (const [i, [v, words]] of t.ticks.entries()) {
    assert.match(words, /^\d+ (ms|s|min|h)$/, `tick ${v}: "${words}"`);
    if (i) assert.ok(v > t.ticks[i - 1][0]);
  }
  assert.deepEqual(t.ticks.map(([, w]) => w).filter((w) => w.endsWith('min')).length > 0, true, 'minutes are on the axis');
  assert.deepEqual(t.x, t.mainX, 'its x axis lines up with the main chart\'s');
  assert.match(t.title, /p99 time to first token/);
  assert.equal(t.aria, 'The p99 time to first token against replicas, on a log scale. At 4: round_robin 3.84 s, prefix_aware 35.5 min, kv 2.98 s.');
  await screenshot(page, 'hero-ttft-trace-1280', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('on the defaults the time chart shows prefix_aware\'s slower p99 where it piles requests up, and the numbers beside it agree', async () => {
  const { page, errors } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  const t = await ttftChart(page);
  assert.deepEqual(Object.keys(t.sets), ['round_robin', 'prefix_aware']);
  // The point at the chosen count (4) is the run beside it: the numbers panel's p99.
  const shown = await page.textContent('[data-testid=hero-ttft] .value');
  const report = await page.evaluate(() => window.kvfleet.lastReport.summary.ttft_ms_p99);
  assert.equal(t.sets.round_robin.find(([x]) => x === 4)[1], report);
  assert.match(shown, new RegExp(`· ${Math.round(report)} ms$`));
  // The run is on 200 requests: its p99 is the 198th fastest; prefix_aware's is slower at 4 replicas, where
  // its busiest replica took more than an even share (the share chart above says so too).
  const pa4 = t.sets.prefix_aware.find(([x]) => x === 4)[1];
  assert.ok(pa4 > report, `prefix_aware ${pa4} ms against round robin ${report} ms at 4`);
  assert.deepEqual(errors, []);
});

test('at 390 px the time chart\'s title fits, and both small multiples come after the controls, so the sliders stay on the first screen under the figure', async () => {
  const { page, errors } = await site.open('/', { viewport: { width: 390, height: 844 } });
  await settled(page);
  const look = await page.evaluate(() => {
    const box = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
    const ch = window.Chart.getChart(document.querySelector('[data-testid=chart-hero-ttft]'));
    const block = ch.titleBlock;
    const lines = [].concat(block.options.text);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = window.Chart.helpers.toFont(block.options.font).string;
    return { lines, widths: lines.map((l) => ctx.measureText(l).width), block: block.right - block.left,
      fig: box('chart-hero'), share: box('chart-hero-share'), ttft: box('chart-hero-ttft'), controls: box('hero-controls'), slider: box('hero-input-kv_blocks'), vh: innerHeight };
  });
  for (const [i, w] of look.widths.entries()) assert.ok(w <= look.block, `"${look.lines[i]}" is ${w.toFixed(0)} px in ${look.block.toFixed(0)} px`);
  assert.ok(look.controls.top >= look.fig.bottom && look.share.top >= look.controls.bottom && look.ttft.top >= look.share.bottom,
    `figure ${look.fig.bottom}, controls ${look.controls.top}-${look.controls.bottom}, share chart ${look.share.top}, time chart ${look.ttft.top}`);
  assert.ok(look.slider.bottom <= look.vh, `the slider ends at ${look.slider.bottom}, on the first screen (${look.vh})`);
  assert.ok(look.ttft.height >= 90, `tall enough to read: ${look.ttft.height}`);
  await screenshot(page, 'hero-ttft-390', { fullPage: false });
  assert.deepEqual(errors, []);
});

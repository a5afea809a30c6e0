// tests/e2e/lesson-figure.test.mjs: a lesson's "how it works" figure in real Chromium. Where the swept
// values double (1, 2, 4, 8, 16) or span 8x or more, the x axis is logarithmic with a tick at each swept
// value (on a phone, less any whose label would touch a neighbour's) and each doubling one equal step;
// otherwise it stays linear. Its y ticks print each tick's value
// exactly, with no needless ".0" ("100%", not "100.0%"). Expectations are computed here from the drawn
// points and tick values. The run on screen is ringed on the figure when it is one of the figure's
// runs (the CLI's points), and not when a setting the figure holds fixed has changed.
// Screenshots: lesson-figure-<lesson>-<width>.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startSite, ROOT, nativeBin, nextFrames } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); }); // (no test here looks at the first screen's figure)
after(async () => { await site?.close(); });

// A lesson whose figure doubles, one spanning 8x, one spanning 150x, one spanning 4x (linear), and one
// from 0 (linear: spill thresholds 0 to 16).
const LESSONS = ['more-replicas-slower', 'smallest-tree-pile-up', 'reuse-at-all', 'when-disaggregation-pays', 'hot-prefix'];

/** The lesson figure's chart as drawn: x scale type, tick values and labels, pixel of each x, y ticks. */
async function figure(page) {
  await page.waitForSelector('[data-testid=lesson-diagram] canvas', { timeout: 90000 });
  return page.evaluate(() => {
    const ch = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
    const xs = ch.data.datasets[0].data.map((p) => p.x);
    return {
      caption: ch.canvas.closest('figure').querySelector('figcaption').textContent,
      xs, type: ch.scales.x.type, xMin: ch.scales.x.min, xMax: ch.scales.x.max, xTicks: ch.scales.x.ticks.map((t) => ({ value: t.value, label: t.label })),
      px: xs.map((x) => ch.scales.x.getPixelForValue(x)),
      // Each x tick's label: where it starts and ends across the chart, measured in the tick font.
      xLabels: ch.scales.x.ticks.map((t) => {
        const g = document.createElement('canvas').getContext('2d');
        g.font = window.Chart.helpers.toFont(ch.scales.x.options.ticks.font).string;
        const w = g.measureText(t.label).width, mid = ch.scales.x.getPixelForValue(t.value);
        return { left: mid - w / 2, right: mid + w / 2 };
      }),
      yTicks: ch.scales.y.ticks.map((t) => ({ value: t.value, label: t.label })).filter((t) => t.label !== ''),
      yFormat: ch.options.scales.y.title.text,
    };
  });
}

/** Whether values double step by step, or span 8x or more, all above 0 (computed here, not by the page). */
const expectLog = (xs) => xs[0] > 0 && (xs.every((x, i) => i === 0 || x === 2 * xs[i - 1]) || xs.at(-1) / xs[0] >= 8);

/** The number a tick label says ("48%" -> 0.48 of a percent axis, "1.5 s" -> 1500 ms, "32,000" -> 32000). */
function labelValue(label) {
  const n = Number(label.replace(/,/g, '').replace(/[^\d.-]/g, ''));
  if (label.endsWith('%')) return n / 100;
  if (label.endsWith(' s')) return n * 1000;
  return n;
}

/** The figure's axes checked at `width` (the page open, or resized to it). */
async function checkAxes(page, lesson, width) {
  await page.setViewportSize({ width, height: 900 });
  await nextFrames(page, 3);
  const f = await figure(page);
  const log = expectLog(f.xs);
  assert.equal(f.type, log ? 'logarithmic' : 'linear', `${lesson} (${f.xs}): x axis`);
  // The axis spans the swept values, no further (a linear one had run on to 20 past a last run at 16).
  assert.deepEqual([f.xMin, f.xMax], [Math.min(...f.xs), Math.max(...f.xs)], `${lesson}: the x axis's ends`);
  if (log) {
    // A tick at each swept value (on a phone, less any whose label would touch its neighbour's),
    // printed with thousands separators, and nothing else.
    const ticks = f.xTicks.map((t) => t.value);
    if (width >= 1280) assert.deepEqual(ticks, f.xs);
    else assert.ok(ticks.every((v) => f.xs.includes(v)) && ticks[0] === f.xs[0] && ticks.at(-1) === f.xs.at(-1), `ticks ${ticks} of ${f.xs}`);
    for (const t of f.xTicks) assert.equal(labelValue(t.label), t.value, `x tick "${t.label}"`);
    for (let i = 1; i < f.xLabels.length; i += 1) {
      assert.ok(f.xLabels[i].left > f.xLabels[i - 1].right, `${lesson} at ${width}px: x labels "${f.xTicks[i - 1].label}" and "${f.xTicks[i].label}" overlap`);
    }
    // Equal ratios are equal steps on the page.
    for (let i = 2; i < f.xs.length; i += 1) {
      const want = (f.px[1] - f.px[0]) * Math.log(f.xs[i] / f.xs[i - 1]) / Math.log(f.xs[1] / f.xs[0]);
      assert.ok(Math.abs(f.px[i] - f.px[i - 1] - want) < 1, `${lesson}: x step ${i} is to log scale`);
    }
  }
  // Each y tick says its value exactly, the labels differ, and not every one ends in a needless ".0".
  assert.ok(f.yTicks.length >= 2, 'the y axis has ticks');
  for (const t of f.yTicks) assert.ok(Math.abs(labelValue(t.label) - t.value) < 1e-9 * Math.max(1, Math.abs(t.value)), `y tick "${t.label}" is ${t.value}`);
  assert.equal(new Set(f.yTicks.map((t) => t.label)).size, f.yTicks.length, `distinct y labels: ${f.yTicks.map((t) => t.label)}`);
  assert.ok(!f.yTicks.every((t) => /\.0(%| ms| s)?$/.test(t.label)), `no needless ".0": ${f.yTicks.map((t) => t.label)}`);
  await page.locator('[data-testid=lesson-diagram]').screenshot({ path: path.join(ROOT, 'test-results', `lesson-figure-${lesson}-${width}.png`) });
}

for (const [k, lesson] of LESSONS.entries()) {
  // Each lesson opens at one of the two widths, in turn, and is resized to the other: the figure's
  // chart follows its box's size (Chart.js's resize observer), ticks and all.
  const widths = k % 2 === 0 ? [1280, 390] : [390, 1280];
  test(`${lesson}: a log x axis ticked at the swept values where they double or span 8x, y ticks without a needless ".0" (opened at ${widths[0]} px)`, async () => {
    const { page, errors, context } = await site.open(`/?lesson=${lesson}`, { viewport: { width: widths[0], height: 900 } });
    try {
      for (const width of widths) await checkAxes(page, lesson, width);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

/** The "this run" ring on each panel of the lesson figure: [{x, y}] or null per panel. */
const rings = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid=lesson-diagram] canvas')].map((c) => {
  const ds = window.Chart.getChart(c)?.data.datasets.find((d) => d.label === 'this run');
  return ds ? ds.data[0] : null;
}));

test('the lesson figure rings the run on screen when it is one of the figure\'s runs, on both panels, and not otherwise', async () => {
  const id = 'more-replicas-slower';
  const want = JSON.parse(execFileSync(nativeBin(), ['lesson', id, '--material', '--material-json'], { cwd: ROOT, encoding: 'utf8' })).diagram;
  const { page, errors, context } = await site.open(`/?lesson=${id}`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('[data-testid=lesson-diagram-second]', { timeout: 90000 });
    // The broken setup is round robin on 8 replicas: the round_robin series' fourth point, both panels.
    const at8 = want.values.indexOf(8);
    await page.waitForFunction(() => window.kvfleet.lessonRunSeries === 0, null, { timeout: 30000 });
    assert.deepEqual(await rings(page), [{ x: 8, y: want.points[0][at8] }, { x: 8, y: want.second_points[0][at8] }]);
    // The sticky fix: the sticky series' point at 8.
    const n = await page.evaluate(() => window.kvfleet.runCount);
    // The fix's button (shown after the hints), pressed as its click would.
    await page.evaluate(() => document.querySelector('[data-testid=lesson-fix-sticky-routing]').click());
    await page.waitForFunction((k) => window.kvfleet.runCount > k && window.kvfleet.lastReport.config.routing === 'sticky', n, { timeout: 30000 });
    await page.waitForFunction(() => window.kvfleet.lessonRunSeries === 1, null, { timeout: 30000 });
    assert.deepEqual(await rings(page), [{ x: 8, y: want.points[1][at8] }, { x: 8, y: want.second_points[1][at8] }]);
    // A setting the figure holds fixed (session affinity) changed, by the lesson's link: the run is
    // none of the figure's, no ring.
    await page.goto(new URL(`/?lesson=${id}&routing=sticky&session_affinity=50`, page.url()).href);
    await page.waitForFunction(() => window.kvfleet?.lastReport?.config.session_affinity === 50, null, { timeout: 30000 });
    await page.waitForSelector('[data-testid=lesson-diagram-second]', { timeout: 90000 });
    await page.waitForFunction(() => window.kvfleet.lessonRunSeries === -1, null, { timeout: 30000 });
    assert.deepEqual(await rings(page), [null, null]);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

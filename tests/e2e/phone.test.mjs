// tests/e2e/phone.test.mjs: the page on a phone (390 x 844) in real Chromium. Nothing is clipped
// without a way to scroll to it (no sideways page, the per-replica table stacked, the fleet report
// lines wrapped); the busiest-replica chart's title fits its chart instead of being squeezed; and the
// hero's legend draws each line as the plot does (dotted, dashed), here and on a desktop; the
// planner's table fits a phone (a card per policy) and a desktop, with no scroll hint;
// the hero's plot takes the height a taller phone has to spare above the slider.
// Screenshots: test-results/phone-390.png (the whole page), phone-390-planner-table.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { startSite, screenshot, ROOT, RESULTS } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

async function openPage(viewport = PHONE) {
  const { page, errors, context } = await site.open('/', { viewport });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  await page.evaluate(() => window.kvfleet.drawAllCharts?.());
  return { page, errors, close: () => context.close() };
}

/**
 * Every shown element whose content is wider than its box and cut off there: overflow hidden or
 * clip, or a sideways scroller with no visible cue (a gradient shadow or an element marked as a
 * scroll hint). Screen-reader-only text is meant to be clipped.
 */
function clippedElements() {
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('.sr-only') || !e.getClientRects().length || e.clientWidth === 0) continue;
    if (e.scrollWidth <= e.clientWidth + 1) continue;
    const cs = getComputedStyle(e);
    if (cs.overflowX === 'visible') continue;
    const scrolls = cs.overflowX === 'auto' || cs.overflowX === 'scroll';
    const cue = /gradient/.test(cs.backgroundImage) || !!e.querySelector('.scroll-hint');
    if (scrolls && cue) continue;
    out.push(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')} (${e.scrollWidth} px of content in ${e.clientWidth} px, overflow-x ${cs.overflowX})`);
  }
  return out;
}

test('at 390 px nothing is clipped without a scroll cue: no sideways page, the replica table and the fleet lines fit', async () => {
  const { page, errors, close } = await openPage();
  try {
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'the page does not scroll sideways');
    for (const sel of ['[data-testid=replica-table] .table-wrap', '[data-testid=replica-rows]', '[data-testid=fleet-lines]']) {
      const box = await page.$eval(sel, (e) => ({ sw: e.scrollWidth, cw: e.clientWidth, right: e.getBoundingClientRect().right }));
      assert.ok(box.sw <= box.cw + 1, `${sel}: ${box.sw} px of content in ${box.cw} px`);
      assert.ok(box.right <= PHONE.width, `${sel} ends inside the screen (${box.right} px)`);
    }
    assert.deepEqual(await page.evaluate(clippedElements), []);
    // Each stacked value still says what it is: every cell carries its column's name.
    const cells = await page.$$eval('[data-testid=replica-rows] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.label)));
    const cols = await page.$$eval('[data-testid=replica-rows] thead th', (ths) => ths.slice(1).map((th) => th.textContent));
    assert.ok(cells.length > 0);
    for (const row of cells) assert.deepEqual(row, cols);
    await screenshot(page, 'phone-390');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('at 390 px the busiest-replica chart title fits its chart, unsqueezed', async () => {
  const { page, errors, close } = await openPage();
  try {
    const t = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'chart-hero-share');
      const block = ch.titleBlock;
      const lines = [].concat(block.options.text);
      // Measured here, in the title's own font: Chart.js squeezes a line wider than its block.
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = window.Chart.helpers.toFont(block.options.font).string;
      return { lines, widths: lines.map((l) => ctx.measureText(l).width), block: block.right - block.left, canvas: ch.width };
    });
    assert.match(t.lines.join(' '), /Busiest replica's share of requests/);
    assert.match(t.lines.join(' '), /even share/);
    for (const [i, w] of t.widths.entries()) {
      assert.ok(w <= t.block, `title line "${t.lines[i]}" is ${w.toFixed(0)} px in a ${t.block.toFixed(0)} px block`);
    }
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('at 390 px every policy button is at least 28 px tall and every checkbox 20 px, in the hero and the settings', async () => {
  const { page, errors, close } = await openPage();
  try {
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    const small = await page.evaluate(() => {
      const out = [];
      const seen = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
      for (const s of document.querySelectorAll('.seg span')) {
        const r = s.getBoundingClientRect();
        if (seen(s) && r.height < 28) out.push(`button "${s.textContent}" ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
      }
      for (const c of document.querySelectorAll('input[type=checkbox]')) {
        const r = c.getBoundingClientRect();
        if (seen(c) && (r.width < 20 || r.height < 20)) out.push(`checkbox ${c.dataset.testid || c.id} ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
      }
      return { out, buttons: document.querySelectorAll('.seg span').length, boxes: document.querySelectorAll('input[type=checkbox]').length };
    });
    assert.ok(small.buttons >= 20 && small.boxes >= 2, `buttons and checkboxes found: ${small.buttons}, ${small.boxes}`);
    assert.deepEqual(small.out, []);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('at 390 px the per-replica cards all show up to 8 replicas; past 8 the list scrolls and says so', async () => {
  const { page, errors, close } = await openPage();
  try {
    const wrap = (p) => p.$eval('[data-testid=replica-table] .replica-wrap', (e) => ({ sh: e.scrollHeight, ch: e.clientHeight }));
    const hint = '[data-testid=replica-scroll-hint]';
    let w = await wrap(page);
    assert.ok(w.sh <= w.ch + 1, `4 replicas: every card and the fleet row show (${w.sh} px of cards in ${w.ch} px)`);
    assert.equal(await page.isVisible(hint), false);
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await page.goto(new URL('/?instances=16', page.url()).href);
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    assert.ok(n > 0);
    w = await wrap(page);
    assert.ok(w.sh > w.ch + 1, '16 replicas scroll inside the list');
    assert.equal(await page.isVisible(hint), true);
    assert.equal(await page.textContent(hint), '16 replicas: scroll inside the list for each one, and the fleet\'s row at its end ↓');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('at 390 px the queue chart\'s axis title fits the chart\'s height', async () => {
  const { page, errors, close } = await openPage();
  try {
    const t = await page.evaluate(() => {
      const ch = window.Chart.getChart(document.querySelector('[data-testid=chart-queue]'));
      const title = ch.options.scales.y.title;
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = window.Chart.helpers.toFont(title.font).string;
      return { text: title.text, width: ctx.measureText(title.text).width, top: ch.scales.y.top, bottom: ch.scales.y.bottom, height: ch.height };
    });
    // Drawn turned, centred on the axis: it must fit from the axis's middle to the canvas's edges.
    const mid = (t.top + t.bottom) / 2;
    assert.ok(t.width / 2 <= Math.min(mid, t.height - mid), `"${t.text}" is ${t.width.toFixed(0)} px, centred at ${mid.toFixed(0)} in ${t.height} px`);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

/**
 * For each legend entry of a chart: its dataset's borderDash, the entry's lineDash, and, when the
 * entry's glyph is a canvas, whether its midline shows a gap (a dash) where the line is drawn.
 */
function legendDashes(id) {
  const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === id);
  return ch.legend.legendItems.map((item) => {
    const ds = ch.data.datasets[item.datasetIndex];
    const out = { text: item.text, want: ds.borderDash || [], lineDash: item.lineDash, line: ds.showLine !== false, style: typeof item.pointStyle };
    const g = item.pointStyle;
    if (g instanceof HTMLCanvasElement) {
      const marker = [].concat(ds.pointRadius ?? 3).some((r) => r > 0) && ds.pointStyle !== 'line';
      const end = marker ? Math.floor(g.width / 2) - 6 : g.width;
      const row = g.getContext('2d').getImageData(0, Math.floor(g.height / 2), Math.max(1, end), 1).data;
      const ink = []; for (let x = 0; x < end; x++) ink.push(row[4 * x + 3] > 40);
      const first = ink.indexOf(true), last = ink.lastIndexOf(true);
      out.gap = first >= 0 && ink.slice(first, last + 1).includes(false);
      out.inked = first >= 0;
      out.span = end;
    } else {
      out.style = String(g);
    }
    return out;
  });
}

function assertLegendDashes(items, where) {
  assert.ok(items.some((it) => it.want.length > 0), `${where}: a dotted or dashed dataset is in the legend`);
  for (const it of items) {
    assert.deepEqual(it.lineDash ?? [], it.want, `${where}: "${it.text}" lineDash equals its dataset's borderDash`);
    if (it.gap === undefined) {
      if (it.want.length) assert.equal(it.style, 'line', `${where}: "${it.text}" draws its dashed line, not only a marker`);
      continue;
    }
    if (!it.line) continue;
    assert.ok(it.inked, `${where}: "${it.text}" draws its line`);
    const period = it.want.reduce((a, b) => a + b, 0);
    if (it.want.length && it.span >= period + 4) assert.ok(it.gap, `${where}: "${it.text}" is drawn broken, as its ${JSON.stringify(it.want)} line`);
    if (!it.want.length) assert.ok(!it.gap, `${where}: "${it.text}" is drawn solid, as its line`);
  }
}

test('the hero legend draws each line as the plot does: the model dotted, a dashed policy dashed (390 px and 1280 px)', async () => {
  for (const viewport of [PHONE, { width: 1280, height: 900 }]) {
    const { page, errors, close } = await openPage(viewport);
    try {
      const items = await page.evaluate(legendDashes, 'chart-hero');
      assert.ok(items.some((it) => /model/.test(it.text)), 'the model lines are in the legend');
      assertLegendDashes(items, `hero at ${viewport.width} px`);
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

test('after a plan the planner table fits at 390 px (a card per policy) and at 1280 px, with no scroll hint', async () => {
  for (const viewport of [PHONE, { width: 1280, height: 900 }]) {
    const { page, errors, close } = await openPage(viewport);
    try {
      await page.click('[data-testid=cap-run]');
      await page.waitForFunction(() => window.kvfleet.lastCapacity, null, { timeout: 120000 });
      const wrap = page.locator('[data-testid=capacity] .table-wrap', { has: page.locator('[data-testid=cap-table]') });
      const box = await wrap.evaluate((e) => ({ sw: e.scrollWidth, cw: e.clientWidth }));
      assert.ok(box.sw <= box.cw + 1, `the table fits at ${viewport.width} px (${box.sw} px in ${box.cw} px)`);
      assert.equal(await page.isVisible('[data-testid=cap-scroll-hint]'), false, 'no hint where nothing scrolls');
      if (viewport === PHONE) {
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, 'the page does not scroll sideways');
        assert.deepEqual(await page.evaluate(clippedElements), []);
        await mkdir(RESULTS, { recursive: true });
        await wrap.screenshot({ path: path.join(RESULTS, 'phone-390-planner-table.png') });
      }
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

test('a taller phone gives the hero\'s plot the room it has above the slider: the axis title fits the plot, the slider stays on the first screen', async () => {
  // At 390x844 the box was 230 px, which left a 107 px plot under the three-line legend, shorter
  // than its rotated axis title; the plot now takes what the screen has to spare over the four
  // controls and the per-replica chart (all on 390x844's first screen), up to 300 px; a shorter
  // phone keeps a legible plot and the replicas slider.
  for (const [viewport, least, last] of [[{ width: 390, height: 844 }, 140, 'kv_blocks'], [{ width: 360, height: 740 }, 130, 'instances']]) {
    const { page, errors, close } = await openPage(viewport);
    try {
      const look = await page.evaluate((slider) => {
        const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
        const t = c.scales.y.options.title;
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = window.Chart.helpers.toFont(t.font).string;
        return { plot: c.chartArea.bottom - c.chartArea.top, title: ctx.measureText(t.text).width,
          slider: document.querySelector(`[data-testid=hero-input-${slider}]`).getBoundingClientRect().bottom, vh: innerHeight };
      }, last);
      const at = `${viewport.width}x${viewport.height}`;
      assert.ok(look.plot >= least, `${at}: a ${look.plot.toFixed(0)} px plot (at least ${least})`);
      assert.ok(look.title <= look.plot, `${at}: the ${look.title.toFixed(0)} px axis title fits the ${look.plot.toFixed(0)} px plot`);
      assert.ok(look.slider <= look.vh, `${at}: the ${last} slider ends at ${look.slider.toFixed(0)}, within ${look.vh}`);
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

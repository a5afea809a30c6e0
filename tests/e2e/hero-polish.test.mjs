// tests/e2e/hero-polish.test.mjs: a first-time reader's review of the hero, in real Chromium. The model
// line is drawn over the measured curves in its own colour, so "misses ≈ prefixes" shows on top of
// prefix_aware's points, and its legend entry draws what the plot does; each curve's end label clears
// every other (two curves on the same value included), in value order, inside the canvas; the
// replicas slider steps through 1 2 3 4 6 8 12 16 24 ... 256, near-even steps on the log axis, and the
// run, the chart and the URL take each stop, while a count between stops from a link stays exact;
// at 1280x900 the first screen holds the figure, its controls and the sentence with no empty block;
// the scenarios under the figure stay put as each runs, and share the screen with the figure after a click;
// on load the curves span the whole axis (1 to 256), a pile-up note going under its name at the axis's end.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, settledUrl, ROOT } from './harness.mjs';

let site;
const PAGE_TIMEOUT = 60000;
const SLIDER = '[data-testid=hero-input-instances]';
const STOPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256];

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** Opens `url` and waits for the first run and the hero's whole sweep. */
async function openHero(url, viewport = { width: 1280, height: 900 }) {
  const opened = await site.open(url, { viewport });
  await heroSettled(opened.page);
  return opened;
}

async function heroSettled(page) {
  await page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
    null, { timeout: PAGE_TIMEOUT });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))); // the last draw
}

/** The model dataset "misses ≈ prefixes" against prefix_aware's: draw order, colours, legend entry. */
const modelLook = (page) => page.evaluate(() => {
  const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
  const sets = c.data.datasets;
  const model = sets.findIndex((d) => d.label === "prefix_aware's model (dashed): misses ≈ prefixes");
  const pa = sets.findIndex((d) => d.label === 'prefix_aware');
  // Chart.js draws the sorted metas from the last to the first: a later index is drawn later, on top.
  const drawn = c.getSortedVisibleDatasetMetas().map((m) => m.index).reverse();
  const item = c.legend.legendItems.find((it) => it.datasetIndex === model);
  // The legend glyph's darkest pixel on its middle row, against the dataset's colour.
  const g = item?.pointStyle;
  let glyph = null;
  if (g instanceof HTMLCanvasElement) {
    const row = g.getContext('2d').getImageData(0, Math.floor(g.height / 2), g.width, 1).data;
    for (let i = 0; i < row.length; i += 4) if (row[i + 3] > 100 && (!glyph || row[i] + row[i + 1] + row[i + 2] < glyph.reduce((a, b) => a + b, 0))) glyph = [row[i], row[i + 1], row[i + 2]];
  }
  return { model, pa, drawnModel: drawn.indexOf(model), drawnPolicies: sets.map((d, i) => i).filter((i) => ['round_robin', 'prefix_aware'].includes(sets[i].label)).map((i) => drawn.indexOf(i)),
    modelColor: sets[model]?.borderColor, paColor: sets[pa]?.borderColor, dash: sets[model]?.borderDash,
    legend: item ? { text: item.text, lineDash: item.lineDash, hidden: item.hidden } : null, glyph };
});

/** [r, g, b] of '#rrggbb' or '#rrggbbaa'. */
const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/**
 * How many canvas pixels along the flat model line, between prefix_aware's points at 8 and 16 replicas
 * (clear of their markers), change when the model's dataset is hidden: its visible part.
 */
const modelPixels = (page) => page.evaluate(async () => {
  const canvas = document.querySelector('[data-testid=chart-hero]');
  const c = window.Chart.getChart(canvas);
  const i = c.data.datasets.findIndex((d) => d.label === "prefix_aware's model (dashed): misses ≈ prefixes");
  const pa = c.getDatasetMeta(c.data.datasets.findIndex((d) => d.label === 'prefix_aware')).data;
  const xs = c.data.datasets[c.data.datasets.findIndex((d) => d.label === 'prefix_aware')].data.map((p) => p.x);
  const from = pa[xs.indexOf(8)], to = pa[xs.indexOf(16)];
  const model = c.getDatasetMeta(i).data.find((e) => e.x > from.x);
  const k = canvas.width / c.width;
  const row = () => {
    const out = [];
    for (let dy = -1; dy <= 1; dy++) out.push(...c.ctx.getImageData(Math.round((from.x + 8) * k), Math.round((model.y + dy) * k), Math.round((to.x - from.x - 16) * k), 1).data);
    return out;
  };
  const shown = row();
  c.setDatasetVisibility(i, false);
  c.update('none');
  const hidden = row();
  c.setDatasetVisibility(i, true);
  c.update('none');
  let changed = 0;
  for (let p = 0; p < shown.length; p += 4) if (Math.abs(shown[p] - hidden[p]) + Math.abs(shown[p + 1] - hidden[p + 1]) + Math.abs(shown[p + 2] - hidden[p + 2]) > 60) changed++;
  return { changed, span: to.x - from.x - 16 };
});

test('the model line "misses ≈ prefixes" is drawn over prefix_aware\'s points in a colour of its own, and its legend entry draws it so', async () => {
  const { page, errors } = await openHero('/');
  const m = await modelLook(page);
  assert.ok(m.model >= 0 && m.pa >= 0, 'the model and prefix_aware datasets are there');
  for (const d of m.drawnPolicies) assert.ok(m.drawnModel > d, `the model is drawn after (over) the measured curves: ${m.drawnModel} vs ${m.drawnPolicies}`);
  const [a, b] = [rgb(m.modelColor), rgb(m.paColor)];
  const distance = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  assert.ok(distance > 150, `the model's colour ${m.modelColor} stands out from prefix_aware's ${m.paColor} (distance ${distance.toFixed(0)})`);
  const px = await modelPixels(page);
  assert.ok(px.changed >= px.span / 4, `hiding the model changes ${px.changed} pixels along ${px.span.toFixed(0)} px of it: it shows`);
  // The legend: the entry is shown, dotted as the line, in the line's colour.
  assert.equal(m.legend?.text, "prefix_aware's model (dashed): misses ≈ prefixes");
  assert.equal(m.legend.hidden, false);
  assert.deepEqual(m.legend.lineDash, m.dash);
  const glyphGap = Math.hypot(...m.glyph.map((v, k) => v - a[k]));
  assert.ok(glyphGap < 80, `the legend glyph's ink ${m.glyph} is the line's ${m.modelColor}`);
  // The two models' entries name their policies and differ in pattern, as their lines do.
  const models = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    return c.legend.legendItems.filter((it) => c.data.datasets[it.datasetIndex].model).map((it) => ({ text: it.text, dash: it.lineDash, line: c.data.datasets[it.datasetIndex].borderDash }));
  });
  assert.deepEqual(models.map((x) => x.text), ["round robin's model (dotted): misses ≈ prefixes × replicas", "prefix_aware's model (dashed): misses ≈ prefixes"]);
  assert.notDeepEqual(models[0].dash, models[1].dash, 'the two model glyphs differ');
  for (const x of models) assert.deepEqual(x.dash, x.line, `${x.text}: its glyph is its line's pattern`);
  await screenshot(page, 'hero-polish-model-1280', { fullPage: false });
  assert.deepEqual(errors, []);
});

/** The end labels as drawn ({text, x, y, w, h, ax, ay}), the chart's size and its other labels' boxes. */
const endLabels = (page) => page.evaluate(() => {
  const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
  const names = c.data.datasets.filter((d) => !d.model && d.label !== 'this run').map((d) => d.label);
  return { boxes: (c.endLabelBoxes || []).map(({ text, words, lines, x, y, w, h, ax, ay }) => ({ text, words, lines, x, y, w, h, ax, ay })), names,
    width: c.width, height: c.height, here: c.hereLabelBox, words: c.unsweptBox, area: { top: c.chartArea.top, bottom: c.chartArea.bottom } };
});

const overlap = (p, q) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;

/** Every label: there, inside the canvas, clear of the others and of the chart's own words, in value order. */
function assertLabels(l, where) {
  assert.deepEqual(l.boxes.map((b) => b.text).sort(), [...l.names].sort(), `${where}: a label for each curve`);
  for (const b of l.boxes) {
    assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= l.width && b.y + b.h <= l.height, `${where}: "${b.text}" inside the canvas`);
    assert.ok(b.x > b.ax, `${where}: "${b.text}" past its curve's end`);
    for (const o of [l.here, l.words].filter(Boolean)) assert.ok(!overlap(b, o), `${where}: "${b.text}" clears the chart's other words`);
  }
  for (let i = 0; i < l.boxes.length; i++) {
    for (let j = i + 1; j < l.boxes.length; j++) {
      assert.ok(!overlap(l.boxes[i], l.boxes[j]), `${where}: "${l.boxes[i].text}" and "${l.boxes[j].text}" overlap: ${JSON.stringify([l.boxes[i], l.boxes[j]])}`);
    }
  }
  // Top to bottom as the curves' ends are (a tie in either order).
  const byLabel = [...l.boxes].sort((p, q) => p.y - q.y);
  for (let i = 1; i < byLabel.length; i++) assert.ok(byLabel[i - 1].ay <= byLabel[i].ay, `${where}: labels in the order of their values`);
}

test('end labels: on the defaults and where sglang and prefix_aware end within 2 points, no two overlap; nudged ones stay by their values', async () => {
  const { page, errors } = await openHero('/');
  const d = await endLabels(page);
  assert.equal(d.boxes.length, 2);
  assertLabels(d, 'defaults');
  // Not nudged when apart: each label's middle on its curve's end, or as near as the plot's edge lets
  // it (round robin ends at 0% at 256 replicas: its label sits on the plot's floor, just above).
  for (const b of d.boxes) {
    const floor = b.y + b.h >= d.area.bottom - 0.5 && b.y + b.h / 2 < b.ay;
    assert.ok(Math.abs(b.y + b.h / 2 - b.ay) < 1 || floor, `"${b.text}" on its curve: ${JSON.stringify(b)}`);
  }

  const sg = await openHero('/?routing=sglang');
  const ends = await sg.page.evaluate(() => Object.fromEntries(['prefix_aware', 'sglang'].map((p) => [p, window.kvfleet.hero.sweeps[p].at(-1)])));
  const gap = 100 * Math.abs(ends.prefix_aware.hit_rate_tokens - ends.sglang.hit_rate_tokens);
  assert.ok(gap < 2, `sglang and prefix_aware end within 2 points (${gap.toFixed(2)})`);
  const l = await endLabels(sg.page);
  assert.equal(l.boxes.length, 3);
  assertLabels(l, 'sglang');
  // The two close ones sit side by side around their shared value, one label height apart, no further.
  const [a, b] = l.boxes.filter((x) => x.text === 'prefix_aware' || x.text === 'sglang').sort((p, q) => p.y - q.y);
  assert.ok(b.y - a.y >= a.h && b.y - a.y <= a.h + 1, `one label height apart: ${b.y - a.y}`);
  const mid = (a.y + b.y + b.h) / 2;
  assert.ok(Math.abs(mid - (a.ay + b.ay) / 2) < 1.5, 'centred on their values');
  await screenshot(sg.page, 'hero-polish-labels-sglang-1280', { fullPage: false });

  // At 256 replicas the curves end at the axis's end: the chart makes room, and the small multiple follows.
  await sg.page.focus(SLIDER);
  await sg.page.keyboard.press('End');
  await sg.page.waitForFunction(() => window.kvfleet.lastReport?.config.instances === 256, null, { timeout: PAGE_TIMEOUT });
  await heroSettled(sg.page);
  const far = await endLabels(sg.page);
  assert.equal(far.boxes.length, 3);
  assertLabels(far, '256 replicas');
  const axes = await sg.page.evaluate(() => ['chart-hero', 'chart-hero-share', 'chart-hero-ttft'].map((id) => {
    const x = window.Chart.getChart(document.querySelector(`[data-testid=${id}]`)).scales.x;
    return [x.getPixelForValue(1), x.getPixelForValue(256)].map((v) => Math.round(v));
  }));
  assert.deepEqual(axes[1], axes[0], 'the share chart\'s x axis lines up with the main chart\'s');
  assert.deepEqual(axes[2], axes[0], 'the time chart\'s x axis lines up with the main chart\'s');
  await screenshot(sg.page, 'hero-polish-labels-256-1280', { fullPage: false });

  // A phone: labels where they fit, none overlapping.
  const phone = await openHero('/?routing=sglang', { width: 390, height: 844 });
  const p = await endLabels(phone.page);
  if (p.boxes.length) assertLabels(p, '390 px');
  await screenshot(phone.page, 'hero-polish-labels-sglang-390', { fullPage: false });
  assert.deepEqual([...errors, ...sg.errors, ...phone.errors], []);
});

test('a curve that owes its hits to one replica says so at its end: prefix_aware on the trace, "all on one replica"; no note on the defaults', async () => {
  // The CLI (--des-mooncake-trace conversation_trace.jsonl --des-instances 16 --des-routing prefix_aware):
  // replica 11 received 12,031 of 12,031 requests; kv's busiest at 16 is near an even share.
  const { page, errors } = await openHero('/?trace=conversation_trace.jsonl&routing=kv');
  const l = await endLabels(page);
  assertLabels(l, 'trace');
  const words = Object.fromEntries(l.boxes.map((b) => [b.text, b.words]));
  assert.deepEqual(words, { round_robin: 'round_robin', prefix_aware: 'prefix_aware · all on one replica', kv: 'kv' });
  // The curves reach the axis's end (256), where one long line would squeeze the plot: the note goes
  // under the name, and the box holds its wider line, wider than the name's alone would be.
  const pa = l.boxes.find((b) => b.text === 'prefix_aware');
  assert.deepEqual(pa.lines, ['prefix_aware', 'all on one replica']);
  const [nameW, noteW] = await page.evaluate((f) => { const c = document.createElement('canvas').getContext('2d'); c.font = f; return ['prefix_aware', 'all on one replica'].map((t) => c.measureText(t).width); },
    '600 12px system-ui, sans-serif');
  assert.ok(noteW > nameW && pa.w >= noteW, `the box (${pa.w.toFixed(0)} px) holds the note (${noteW.toFixed(0)} px)`);
  assert.ok(pa.h > l.boxes.find((b) => b.text === 'kv').h, 'two lines high');
  await screenshot(page, 'hero-polish-pile-note-1280', { fullPage: false });

  // The defaults (the CLI at 16 replicas: prefix_aware's busiest replica took 46 of 200, 23 %): names alone.
  const d = await openHero('/');
  const dl = await endLabels(d.page);
  for (const b of dl.boxes) assert.equal(b.words, b.text, `"${b.words}": no note under half on one replica`);
  assert.deepEqual([...errors, ...d.errors], []);
});

/** The slider's value as a screen reader reads it, its readout, and the stop index. */
const sliderState = (page) => page.evaluate((s) => {
  const i = document.querySelector(s);
  return { text: i.getAttribute('aria-valuetext'), readout: document.querySelector('[data-testid=hero-readout-instances]').textContent, at: Number(i.value), max: Number(i.max) };
}, SLIDER);
const words = (v) => `${v} replica${v === 1 ? '' : 's'}`;

/** The run on screen is at `n` replicas, the chart's ring and "N replicas" rule are there, the URL says n. */
async function assertShownAt(page, n) {
  await page.waitForFunction((k) => window.kvfleet.lastReport?.config.instances === k && !window.kvfleet.hero.pending, n, { timeout: PAGE_TIMEOUT });
  await page.waitForFunction((k) => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    return c.data.datasets.find((d) => d.label === 'this run')?.data[0]?.x === k;
  }, n, { timeout: PAGE_TIMEOUT });
  const here = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hero]')).options.plugins.hereLine.x);
  assert.equal(here, n, `the rule at ${n}`);
  // A link leaves out a setting at its default (4 replicas).
  const fallback = await page.evaluate(() => String(window.kvfleet.params.find((p) => p.name === 'instances').default));
  assert.equal(new URL(await settledUrl(page)).searchParams.get('instances') ?? fallback, String(n), `the URL at ${n}`);
}

test('the replicas slider steps 1 2 3 4 6 8 12 16 24 ... 256, near-even on the log axis, and the run, chart and URL follow each stop', async () => {
  const { page, errors } = await openHero('/');
  assert.deepEqual(await sliderState(page), { text: '4 replicas', readout: '4 replicas', at: 3, max: STOPS.length - 1 }, 'opens at 4, the fourth stop');
  await page.focus(SLIDER);
  await page.keyboard.press('Home');
  const seen = [];
  for (let i = 0; i < STOPS.length; i++) {
    const s = await sliderState(page);
    seen.push(s.text);
    await page.keyboard.press('ArrowRight');
  }
  assert.deepEqual(seen, STOPS.map(words), 'each arrow key is the next stop');
  await assertShownAt(page, 256);
  for (const [key, v] of [['ArrowLeft', 192], ['Home', 1]]) {
    await page.keyboard.press(key);
    await assertShownAt(page, v);
  }
  for (const v of [2, 3, 4, 6]) {
    await page.keyboard.press('ArrowRight');
    await assertShownAt(page, v);
    assert.equal((await sliderState(page)).readout, words(v));
  }
  // The labelled stops sit within a step of their places on the figure's log axis (1 to 256: 8 doublings).
  const marks = await page.$$eval('[data-testid=hero-marks-instances] span', (ss) => ss.map((s) => ({ v: Number(s.dataset.value), at: Number(s.style.getPropertyValue('--at')) })));
  assert.deepEqual(marks.map((m) => m.v), [1, 4, 8, 16, 64, 256]);
  for (const m of marks) assert.ok(Math.abs(m.at - Math.log2(m.v) / 8) <= 1 / (STOPS.length - 1) + 1e-9, `${m.v} at ${m.at.toFixed(3)} of the track, ${(Math.log2(m.v) / 8).toFixed(3)} of the axis`);
  assert.deepEqual(errors, []);
});

test('a count between the stops from a link (5, 10) stays exact, and the keys step on to the stops either side', async () => {
  for (const [n, below, above] of [[5, 4, 6], [10, 8, 12]]) {
    const { page, errors } = await openHero(`/?instances=${n}&routing=round_robin`);
    await assertShownAt(page, n);
    const s = await sliderState(page);
    assert.equal(s.text, words(n));
    assert.equal(s.readout, words(n));
    await page.focus(SLIDER);
    for (const [key, v] of [['ArrowRight', above], ['ArrowLeft', n], ['ArrowLeft', below]]) {
      await page.keyboard.press(key);
      assert.equal((await sliderState(page)).text, words(v), `${key} to ${v}`);
      await assertShownAt(page, v);
    }
    assert.deepEqual(errors, []);
  }
});

/** The hero's parts, in page pixels: the charts, the caption, the controls, the sentence, the note. */
const heroBoxes = (page) => page.evaluate(() => {
  const box = (s) => { const e = document.querySelector(s); const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, shown: !!e.getClientRects().length }; };
  const hero = document.querySelector('#hero');
  const pad = parseFloat(getComputedStyle(hero).paddingBottom);
  return { chart: box('[data-testid=chart-hero]'), share: box('[data-testid=chart-hero-share]'), ttft: box('[data-testid=chart-hero-ttft]'), caption: box('[data-testid=hero-caption]'),
    slider: box('[data-testid=hero-input-instances]'), takeaway: box('[data-testid=takeaway]'), detail: box('[data-testid=takeaway-detail]'),
    why: box('[data-testid=why-rates]'), end: hero.getBoundingClientRect().bottom - pad, vh: window.innerHeight };
});

test('at 1280x900 the first screen holds the figure, its controls and the sentence; the figure\'s column has no gaps and ends on the first screen', async () => {
  for (const url of ['/', '/?routing=sglang']) {
    const { page, errors } = await openHero(url);
    await page.evaluate(() => window.scrollTo(0, 0));
    const b = await heroBoxes(page);
    for (const k of ['chart', 'share', 'ttft', 'slider', 'takeaway']) assert.ok(b[k].top >= 0 && b[k].bottom <= b.vh, `${url}: ${k} on the first screen (${b[k].top}-${b[k].bottom})`);
    // Down the figure's column: chart, the two small multiples, caption, each close; the caption's end on the first screen.
    const gaps = { 'chart → share chart': b.share.top - b.chart.bottom, 'share chart → time chart': b.ttft.top - b.share.bottom,
      'time chart → caption': b.caption.top - b.ttft.bottom };
    for (const [k, g] of Object.entries(gaps)) assert.ok(g >= 0 && g < 48, `${url}: ${k} gap ${g.toFixed(0)} px`);
    assert.ok(b.caption.bottom <= b.vh + 1, `${url}: the caption ends at ${b.caption.bottom.toFixed(0)}, on the first screen (${b.vh})`);
    // The figure fills the first screen: less than a few lines of it left under the caption.
    assert.ok(b.vh - b.caption.bottom < 48, `${url}: ${(b.vh - b.caption.bottom).toFixed(0)} px left under the caption`);
    await screenshot(page, `hero-polish-first-screen-1280${url === '/' ? '' : '-sglang'}`, { fullPage: false });
    assert.deepEqual(errors, []);
  }
});

/** The hero chart's box and the small multiples', in page pixels, rounded. */
const figureBox = (page) => page.evaluate(() => ['chart-hero', 'chart-hero-share', 'chart-hero-ttft'].map((id) => {
  const r = document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
  return [r.left, r.top + window.scrollY, r.width, r.height].map(Math.round);
}));

test('the figure neither moves nor resizes as the run beside it changes: a warning appearing, a longer sentence, another count', async () => {
  for (const width of [1280, 1024, 390]) {
    const { page, errors } = await openHero('/', { width, height: 900 });
    const first = await figureBox(page);
    const seen = [];
    // round robin (no warning) → least_loaded → sglang (a lead naming three policies, two lines at
    // 1024 px) → prefix_aware (the uneven-load warning, a one-line lead) → 16 replicas (a longer
    // sentence) → round robin.
    for (const step of ['least_loaded', 'sglang', 'prefix_aware', 16, 'round_robin']) {
      const before = await page.evaluate(() => window.kvfleet.runCount);
      // (A phone's hero gives the policies as one drop-down.)
      if (typeof step === 'string' && width <= 480) await page.selectOption('[data-testid=hero-input-routing-select]', step);
      else if (typeof step === 'string') await page.click(`label[for="hero-in-routing-${step}"]`);
      else await page.click(`[data-testid=hero-marks-instances] span[data-value="${step}"]`);
      await page.waitForFunction((n) => window.kvfleet.runCount > n, before, { timeout: PAGE_TIMEOUT });
      await heroSettled(page);
      const findings = await page.locator('[data-testid=hero-findings] .finding').count();
      const detail = (await page.textContent('[data-testid=takeaway-detail]')).length;
      seen.push({ step, findings, detail, box: await figureBox(page) });
    }
    // The steps did change what sits beside the figure: a warning came and went, the sentence's length changed.
    assert.ok(seen.some((s) => s.findings > 0) && seen.some((s) => s.findings === 0), `${width}: a warning came and went ${JSON.stringify(seen.map((s) => s.findings))}`);
    assert.ok(new Set(seen.map((s) => s.detail)).size > 1, `${width}: the sentence's length changed`);
    for (const s of seen) assert.deepEqual(s.box, first, `${width} px, after ${s.step}: the figure's boxes ${JSON.stringify(s.box)}, at first ${JSON.stringify(first)}`);
    assert.deepEqual(errors, []);
  }
});

test('the busiest-replica chart\'s even share is a band under the policies, so round robin, exactly on it, hides nothing', async () => {
  const { page, errors } = await openHero('/?routing=kv');
  const look = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero-share]'));
    const sets = c.data.datasets;
    const drawn = c.getSortedVisibleDatasetMetas().map((m) => m.index).reverse(); // first drawn first
    const even = sets.findIndex((d) => d.label === 'even share (1 / replicas)');
    return { even, drawn, widths: sets.map((d) => d.borderWidth), labels: sets.map((d) => d.label),
      evenData: sets[even]?.data, rr: sets.find((d) => d.label === 'round_robin')?.data, title: [c.options.plugins.title.text].flat().join(' '),
      // The tooltip's words for the band and for a policy at 4 replicas.
      tips: [sets[even], sets.find((d) => d.label === 'kv')].map((d) => c.options.plugins.tooltip.callbacks.label({ dataset: d, parsed: { x: 4, y: 25 } })) };
  });
  assert.ok(look.even >= 0, `an even-share series: ${look.labels}`);
  assert.equal(look.drawn[0], look.even, 'drawn first, under every policy');
  // The chosen policy (kv) is drawn last, over round robin where the two coincide (it was hidden under it).
  assert.equal(look.labels[look.drawn.at(-1)], 'kv', `drawn last: ${look.drawn.map((i) => look.labels[i])}`);
  const main = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    return c.getSortedVisibleDatasetMetas().map((m) => c.data.datasets[m.index]).reverse().filter((d) => !d.model && d.label !== 'this run').map((d) => d.label);
  });
  assert.equal(main.at(-1), 'kv', `the main chart draws the chosen policy over the others: ${main}`);
  for (const [i, w] of look.widths.entries()) if (i !== look.even) assert.ok(look.widths[look.even] >= 3 * w, `the band (${look.widths[look.even]} px) is at least 3 times ${look.labels[i]}'s line (${w} px)`);
  // Round robin deals 200 requests over r replicas in turn: its busiest share is ceil(200 / r) / 200,
  // within one request of the even share, so its line runs inside the band.
  for (const p of look.rr) assert.ok(Math.abs(p.y - 100 / p.x) <= 100 / 200 + 1e-9, `round robin at ${p.x}: ${p.y}% against ${100 / p.x}%`);
  assert.match(look.title, /blue band: an even share/);
  assert.deepEqual(look.tips, [' an even share: 25% of requests each', ' kv: the busiest replica took 25% of requests']);
  assert.deepEqual(errors, []);
});

test('on a phone the models\' short legend entries still name their policies', async () => {
  const { page, errors } = await openHero('/', { width: 390, height: 844 });
  const texts = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    return c.legend.legendItems.filter((it) => c.data.datasets[it.datasetIndex].model).map((it) => it.text);
  });
  assert.deepEqual(texts, ["round robin's model: misses ≈ prefixes × replicas", "prefix_aware's model: misses ≈ prefixes"]);
  assert.deepEqual(errors, []);
});

test('the first-token figures wrap at the dot between them, never inside one ("35.5 / min")', async () => {
  const { page, errors } = await openHero('/?trace=conversation_trace.jsonl&routing=prefix_aware');
  const v = await page.evaluate(() => {
    const el = document.querySelector('[data-testid=hero-ttft] .value');
    return { text: el.textContent, parts: [...el.querySelectorAll('span')].map((s) => ({ text: s.textContent, lines: s.getClientRects().length })) };
  });
  // The CLI (--des-instances 4 --des-routing prefix_aware): p50 1,183.87 s, p99 2,128.67 s.
  assert.equal(v.text, '19.7 min · 35.5 min');
  assert.deepEqual(v.parts, [{ text: '19.7 min', lines: 1 }, { text: '35.5 min', lines: 1 }]);
  assert.deepEqual(errors, []);
});

/** The "Try:" row's first button and the hero, in page pixels; the window's height. */
const tryPlace = (page) => page.evaluate(() => {
  const b = document.querySelector('#scenarios button').getBoundingClientRect();
  return { top: b.top + window.scrollY, scrollY: window.scrollY, heroTop: document.querySelector('#hero').getBoundingClientRect().top, vh: window.innerHeight };
});

test('the scenarios stay put as each one runs, and after a click the figure and the scenarios share the screen', async () => {
  for (const [width, height] of [[1280, 900], [1024, 768]]) {
    const { page, errors, context } = await openHero('/', { width, height });
    try {
      const ids = await page.$$eval('#scenarios button', (bs) => bs.map((b) => b.dataset.testid));
      assert.ok(ids.length >= 6, `${ids.length} scenarios`);
      const tops = [];
      for (const id of ids) {
        const before = await page.evaluate(() => window.kvfleet.runCount);
        await page.locator(`[data-testid=${id}]`).scrollIntoViewIfNeeded();
        await page.click(`[data-testid=${id}]`);
        await page.waitForFunction((n) => window.kvfleet.runCount > n, before, { timeout: PAGE_TIMEOUT });
        await heroSettled(page);
        const p = await tryPlace(page);
        tops.push([id, Math.round(p.top)]);
        // The click brought the hero's top into view (scrolled there if it was above); at 1280x900 the
        // scenarios' first row starts on one screen with it (all of it shows after a one-line lead),
        // so the next scenario is in sight. Below the hero, as they were, they started 840 to 1,100 px
        // under its top.
        assert.ok(p.heroTop >= -2 && p.heroTop < p.vh / 2, `${width}: ${id}: the hero's top at ${p.heroTop}`);
        const rowTop = p.top - p.scrollY - p.heroTop;
        if (width === 1280) assert.ok(rowTop < p.vh, `${id}: the scenarios' first row starts ${Math.round(rowTop)} px under the hero's top (${p.vh})`);
      }
      // Their place follows the figure and its caption, not the side column's sentences and warnings
      // (which differ by up to 270 px between these scenarios): a line of caption at most.
      const ys = tops.map(([, y]) => y);
      assert.ok(Math.max(...ys) - Math.min(...ys) <= 48, `${width}: the scenarios' top moved: ${JSON.stringify(tops)}`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
});

test('on load the curves span the whole axis: every swept count from 1 to 256, the shaded "not run yet" band gone once done', async () => {
  const { page, errors } = await openHero('/');
  // The counts, written out here: 1 to 8 one by one, 10 to 16 by twos, then x1.5 and x4/3 in turn to 256.
  const want = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 24, 32, 48, 64, 96, 128, 192, 256];
  const swept = await page.evaluate(() => Object.fromEntries(Object.entries(window.kvfleet.hero.sweeps).map(([p, v]) => [p, v.map((q) => q.instances)])));
  assert.deepEqual(swept, { round_robin: want, prefix_aware: want });
  const look = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    const rr = c.data.datasets.find((d) => d.label === 'round_robin');
    return { from: c.options.plugins.unswept.from, max: c.scales.x.max, last: rr.data.at(-1), band: c.unsweptBox ?? null };
  });
  assert.equal(look.max, 256);
  assert.equal(look.from, 256, 'nothing is left unswept');
  assert.equal(look.band, null, 'no "not run yet" words');
  // The model caps round robin's misses at the 200 requests from 25 replicas on (8 prefixes x 25 = 200),
  // so its line is at 0% there; the measured curve stays above it, and is near 0% only at 256.
  assert.equal(look.last.x, 256);
  assert.ok(look.last.y < 0.02, `round robin ends near 0% at 256 replicas: ${look.last.y}`);
  // The trend sentence covers the whole span.
  const detail = await page.textContent('[data-testid="takeaway-detail"]');
  assert.match(detail, /From 1 to 256 replicas, round robin falls from 48% to 0%; prefix_aware stays near 48%\./);
  assert.deepEqual(errors, []);
});

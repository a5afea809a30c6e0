// tests/e2e/first-screen.test.mjs: the card's promise on the first screen, in real Chromium. At
// 1440x900, 1280x800 and 390x844 the first viewport (no scrolling) holds the sliders for prefixes,
// replicas and cache size per replica, the routing choice, the hit-rate figure and a per-replica chart
// with the run's data; moving the prefixes and the cache sliders changes that chart, whose numbers
// are the native CLI's for the same settings; the cache slider's last stop is "unbounded" (no
// checkbox, in the hero and the panel), and links with kv_blocks=unbounded or a number still load;
// the hero's and the panel's sliders for one setting step through the same values; a lesson figure's
// "this run" ring lies whole inside its plot. Screenshots: first-screen-<width>.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, settledUrl, nativeBin, ROOT } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const VIEWPORTS = [{ width: 1440, height: 900 }, { width: 1280, height: 800 }, { width: 390, height: 844 }];
const REPS = '[data-testid=chart-hero-reps]';

/** Opens `url` and waits for the first run, the hero's sweep and the last draw. */
async function openHero(url, viewport = { width: 1280, height: 800 }) {
  const opened = await site.open(url, { viewport });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
    null, { timeout: 60000 });
  await frames(opened.page);
  return opened;
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** The per-replica chart's data, read from Chart.js: labels, requests and hit rates (%). */
const repsData = (page) => page.evaluate((sel) => {
  const c = window.Chart.getChart(document.querySelector(sel));
  const find = (label) => c.data.datasets.find((d) => d.label === label)?.data ?? null;
  return { labels: c.data.labels, requests: find('Requests routed'), hit: find('Token hit rate') };
}, REPS);

/** The native CLI's JSON report for a config, built from the simulator's own flags (params_json). */
function nativeReport(config, params) {
  const args = [];
  for (const p of params) {
    const v = config[p.name];
    if (v === null || v === undefined) continue;
    args.push(p.flag, String(v));
  }
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-')), 'report.json');
  args.push('--des-report-json', out);
  execFileSync(nativeBin(), args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** The chart against a report: one bar per replica with its requests, one diamond with its hit rate. */
function assertMatches(data, report, what) {
  const per = report.per_instance;
  assert.deepEqual(data.labels, per.map((r) => `R${r.index}`), `${what}: one bar per replica`);
  assert.deepEqual(data.requests, per.map((r) => r.requests), `${what}: requests per replica`);
  assert.equal(data.hit.length, per.length);
  data.hit.forEach((h, i) => {
    if (!per[i].requests) assert.equal(h, null, `${what}: R${i} served nothing: no hit rate drawn`);
    else assert.ok(Math.abs(h - 100 * per[i].hit_rate_tokens) < 1e-9, `${what}: R${i}'s hit rate ${h} against ${100 * per[i].hit_rate_tokens}`);
  });
}

/** Presses `key` on a slider `times` times, waiting for each press's value to reach the config. */
async function press(page, sel, key, times = 1) {
  await page.focus(sel);
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

/** Waits for a run of `config`'s settings (each key equal) and its per-replica chart. */
async function runOf(page, want) {
  await page.waitForFunction((w) => {
    const r = window.kvfleet.lastReport;
    return r && Object.entries(w).every(([k, v]) => (r.config[k] ?? null) === v) && window.kvfleet.config
      && Object.entries(w).every(([k, v]) => (window.kvfleet.config[k] ?? null) === v);
  }, want, { timeout: 30000 });
  await frames(page);
}

for (const vp of VIEWPORTS) {
  test(`at ${vp.width}x${vp.height} the first viewport holds the four controls, the hit-rate figure and the per-replica chart`, async () => {
    const { page, errors, context } = await openHero('/', vp);
    try {
      // (A page without the chart fails below, on its box, not here on a timeout.)
      await page.waitForFunction((sel) => !document.querySelector(sel) || (window.Chart.getChart(document.querySelector(sel))?.data.datasets[0].data.length ?? 0) > 0, REPS, { timeout: 30000 });
      await frames(page);
      const boxes = await page.evaluate(() => {
        const box = (sel) => {
          const e = document.querySelector(sel);
          if (!e) return null;
          const r = e.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, w: r.width, h: r.height, shown: e.checkVisibility() };
        };
        return {
          scrollY, vw: innerWidth, vh: innerHeight,
          items: {
            prefixes: box('[data-testid=hero-input-num_prefixes]'),
            replicas: box('[data-testid=hero-input-instances]'),
            cache: box('[data-testid=hero-input-kv_blocks]'),
            routing: box('[data-testid=hero-field-routing]'),
            'hit-rate figure': box('[data-testid=chart-hero]'),
            'per-replica chart': box('[data-testid=chart-hero-reps]'),
          },
        };
      });
      assert.equal(boxes.scrollY, 0, 'no scrolling');
      for (const [name, b] of Object.entries(boxes.items)) {
        assert.ok(b, `${name} is on the page`);
        assert.ok(b.shown && b.w > 0 && b.h > 0, `${name} is shown`);
        assert.ok(b.top >= 0 && b.left >= 0 && b.bottom <= boxes.vh && b.right <= boxes.vw,
          `${name} lies inside the ${boxes.vw}x${boxes.vh} viewport: ${JSON.stringify(b)}`);
      }
      // The routing choice is a live control there: buttons, or the phone's drop-down.
      const routing = await page.evaluate(() => [...document.querySelectorAll('[data-testid=hero-field-routing] input, [data-testid=hero-field-routing] select')]
        .filter((e) => e.checkVisibility()).length);
      assert.ok(routing > 0, 'a routing control is shown');
      // The chart has the run's data: one bar per replica, the requests adding up to the run's.
      const data = await repsData(page);
      const report = await page.evaluate(() => window.kvfleet.lastReport);
      assert.equal(data.requests.length, report.config.instances);
      assert.equal(data.requests.reduce((a, b) => a + b, 0), report.summary.requests);
      await screenshot(page, `first-screen-${vp.width}`, { fullPage: false });
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

test('the prefixes and cache sliders change the per-replica chart, whose numbers are the CLI\'s for the same settings', async () => {
  const { page, errors, context } = await openHero('/?routing=prefix_aware');
  try {
    const params = await page.evaluate(() => window.kvfleet.params);
    await runOf(page, { routing: 'prefix_aware', num_prefixes: 8, kv_blocks: null });
    const first = await repsData(page);
    assertMatches(first, nativeReport(await page.evaluate(() => window.kvfleet.lastReport.config), params), 'on load');
    // Prefixes 8 -> 5: three presses of the slider's left key.
    await press(page, '[data-testid=hero-input-num_prefixes]', 'ArrowLeft', 3);
    await runOf(page, { num_prefixes: 5 });
    const fewer = await repsData(page);
    assert.notDeepEqual(fewer, first, 'the chart moved with the prefixes');
    assertMatches(fewer, nativeReport(await page.evaluate(() => window.kvfleet.lastReport.config), params), '5 prefixes');
    // The cache from unbounded (the last stop) down to 16 blocks per replica: the stops start at
    // the smallest cache a 4,096 + 256-token request fits in, 9 blocks of 512, then run 10 11 ...
    // 16, so 16 is seven presses up from the first.
    await press(page, '[data-testid=hero-input-kv_blocks]', 'Home');
    await press(page, '[data-testid=hero-input-kv_blocks]', 'ArrowRight', 7);
    await runOf(page, { num_prefixes: 5, kv_blocks: 16 });
    const small = await repsData(page);
    assert.notDeepEqual(small.hit, fewer.hit, 'the hit rates moved with the cache');
    const report = nativeReport(await page.evaluate(() => window.kvfleet.lastReport.config), params);
    assert.ok(report.summary.evictions > 0, 'a 16-block cache evicts');
    assertMatches(small, report, '16 blocks');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a hot prefix under prefix_aware: the per-replica chart\'s tall bar is the replica its line names hot', async () => {
  const { page, errors, context } = await openHero('/?routing=prefix_aware&prefix_popularity=hot:0.85', { width: 390, height: 844 });
  try {
    await runOf(page, { routing: 'prefix_aware', prefix_popularity: 'hot:0.85' });
    const data = await repsData(page);
    const total = data.requests.reduce((a, b) => a + b, 0);
    const top = data.requests.indexOf(Math.max(...data.requests));
    const share = data.requests[top] / total;
    assert.ok(share > 0.5, `one replica takes most requests: ${data.requests}`);
    assert.equal(await page.textContent('[data-testid=hero-reps-head]'),
      `This run: R${top} is hot, ${Math.round(100 * share)}% of requests (even ${Math.round(100 / data.requests.length)}%)`);
    // Its bar lies on the first screen, with its hit rate.
    assert.ok(Number.isFinite(data.hit[top]));
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the cache slider\'s last stop is unbounded, with no checkbox in the hero or the panel; links with either value load', async () => {
  const { page, errors, context } = await openHero('/');
  try {
    await page.waitForFunction(() => window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    for (const pre of ['hero-', '']) {
      const sel = `[data-testid=${pre}input-kv_blocks]`;
      assert.equal(await page.locator(`[data-testid=${pre}input-kv_blocks-unbounded]`).count(), 0, `${pre || 'panel '}: no checkbox`);
      assert.equal(await page.locator(`[data-testid=${pre}field-kv_blocks] input[type=checkbox]`).count(), 0, `${pre || 'panel '}: no checkbox in the field`);
      const s = await page.evaluate((q) => { const e = document.querySelector(q); return { v: e.value, max: e.max, disabled: e.disabled, text: e.getAttribute('aria-valuetext') }; }, sel);
      assert.equal(s.v, s.max, `${pre || 'panel '}: the unbounded default sits at the last stop`);
      assert.equal(s.disabled, false, `${pre || 'panel '}: the slider is live`);
      assert.equal(s.text, 'unbounded');
    }
    // One step down from the end is a bounded cache, and End goes back to unbounded, in the URL too.
    await press(page, '[data-testid=hero-input-kv_blocks]', 'ArrowLeft');
    await runOf(page, { kv_blocks: 65536 });
    assert.equal(new URL(await settledUrl(page)).searchParams.get('kv_blocks'), '65536');
    await press(page, '[data-testid=input-kv_blocks]', 'End');
    await runOf(page, { kv_blocks: null });
    // Unbounded is the page's default: a short link leaves it out (a link that names it still loads, below).
    assert.equal(new URL(await settledUrl(page)).searchParams.get('kv_blocks'), null);
    assert.equal(await page.getAttribute('[data-testid=hero-input-kv_blocks]', 'aria-valuetext'), 'unbounded', 'the hero followed the panel');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
  for (const [q, want, text] of [['kv_blocks=unbounded', null, 'unbounded'], ['kv_blocks=100', 100, '100 blocks']]) {
    const { page, errors, context: c2 } = await openHero(`/?${q}`);
    try {
      await runOf(page, { kv_blocks: want });
      assert.equal(await page.textContent('[data-testid=hero-readout-kv_blocks]'), text, q);
      assert.equal(await page.getAttribute('[data-testid=hero-input-kv_blocks]', 'aria-valuetext'), text, q);
      assert.deepEqual(errors, []);
    } finally { await c2.close(); }
  }
});

/** The values a slider takes on `n` presses of its right key, from where it is, read from the config. */
async function steps(page, sel, name, n) {
  const out = [];
  await page.focus(sel);
  for (let i = 0; i < n; i++) {
    const before = await page.evaluate((k) => window.kvfleet.config[k], name);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(([k, b]) => window.kvfleet.config[k] !== b, [name, before], { timeout: 10000 });
    out.push(await page.evaluate((k) => window.kvfleet.config[k], name));
  }
  return out;
}

test('the hero\'s and the panel\'s sliders for one setting step through the same values', async () => {
  for (const [name, n] of [['instances', 6], ['num_prefixes', 12], ['kv_blocks', 6]]) {
    const seqs = [];
    const start = name === 'kv_blocks' ? '/?kv_blocks=16' : '/';
    for (const pre of ['hero-', '']) {
      const { page, errors, context } = await openHero(start);
      try {
        await page.waitForFunction(() => window.kvfleet.panelsBuilt, null, { timeout: 30000 });
        seqs.push(await steps(page, `[data-testid=${pre}input-${name}]`, name, n));
        assert.deepEqual(errors, []);
      } finally { await context.close(); }
    }
    assert.deepEqual(seqs[1], seqs[0], `${name}: the panel's slider steps as the hero's`);
    // The replica counts step along the figure's log axis (two stops a doubling); the cache past 16
    // through round values (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 a decade) and the powers of two.
    if (name === 'instances') assert.deepEqual(seqs[0], [6, 8, 12, 16, 24, 32]);
    if (name === 'kv_blocks') assert.deepEqual(seqs[0], [20, 25, 30, 32, 40, 50]);
  }
});

test('a lesson figure\'s "this run" ring lies whole inside its plot (the hot-prefix lesson, run at the top of its axis)', async () => {
  const { page, errors, context } = await site.open('/?lesson=hot-prefix', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('[data-testid=lesson-diagram] canvas', { timeout: 90000 });
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=lesson-diagram] canvas')]
      .some((c) => window.Chart.getChart(c)?.data.datasets.some((d) => d.label === 'this run')), null, { timeout: 60000 });
    await frames(page);
    const rings = await page.evaluate(() => [...document.querySelectorAll('[data-testid=lesson-diagram] canvas')].map((c) => {
      const ch = window.Chart.getChart(c);
      const i = ch.data.datasets.findIndex((d) => d.label === 'this run');
      if (i < 0) return null;
      const el = ch.getDatasetMeta(i).data[0];
      const ys = ch.data.datasets.filter((d) => !d.run && !d.goal).flatMap((d) => d.data.map((p) => p.y));
      return { x: el.x, y: el.y, r: el.options.radius + el.options.borderWidth / 2, area: ch.chartArea, w: ch.width,
        top: Math.max(...ys), value: ch.data.datasets[i].data[0].y, clip: ch.data.datasets[i].clip };
    }).filter(Boolean));
    assert.ok(rings.length > 0, 'the figure rings the run');
    // The lesson's broken setup is the figure's highest point: the case a plain axis clips.
    assert.ok(rings.some((g) => g.value === g.top), 'a ring at the top of the data');
    for (const g of rings) {
      assert.ok(g.y - g.r >= g.area.top && g.y + g.r <= g.area.bottom, `the ring lies between the plot's top and bottom: ${JSON.stringify(g)}`);
      assert.ok(g.x - g.r >= 0 && g.x + g.r <= g.w, `the ring lies inside the canvas: ${JSON.stringify(g)}`);
      assert.equal(g.clip, false, 'the ring is not clipped at the plot\'s sides (a run at the first or last value)');
    }
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

// tests/e2e/page.test.mjs: the playground page in real Chromium: loads clean, keyboard slider changes
// charts and numbers (equal to the native CLI's), policy switch, URL round-trip and bad values, a
// broken trace upload, compare, a "none" checkbox greying its slider, the mixed fleet's example and help, embed layout; screenshots of each state; the input->redraw figure
// (printed, never asserted; the cold load is cold-load.test.mjs's).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, ROOT, settledUrl, nativeBin } from './harness.mjs';

let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});

after(async () => {
  await site?.close();
});

// ------------------------------------------------------------------ helpers

/**
 * Opens PATH (e.g. '/?embed=1') in a fresh context; waits for the first rendered run unless told not to.
 * heroSweep: false holds the first screen's sweep (harness.mjs), for a test that never looks at it.
 */
async function openPage(where, { width = 1280, height = 900, colorScheme = 'light', waitForRun = true, heroSweep = true } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height }, colorScheme, heroSweep });
  if (waitForRun) await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

// The tests that never look at the first screen's figure or its sentences leave its sweep held.
const NO_HERO = { heroSweep: false };

const shot = (page, name, { fullPage = true } = {}) => screenshot(page, name, { fullPage });

const summaryOf = (page) => page.evaluate(() => window.kvfleet.lastReport.summary);
const runCount = (page) => page.evaluate(() => window.kvfleet.runCount);

async function waitForRun(page, after) {
  await page.waitForFunction((n) => window.kvfleet.runCount > n, after, { timeout: 20000 });
}

/** Data of a chart's first dataset, read from Chart.js itself. */
const chartData = (page, testid, dataset = 0) => page.evaluate(([id, ds]) => {
  const c = window.Chart.getChart(document.querySelector(`[data-testid="${id}"]`));
  return { labels: c.data.labels, data: c.data.datasets[ds]?.data, n: c.data.datasets.length };
}, [testid, dataset]);

/** The native CLI's JSON report for a config, built from the same parameter specs (flags). */
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

// ------------------------------------------------------------------ tests

test('the page loads with no console errors and shows the wasm version and a first run', async () => {
  // ?routing=kv: the seed's example exactly (a bare link opens on round robin, tested in explainer.test.mjs).
  const { page, errors, close } = await openPage('/?routing=kv');
  try {
    const version = await page.textContent('#version');
    assert.match(version, /^\d+\.\d+\.\d+/);
    const golden = JSON.parse(readFileSync(path.join(ROOT, 'tests/golden/seed_example.json'), 'utf8'));
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    assert.deepEqual(report.summary, golden.summary, 'default run equals the checked-in golden report');
    assert.deepEqual(report.fleet_lines, golden.fleet_lines);
    assert.equal(await page.textContent('[data-testid="fleet-lines"]'), golden.fleet_lines.join('\n'));
    assert.match(await page.textContent('[data-testid="fig-hit-rate"]'), /42\.5%/, 'the headline is the token hit rate');
    assert.match(await page.textContent('[data-testid="fig-any-hit"]'), /85\.0%/, 'requests with any cached block, secondary');
    assert.equal(await page.isVisible('[data-testid="boot"]'), false);
    await shot(page, 'page-default-1280-light');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('replicas slider by keyboard: charts and numbers change and equal the native CLI', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const before = await summaryOf(page);
    const hitBefore = await chartData(page, 'chart-hit');
    assert.equal(hitBefore.labels.length, 4);
    const n = await runCount(page);
    await page.focus('[data-testid="input-instances"]');
    await page.keyboard.press('ArrowRight');
    await waitForRun(page, n);
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    // The replica sliders step two stops a doubling (4 -> 6), as the hero's do.
    assert.equal(report.config.instances, 6);
    assert.equal(await page.textContent('[data-testid="readout-instances"]'), '6 replicas');
    const hitAfter = await chartData(page, 'chart-hit');
    assert.equal(hitAfter.labels.length, 6, 'hit-rate chart has one bar per replica');
    assert.equal((await chartData(page, 'chart-load')).data.length, 6);
    assert.equal((await chartData(page, 'chart-queue')).n, 6, 'one queue line per replica');
    assert.notDeepEqual(report.summary, before);
    const params = await page.evaluate(() => window.kvfleet.params);
    const native = nativeReport(report.config, params);
    assert.deepEqual(report.summary, native.summary, 'wasm summary equals native CLI summary');
    assert.deepEqual(report.per_instance, native.per_instance);
    assert.deepEqual(report.fleet_lines, native.fleet_lines);
    assert.match(await page.textContent('[data-testid="fig-hit-rate"]'), new RegExp(`${(native.summary.hit_rate_tokens * 100).toFixed(1)}%`));
    await shot(page, 'page-replicas-6');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('switching the routing policy changes the per-replica chart', async () => {
  const { page, errors, close } = await openPage('/?routing=kv', { colorScheme: 'dark' });
  try {
    const kv = await chartData(page, 'chart-hit');
    const n = await runCount(page);
    await page.click('label[for="in-routing-round_robin"]');
    await waitForRun(page, n);
    const rr = await chartData(page, 'chart-hit');
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.routing), 'round_robin');
    assert.notDeepEqual(rr.data, kv.data, 'per-replica hit rates differ between kv and round_robin');
    assert.equal(await page.isVisible('[data-testid="field-overlap_weight"]'), false, 'overlap weight only shown for kv');
    // Round robin is the page's default routing: the link leaves it out (links.test.mjs).
    assert.equal(new URL(await settledUrl(page)).searchParams.has('routing'), false);
    await shot(page, 'page-round-robin-dark');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a URL round-trip reproduces the run', async () => {
  const first = await openPage('/', NO_HERO);
  let url, summary;
  try {
    const { page } = first;
    let n = await runCount(page);
    await page.click('label[for="in-routing-prefix_aware"]');
    await waitForRun(page, n);
    n = await runCount(page);
    await page.click('[data-testid="reroll"]');
    await waitForRun(page, n);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === String(window.kvfleet.lastReport.seed));
    const settled = new URL(await settledUrl(page));
    url = settled.pathname + settled.search;
    summary = await summaryOf(page);
    assert.deepEqual(first.errors, []);
  } finally { await first.close(); }
  const second = await openPage(url, NO_HERO);
  try {
    assert.deepEqual(await summaryOf(second.page), summary, 'same link, same numbers');
    assert.equal(await second.page.evaluate(() => window.kvfleet.lastReport.config.routing), 'prefix_aware');
    assert.equal(await second.page.isVisible('[data-testid="url-notes"]'), false);
    assert.deepEqual(second.errors, []);
  } finally { await second.close(); }
});

test('a bad URL value falls back to its default with a visible note', async () => {
  const url = `/?instances=abc&routing=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&prefix_popularity=hot%3A7&num_prefixes=12`;
  const { page, errors, close } = await openPage(url, NO_HERO);
  try {
    const cfg = await page.evaluate(() => window.kvfleet.lastReport.config);
    assert.equal(cfg.instances, 4);
    assert.equal(cfg.routing, 'round_robin', 'the page\'s default routing');
    assert.equal(cfg.prefix_popularity, 'uniform', 'a value the simulator rejects also falls back');
    assert.equal(cfg.num_prefixes, 12, 'good values are kept');
    const notes = await page.textContent('[data-testid="url-notes"]');
    assert.match(notes, /Replicas \(instances\)/);
    assert.match(notes, /Routing policy \(routing\)/);
    assert.match(notes, /prefix_popularity/);
    assert.equal(await page.locator('[data-testid="url-notes"] img').count(), 0, 'URL values are never HTML');
    await shot(page, 'page-bad-url');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('uploading a trace with a broken line shows its line number and keeps the last result', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    const before = await summaryOf(page);
    const text = [
      '{"timestamp": 0, "input_length": 1200, "output_length": 20, "hash_ids": [1, 2, 3]}',
      '{"timestamp": 5, "input_length": 1200, "output_length": 20, "hash_ids": [1, 2, 4]}',
      '{"timestamp": 9, "input_length": 1200, "output_length": 20, "hash_ids": [1, 2,',
      '{"timestamp": 12, "input_length": 1200, "output_length": 20, "hash_ids": [1, 5, 6]}',
    ].join('\n');
    await page.setInputFiles('[data-testid="trace-file"]', { name: 'broken.jsonl', mimeType: 'application/json', buffer: Buffer.from(text) });
    await page.waitForSelector('[data-testid="trace-error"]:not([hidden])');
    assert.match(await page.textContent('[data-testid="trace-error"]'), /broken\.jsonl:3:/);
    assert.deepEqual(await summaryOf(page), before, 'the last good result stays on screen');
    assert.match(await page.textContent('#source-name'), /synthetic/);
    await page.locator('[data-testid="traces"]').scrollIntoViewIfNeeded();
    await shot(page, 'page-broken-trace', { fullPage: false });

    // A good file then replays.
    const good = text.split('\n').filter((_, i) => i !== 2).join('\n');
    const n = await runCount(page);
    await page.setInputFiles('[data-testid="trace-file"]', { name: 'good.jsonl', mimeType: 'application/json', buffer: Buffer.from(good) });
    await waitForRun(page, n);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.summary.requests), 3);
    assert.equal(await page.isVisible('[data-testid="trace-error"]'), false);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('compare runs every policy and shows a table, bars and a replica sweep', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    const choices = await page.evaluate(() => window.kvfleet.params.find((p) => p.name === 'routing').choices);
    await page.click('[data-testid="compare-run"]');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="compare-table"] tbody tr').length === n
      && !document.querySelector('[data-testid="compare-run"]').disabled, choices.length, { timeout: 30000 });
    const policies = await page.$$eval('[data-testid="compare-table"] tbody tr', (rows) => rows.map((r) => r.dataset.policy));
    assert.deepEqual(policies.sort(), [...choices].sort());
    assert.ok(policies.length >= 4);
    const sweep = await chartData(page, 'compare-sweep');
    assert.equal(sweep.n, choices.length, 'one hit-rate-vs-replicas line per policy');
    assert.deepEqual(sweep.labels, ['1', '2', '4', '8', '16', '32']);
    const kvRow = await page.textContent('[data-testid="compare-table"] tr[data-policy="kv"]');
    assert.match(kvRow, /85\.0%/, 'the kv row matches the main run');
    await page.locator('[data-testid="compare"]').scrollIntoViewIfNeeded();
    await shot(page, 'page-compare', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a "none" checkbox greys its slider and the readout says none; the mixed fleet shows an example and its help in the flow', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    await page.evaluate(() => document.querySelectorAll('#controls details').forEach((d) => { d.open = true; }));
    // Every optional setting with a checkbox, checked and cleared: checked, the slider is off and faded
    // and the readout is the checkbox's word; cleared, the slider is on and at full strength.
    const boxes = await page.$$eval('input[type=checkbox][data-testid$="-unbounded"]', (bs) => bs
      .filter((b) => !b.dataset.testid.startsWith('hero-') && b.closest('.field') && !b.closest('[hidden]'))
      .map((b) => b.dataset.testid.replace(/^input-|-unbounded$/g, '')));
    assert.ok(boxes.includes('cpu_kv_blocks') && boxes.includes('shared_kv_blocks'), boxes.join(' '));
    const look = (name) => page.evaluate((n) => {
      const field = document.querySelector(`[data-testid=field-${n}]`);
      const range = field.querySelector('input[type=range]');
      return { box: document.querySelector(`[data-testid=input-${n}-unbounded]`).checked, disabled: range.disabled,
        opacity: Number(getComputedStyle(range).opacity), readout: field.querySelector('output').textContent };
    }, name);
    for (const name of boxes) {
      const box = `[data-testid=input-${name}-unbounded]`;
      if (!(await look(name)).box) await page.click(box);
      const on = await look(name);
      assert.equal(on.disabled, true, `${name}: the slider is off while its checkbox is on`);
      assert.ok(on.opacity <= 0.5, `${name}: the slider is greyed (opacity ${on.opacity})`);
      assert.match(on.readout, /^[a-z]/, `${name}: the readout says what no value means (${on.readout}), not a number`);
      await page.click(box);
      const off = await look(name);
      assert.equal(off.disabled, false, `${name}: cleared, the slider is on`);
      assert.equal(off.opacity, 1, `${name}: cleared, at full strength`);
      assert.notEqual(off.readout, on.readout, `${name}: cleared, the readout is the slider's value`);
    }

    // The mixed fleet: an example as the placeholder; typing in it, its help is a line in the flow
    // that covers nothing (the routing buttons below stay where a click lands).
    const fleet = '[data-testid=input-fleet]';
    assert.match(await page.getAttribute(fleet, 'placeholder'), /^\d+:llama3-8b-[a-z0-9]+(,\d+:llama3-8b-[a-z0-9]+)+$/);
    await page.focus(fleet);
    const boxesAt = await page.evaluate(() => {
      const r = (el) => { const b = el.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, left: b.left, right: b.right, h: b.height }; };
      const help = document.getElementById('help-fleet');
      return { help: r(help), pos: getComputedStyle(help).position, routing: r(document.querySelector('[data-testid=field-routing]')) };
    });
    assert.ok(boxesAt.help.h > 0, 'the help shows');
    assert.notEqual(boxesAt.pos, 'absolute', 'the help is in the flow, not laid over what follows');
    assert.ok(boxesAt.help.bottom <= boxesAt.routing.top, 'the help ends above the routing buttons');
    await shot(page, 'polish-settings', { fullPage: false });
  } finally {
    await close();
  }
  assert.deepEqual(errors, []);
});

test('the hot-prefix scenario shows a plain-words hot-spot warning', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const n = await runCount(page);
    await page.click('[data-testid="scenario-hot"]');
    await waitForRun(page, n);
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    assert.equal(r.config.routing, 'prefix_aware');
    assert.equal(r.summary.hot_spot, true, 'the scenario is a hot spot');
    const busiest = r.per_instance.reduce((b, x) => (x.requests > b.requests ? x : b));
    assert.equal(await page.isVisible('[data-testid="hotspot"]'), true);
    const text = await page.textContent('[data-testid="finding-load_uneven"]');
    assert.match(text, new RegExp(`Uneven load: replica R${busiest.index} received ${Math.round(100 * busiest.requests / r.summary.requests)}% of requests`));
    assert.equal(await page.isVisible('[data-testid="hero-finding-load_uneven"]'), true, 'and beside the hero figure');
    await shot(page, 'page-hot-prefix');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the full page has no horizontal scroll at 360 px', async () => {
  const small = await openPage('/', { width: 360, height: 780, colorScheme: 'dark' });
  try {
    const overflow = await small.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scroll at 360 px (overflow ${overflow}px)`);
    await shot(small.page, 'page-360-dark');
    assert.deepEqual(small.errors, []);
  } finally { await small.close(); }
});

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };

test('input to redrawn charts, default scenario (median of 10)', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    await page.focus('[data-testid="input-instances"]');
    const times = [];
    const parts = {};
    let instances = await page.evaluate(() => window.kvfleet.lastReport.config.instances);
    for (let i = 0; i < 10; i++) {
      await page.evaluate(() => {
        window.__t0 = 0;
        document.addEventListener('input', () => { window.__t0 = performance.now(); }, { capture: true, once: true });
      });
      const n = await runCount(page);
      const key = i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft';
      instances += key === 'ArrowRight' ? 2 : -2; // 4 <-> 6, the slider's next stop
      await page.keyboard.press(key);
      await waitForRun(page, n);
      const { t, t0, shown, split } = await page.evaluate(() => ({ t: window.kvfleet.lastRenderAt - window.__t0, t0: window.__t0,
        shown: window.kvfleet.lastReport.config.instances, split: window.kvfleet.lastTimes }));
      assert.ok(t0 > 0, 'the input event was seen');
      assert.equal(shown, instances, 'the redraw is of the new setting');
      times.push(t);
      for (const [k, v] of Object.entries(split)) (parts[k] ||= []).push(v);
    }
    console.log(`# input -> redrawn charts (default scenario): median ${median(times).toFixed(1)} ms; all: ${times.map((t) => t.toFixed(1)).join(', ')}`);
    // Of which (medians): the controls' refresh before the run is sent, sending to the result's
    // arrival (of it, the worker's own time), reading the report, drawing it.
    console.log(`#   parts (medians): ${Object.keys(parts).map((k) => `${k} ${median(parts[k]).toFixed(1)}`).join(', ')} ms`);
    // Figures to read, not bounds (no test asserts a timing): only that each step redrew its run.
    assert.equal((await chartData(page, 'chart-hit')).data.length, instances, 'the per-replica chart holds the last setting');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a slider step draws the charts in view with its run, the others once the page is still, and rewrites the numbers in place', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    await page.focus('[data-testid="input-instances"]'); // scrolls to the dashboard: some charts in view, the hero's not
    await page.waitForFunction(() => window.kvfleet.heroDone > 0, null, { timeout: 60000 });
    // Start from a still page: no chart off the screen still waiting for its quiet-time draw.
    await page.waitForFunction(() => window.kvfleet.lazyPending() === 0, null, { timeout: 10000 });
    const ids = ['chart-hero', 'chart-hero-share', 'chart-hero-ttft', 'chart-hero-reps', 'chart-hit', 'chart-load', 'chart-latency', 'chart-queue', 'chart-cache'];
    const n = await runCount(page);
    const seen = await page.evaluate((ids) => {
      window.__draws = {};
      for (const id of ids) {
        const c = window.Chart.getChart(document.querySelector(`[data-testid="${id}"]`));
        const draw = c.draw.bind(c);
        c.draw = () => { window.__draws[id] = (window.__draws[id] || 0) + 1; return draw(); };
      }
      document.querySelector('[data-testid="fig-hit-rate"] .value').__old = true;
      // Which canvases a reader sees, from their boxes (the page decides with an IntersectionObserver).
      const inView = Object.fromEntries(ids.map((id) => {
        const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
        return [id, r.bottom > 0 && r.top < innerHeight];
      }));
      document.addEventListener('keydown', () => { window.__t0 = performance.now(); }, { once: true, capture: true });
      document.addEventListener('kvfleet:rendered', () => { window.__atRender = { ...window.__draws }; window.__renderMs = performance.now() - window.__t0; }, { once: true });
      return inView;
    }, ids);
    assert.ok(Object.values(seen).some((v) => v) && Object.values(seen).some((v) => !v), `some charts in view, some not: ${JSON.stringify(seen)}`);
    // The page learns what scrolled out of view from its IntersectionObservers, a frame or more after
    // the scroll; a key pressed before that (1 run in 40 here, and once in CI) draws the hero as still
    // in view. Start once the page sees what a reader sees.
    await page.waitForFunction((seen) => Object.entries(seen).every(([id, v]) =>
      window.kvfleet.lazyInView(document.querySelector(`[data-testid="${id}"]`)) === v), seen, { timeout: 10000 });
    await page.evaluate(() => { window.__draws = {}; }); // (any draw while it waited is not the step's)
    await page.keyboard.press('ArrowRight');
    await waitForRun(page, n);
    const { atRender, renderMs } = await page.evaluate(() => ({ atRender: window.__atRender, renderMs: window.__renderMs }));
    for (const id of ids) {
      if (seen[id]) assert.ok(atRender[id] >= 1, `${id} (in view) was drawn with the run`);
      // The hero draws its figure alone when the run's result is 120 ms late (hero-panel.js
      // RESULT_WAIT_MS), out of view at the next quiet moment: on a loaded machine that can come
      // before the result, which is the page working as meant, not a chart drawn with the run.
      else if (!(id.startsWith('chart-hero') && renderMs > 120)) assert.equal(atRender[id] ?? 0, 0, `${id} (out of view) waits (the run took ${renderMs?.toFixed(0)} ms)`);
    }
    // Each chart holds the new run at once (the tests read it there), and the rest are drawn soon after.
    const replicas = await page.evaluate(() => window.kvfleet.lastReport.per_instance.length);
    assert.equal((await chartData(page, 'chart-hit')).data.length, replicas);
    assert.equal((await chartData(page, 'chart-cache')).n, replicas, 'the cache chart out of view holds the new run');
    await page.waitForFunction((ids) => ids.every((id) => window.__draws[id] > 0), ids, { timeout: 10000 });
    // The headline's figure is the same element, with the new run's number.
    const fig = await page.evaluate(() => {
      const v = document.querySelector('[data-testid="fig-hit-rate"] .value');
      return { reused: v.__old === true, text: v.textContent, rate: window.kvfleet.lastReport.summary.hit_rate_tokens };
    });
    assert.ok(fig.reused, 'the figure was rewritten in place');
    assert.equal(fig.text, `${(fig.rate * 100).toFixed(1)}%`);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a built-in trace replays in the worker; back to synthetic restores the pool', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    let n = await runCount(page);
    await page.click('[data-testid="trace-synthetic"]');
    await waitForRun(page, n);
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    assert.match(r.source, /synthetic_trace\.jsonl/);
    assert.equal(r.summary.requests, 3993);
    assert.match(await page.textContent('#source-name'), /trace: synthetic trace/);
    assert.equal(await page.isDisabled('[data-testid="input-request_rate"]'), true, 'workload sliders are off during a trace');
    // Hidden, not greyed-out synthetic defaults a reader took for the trace's; the picker says why.
    const fields = ['num_prefixes', 'prefix_len', 'prefix_popularity', 'request_rate'];
    const visible = async () => {
      await page.evaluate(() => document.querySelectorAll('#controls details.group').forEach((d) => { d.open = true; }));
      return Promise.all(fields.map((f) => page.isVisible(`[data-testid="input-${f}"]`)));
    };
    assert.deepEqual(await visible(), fields.map(() => false), 'the synthetic settings are hidden during a trace');
    assert.equal(await page.isVisible('[data-testid="input-workload"]'), true);
    assert.match(await page.textContent('[data-testid="trace-note"]'), /^The trace sets the prompts, their shared prefixes and the arrival times/);
    assert.equal(await page.isVisible('[data-testid="trace-note"]'), true);
    assert.match(await settledUrl(page), /trace=synthetic_trace\.jsonl/);
    await shot(page, 'page-trace-synthetic');
    n = await runCount(page);
    await page.click('#source-reset');
    await waitForRun(page, n);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.source), 'synthetic');
    assert.deepEqual(await visible(), fields.map(() => true), 'back to synthetic: the settings are back');
    assert.equal(await page.isVisible('[data-testid="trace-note"]'), false);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a long run shows progress and can be cancelled; the previous result and settings come back', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    const before = await summaryOf(page);
    await page.click('#group-traffic > summary');
    await page.focus('[data-testid="input-num_requests"]');
    // The slider's maximum (10^7 requests, unbounded caches) does not fit the page's memory: the
    // run is refused before it starts, with the estimate, and the result on screen stays.
    await page.keyboard.press('End');
    await page.waitForFunction(() => /memory/i.test(document.querySelector('[data-testid="error-num_requests"]')?.textContent || document.querySelector('[data-testid="run-error"]')?.textContent || ''), null, { timeout: 20000 });
    assert.deepEqual(await summaryOf(page), before, 'the last good result stays on screen');
    // 3 million requests fit: a long run, with progress and cancel.
    for (let i = 0; i < 20 && (await page.textContent('[data-testid="readout-num_requests"]')) !== '3M req'; i++) await page.keyboard.press('ArrowLeft');
    assert.equal(await page.textContent('[data-testid="readout-num_requests"]'), '3M req');
    await page.waitForSelector('[data-testid="progress"]', { state: 'visible', timeout: 10000 });
    await page.waitForFunction(() => document.querySelector('[data-testid="progress"]').value > 0, null, { timeout: 10000 });
    await shot(page, 'page-progress', { fullPage: false });
    await page.click('[data-testid="cancel"]');
    await page.waitForFunction(() => /Cancelled/.test(document.querySelector('[data-testid="status"]').textContent), null, { timeout: 10000 });
    assert.equal(await page.isVisible('[data-testid="progress"]'), false);
    assert.deepEqual(await summaryOf(page), before);
    assert.equal(await page.textContent('[data-testid="readout-num_requests"]'), '200 req');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('if WebAssembly cannot load, the page says why', async () => {
  const context = await site.browser.newContext({ viewport: { width: 1000, height: 700 } });
  try {
    await context.route('**/kvfleet_bg.wasm', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    await page.waitForSelector('.boot.failed', { timeout: 15000 });
    const text = await page.textContent('[data-testid="boot"]');
    assert.match(text, /could not start/);
    assert.match(text, /cargo xtask build|WebAssembly/);
    await shot(page, 'page-wasm-failed', { fullPage: false });
  } finally { await context.close(); }
});

test('a lesson: load the broken setup, reveal hints, apply a fix, see the goal met', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    const ids = await page.evaluate(() => window.kvfleet.lessons);
    assert.deepEqual(ids, ['reuse-at-all', 'cache-too-small', 'more-replicas-slower', 'hot-prefix', 'timeout-below-p99', 'retune-the-weight', 'won-on-an-infinite-cache', 'routers-that-herd', 'router-bottleneck', 'smallest-tree-pile-up', 'when-disaggregation-pays', 'spike-cold-replicas'], 'the build exports every lesson');
    let n = await runCount(page);
    await page.click('[data-testid="lesson-hot-prefix"]');
    await waitForRun(page, n);
    assert.match(await settledUrl(page), /lesson=hot-prefix/);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.routing), 'prefix_aware');
    assert.ok(await page.locator('[data-testid="lesson-checks"] li.unmet').count() > 0, 'the broken setup misses the goal');
    assert.equal(await page.isVisible('[data-testid="lesson-done"]'), false);
    for (let i = 0; i < 3; i++) await page.click('[data-testid="lesson-hint"]');
    await shot(page, 'page-lesson-broken');
    n = await runCount(page);
    await page.click('[data-testid="lesson-fix-kv-routing"]');
    await waitForRun(page, n);
    assert.equal(await page.locator('[data-testid="lesson-checks"] li.unmet').count(), 0, 'every check met after the fix');
    assert.equal(await page.isVisible('[data-testid="lesson-done"]'), true);
    await page.locator('[data-testid="lesson"]').scrollIntoViewIfNeeded();
    await shot(page, 'page-lesson-fixed', { fullPage: false });
    // The link keeps the lesson and the fixed settings.
    const url = new URL(await settledUrl(page));
    const again = await openPage(url.pathname + url.search, NO_HERO);
    try {
      assert.equal(await again.page.isVisible('[data-testid="lesson-done"]'), true);
      assert.deepEqual(again.errors, []);
    } finally { await again.close(); }
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a sweep runs the points in parallel workers and matches single runs; a bad spec says why', async () => {
  const { page, errors, close } = await openPage('/', NO_HERO);
  try {
    await page.selectOption('[data-testid="sweep-param"]', 'instances');
    await page.fill('[data-testid="sweep-spec"]', '1,2,4,8');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="sweep-table"] tbody tr').length === 4, null, { timeout: 30000 });
    const firstCells = await page.$$eval('[data-testid="sweep-table"] tbody tr th', (ths) => ths.map((t) => t.textContent));
    assert.deepEqual(firstCells, ['1', '2', '4', '8']);
    const sweepHit = (await chartData(page, 'sweep-chart')).data;
    // The point at 4 replicas is the default run, so it equals the main result.
    const main = await summaryOf(page);
    assert.equal(sweepHit[2], main.hit_rate_requests * 100);
    await page.locator('[data-testid="sweep"]').scrollIntoViewIfNeeded();
    await shot(page, 'page-sweep', { fullPage: false });
    await page.fill('[data-testid="sweep-spec"]', '0:3');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForSelector('[data-testid="sweep-error"]:not([hidden])');
    assert.match(await page.textContent('[data-testid="sweep-error"]'), /instances/);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('accessibility basics: every control is named and reachable by Tab; text contrast holds in both themes', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, errors, close } = await openPage('/', { colorScheme });
    try {
      const unnamed = await page.evaluate(() => [...document.querySelectorAll('input, select, button, textarea')]
        .filter((e) => !e.closest('[hidden]') && e.type !== 'hidden')
        .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby')
          && !(e.tagName === 'BUTTON' && e.textContent.trim()))
        .map((e) => e.outerHTML.slice(0, 80)));
      assert.deepEqual(unnamed, [], 'controls without an accessible name');
      // Tab from the top reaches the replicas slider.
      let reached = false;
      for (let i = 0; i < 40 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(() => document.activeElement?.dataset?.testid === 'input-instances');
      }
      assert.ok(reached, 'the replicas slider is reachable by Tab');
      const ratios = await page.evaluate(() => {
        const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
        const lum = ([r, g, b]) => {
          const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const ratio = (a, b) => { const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
        const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!/rgba\(.*, 0\)|transparent/.test(c)) return c; } return 'rgb(255,255,255)'; };
        const out = {};
        for (const sel of ['body', '.tagline', '[data-testid="readout-instances"]', '.figure .label', '.figure .value', '.fleet-lines', '.chart-card figcaption p', '.hint', '.btn.primary']) {
          const el = document.querySelector(sel);
          out[sel] = el ? +ratio(getComputedStyle(el).color, bgOf(el)).toFixed(2) : null;
        }
        return out;
      });
      const missing = Object.keys(ratios).filter((sel) => ratios[sel] === null);
      assert.deepEqual(missing, [], `${colorScheme}: selectors the contrast check cannot find (rename them here if the page changed)`);
      for (const [sel, r] of Object.entries(ratios)) assert.ok(r >= 4.5, `${colorScheme}: contrast of ${sel} is ${r}:1`);
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

// tests/e2e/sweep.test.mjs: the sweep panel in real Chromium. A small overlap-weight sweep drawn in the
// page equals, point by point, the native CLI's CSV (exact floats); 1 worker and 3 workers give the same
// numbers; the "Replicas: round_robin vs kv" preset draws two series that match the CLI too; clicking a
// point loads its configuration (controls, URL, headline); a bad spec is named next to the input and
// the last curve stays; a newer sweep supersedes one in flight; every preset's captions say what its
// charts draw (p50 dashed for each policy when they say so); the default sweep of the opening page
// moves, and a setting the swept routing does not read (kv's weight under round robin) is named next
// to the form and the result. Screenshots: light, dark, 360 px.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, ROOT, settledUrl, nativeBin } from './harness.mjs';

const BIN = nativeBin();
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

/** The native CLI's sweep CSV as rows of {param, value, hit_rate_requests, ...} (numbers parsed with Number). */
function cliSweep(spec, extra = []) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-sweep-')), 'sweep.csv');
  execFileSync(BIN, ['--des-sweep', spec, ...extra, '--des-sweep-csv', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [head, ...lines] = readFileSync(out, 'utf8').trim().split('\n');
  const keys = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((c, i) => [keys[i], i < 2 ? c : Number(c)])));
}

async function openPage(where = '/', { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height }, colorScheme });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

const seqOf = (page) => page.evaluate(() => window.kvfleet.lastSweep?.seq ?? 0);

/** Sets the form, clicks Run, waits for a new drawn sweep; returns window.kvfleet.lastSweep. */
async function runSweep(page, { param, spec, series = 'current', workers } = {}) {
  const before = await seqOf(page);
  await page.evaluate((n) => { window.kvfleet.sweepWorkers = n; }, workers ?? null);
  if (param) await page.selectOption('[data-testid="sweep-param"]', param);
  if (spec !== undefined) await page.fill('[data-testid="sweep-spec"]', spec);
  await page.selectOption('[data-testid="sweep-series"]', series);
  await page.click('[data-testid="sweep-run"]');
  try {
    await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, before, { timeout: 60000 });
  } catch (err) {
    // Say where it stuck: planning, running (which points), or an error shown.
    const state = await page.evaluate(() => ['sweep-status', 'sweep-error', 'sweep-progress']
      .map((id) => `${id}: ${JSON.stringify(document.querySelector(`[data-testid="${id}"]`)?.textContent)}`).join('; '));
    throw new Error(`${err.message}; the panel says ${state}`);
  }
  return page.evaluate(() => window.kvfleet.lastSweep);
}

/** What the two charts draw, read from Chart.js. */
const drawn = (page) => page.evaluate(() => {
  const get = (id) => {
    const c = window.Chart.getChart(document.querySelector(`[data-testid="${id}"]`));
    return { labels: c.data.labels, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data })),
      x: c.options.scales.x.title.text, y: c.options.scales.y.title.text };
  };
  return { hit: get('sweep-chart'), ttft: get('sweep-ttft') };
});

const stripConfigs = (sweep) => sweep.series.map((s) => ({ routing: s.routing, points: s.points.map((p) => ({ value: p.value, summary: p.summary })) }));

function assertMatchesCsv(points, rows, what) {
  assert.equal(points.length, rows.length, `${what}: as many points as the CLI`);
  points.forEach((p, i) => {
    const r = rows[i];
    assert.equal(Number(p.value), Number(r.value), `${what}: point ${i} value`);
    for (const k of ['hit_rate_requests', 'hit_rate_tokens', 'ttft_ms_p50', 'ttft_ms_p99', 'makespan_s', 'load_spread']) {
      assert.ok(p.summary[k] === r[k], `${what} ${r.param}=${r.value}: ${k} page ${p.summary[k]} !== CLI ${r[k]}`);
    }
  });
}

test('an overlap-weight sweep matches the CLI CSV exactly, and 1 or 3 workers give the same numbers', async () => {
  const csv = cliSweep('overlap-weight=0:2:0.5');
  const { page, errors, close } = await openPage('/?routing=kv');
  try {
    const one = await runSweep(page, { param: 'overlap_weight', spec: '0:2:0.5', workers: 1 });
    assert.equal(one.workers, 1);
    assert.equal(one.param, 'overlap_weight');
    assert.equal(one.series.length, 1);
    assertMatchesCsv(one.series[0].points, csv, 'page sweep (1 worker)');

    // Every point of the drawn curves is the CLI's value.
    const d = await drawn(page);
    assert.deepEqual(d.hit.labels, ['0', '0.5', '1', '1.5', '2']);
    assert.deepEqual(d.hit.sets[0].data, csv.map((r) => r.hit_rate_requests * 100));
    assert.deepEqual(d.hit.sets[1].data, csv.map((r) => r.hit_rate_tokens * 100));
    assert.deepEqual(d.ttft.sets[0].data, csv.map((r) => r.ttft_ms_p99));
    assert.match(d.hit.y, /hit rate \(%\)/i);
    assert.match(d.ttft.y, /^TTFT p99 and p50 \(ms\)$/);
    assert.match(d.hit.x, /Overlap weight/);

    const three = await runSweep(page, { workers: 3 });
    assert.equal(three.workers, 3);
    assert.deepEqual(stripConfigs(three), stripConfigs(one), 'the number of workers changes no number');
    assert.match(await page.textContent('[data-testid="sweep-status"]'), /5 points in \d+ ms on 3 workers/);

    await page.locator('[data-testid="sweep"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-overlap-weight', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the replicas preset draws round_robin next to kv (hit rate and p99 TTFT), equal to the CLI; a click loads a point', async () => {
  const rr = cliSweep('instances=1,2,4,8,16,32', ['--des-routing', 'round_robin']);
  const kv = cliSweep('instances=1,2,4,8,16,32', ['--des-routing', 'kv']);
  const { page, errors, close } = await openPage('/');
  try {
    const before = await seqOf(page);
    await page.click('[data-testid="sweep-preset-replicas"]');
    await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, before, { timeout: 60000 });
    const sw = await page.evaluate(() => window.kvfleet.lastSweep);
    console.log(`sweep panel: replicas round_robin vs kv (12 points, default workload) on ${sw.workers} workers: ${sw.ms.toFixed(0)} ms`);
    assert.deepEqual(sw.series.map((s) => s.routing), ['round_robin', 'kv']);
    assertMatchesCsv(sw.series[0].points, rr, 'round_robin');
    assertMatchesCsv(sw.series[1].points, kv, 'kv');
    const hit = (s, i) => sw.series[s].points[i].summary.hit_rate_requests;
    assert.ok(hit(0, 5) < hit(0, 0), 'round robin: more replicas, fewer hits');
    assert.ok(hit(1, 5) > hit(0, 5), 'kv keeps more hits than round robin at 32 replicas');

    const d = await drawn(page);
    assert.deepEqual(d.hit.labels, ['1', '2', '4', '8', '16', '32']);
    assert.deepEqual(d.hit.sets.map((s) => s.label), ['round_robin', 'kv', 'round_robin · tokens', 'kv · tokens']);
    assert.deepEqual(d.hit.sets[3].data, kv.map((r) => r.hit_rate_tokens * 100));
    assert.deepEqual(d.ttft.sets.map((s) => s.label), ['round_robin p99', 'kv p99', 'round_robin p50', 'kv p50']);
    assert.deepEqual(d.ttft.sets[1].data, kv.map((r) => r.ttft_ms_p99));
    assert.deepEqual(d.ttft.sets[2].data, rr.map((r) => r.ttft_ms_p50));
    assert.deepEqual(d.ttft.sets[3].data, kv.map((r) => r.ttft_ms_p50));
    assert.match(d.hit.x, /^Replicas \(count\)$/);
    assert.equal(await page.locator('[data-testid="sweep-table"] tbody tr').count(), 12);

    await page.locator('[data-testid="sweep"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-replicas-light', { fullPage: false });

    // Click kv's point at 8 replicas on the hit-rate chart.
    const target = sw.series[1].points[3];
    await page.evaluate(() => { window.kvfleet.sweepWorkers = null; });
    const xy = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid="sweep-chart"]');
      const c = window.Chart.getChart(canvas);
      const el = c.getDatasetMeta(1).data[3];
      const r = canvas.getBoundingClientRect();
      return { x: r.left + el.x, y: r.top + el.y };
    });
    const runs = await page.evaluate(() => window.kvfleet.runCount);
    await page.mouse.click(xy.x, xy.y);
    await page.waitForFunction(([n, want]) => window.kvfleet.runCount > n && window.kvfleet.lastReport.config.instances === want.instances
      && window.kvfleet.lastReport.config.routing === want.routing, [runs, target.config], { timeout: 20000 });
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    assert.deepEqual(report.summary, target.summary, 'the loaded run is that point');
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('instances'), '8');
    assert.match(await page.getAttribute('[data-testid="input-instances"]', 'aria-valuetext'), /^8 replicas$/);
    assert.match(await page.textContent('[data-testid="readout-instances"]'), /^8\b/);
    assert.equal(await page.isChecked('[data-testid="input-routing-kv"]'), true);
    const fig = await page.textContent('[data-testid="fig-hit-rate"]');
    assert.ok(fig.includes(`${(target.summary.hit_rate_tokens * 100).toFixed(1)}%`), `headline shows the point's token hit rate: ${fig}`);
    const status = await page.textContent('[data-testid="sweep-status"]');
    assert.match(status, /Loaded instances = 8 with kv routing/);
    // The status names the headline's figure, the token hit rate, not the requests-with-a-hit share.
    assert.ok(status.includes(`(token hit rate ${(target.summary.hit_rate_tokens * 100).toFixed(1)}%,`), status);
    assert.equal(await page.locator('[data-testid="sweep-table"] tbody tr.current').count(), 1);

    // A table row loads round robin at 32 replicas (keyboard-reachable button).
    const rr32 = sw.series[0].points[5];
    const runs2 = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[aria-label="Load instances = 32 with round_robin"]');
    await page.waitForFunction((n) => window.kvfleet.runCount > n && window.kvfleet.lastReport.config.routing === 'round_robin', runs2, { timeout: 20000 });
    assert.deepEqual(await page.evaluate(() => window.kvfleet.lastReport.summary), rr32.summary);
    const loaded = new URL(await settledUrl(page)).searchParams;
    assert.equal(loaded.has('routing'), false, 'round robin, the page\'s default, is left out of the link');
    assert.equal(loaded.get('instances'), '32');
    await screenshot(page, 'sweep-loaded-point', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

/** Whether any of the CLI's rows differs from the first (hit rates or p99 TTFT). */
const moves = (rows) => rows.some((r) => ['hit_rate_requests', 'hit_rate_tokens', 'ttft_ms_p99'].some((k) => r[k] !== rows[0][k]));

test('the default sweep moves on the opening page; a setting the routing does not read is named before and after running', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    // The form as the page opens it, under the opening routing (round robin).
    const routing = await page.evaluate(() => window.kvfleet.lastReport.config.routing);
    assert.equal(routing, 'round_robin');
    const param = await page.inputValue('[data-testid="sweep-param"]');
    const spec = await page.inputValue('[data-testid="sweep-spec"]');
    assert.equal(await page.inputValue('[data-testid="sweep-series"]'), 'current');
    // Measured natively: that sweep under round robin moves (it is no flat line of one run).
    const want = cliSweep(`${param}=${spec}`, ['--des-routing', routing]);
    assert.ok(want.length > 1 && moves(want), `the default sweep (${param}=${spec}) moves under ${routing}`);
    assert.equal(await page.isVisible('[data-testid="sweep-inert"]'), false, 'no note: the default setting is read');
    const sw = await runSweep(page, {});
    assert.equal(sw.param, param);
    assertMatchesCsv(sw.series[0].points, want, `default sweep of ${param}`);
    assert.deepEqual(sw.inert, []);

    // kv's overlap weight under round robin: natively one run nine times; the page says so before running.
    const flat = cliSweep('overlap-weight=0:2:1', ['--des-routing', 'round_robin']);
    assert.ok(!moves(flat), 'the overlap weight changes nothing under round robin');
    assert.ok(moves(cliSweep('overlap-weight=0:2:1', ['--des-routing', 'kv'])), 'it moves under kv');
    await page.selectOption('[data-testid="sweep-param"]', 'overlap_weight');
    await page.fill('[data-testid="sweep-spec"]', '0:2:1');
    await page.selectOption('[data-testid="sweep-series"]', 'current');
    await page.waitForSelector('[data-testid="sweep-inert"]:not([hidden])');
    const note = await page.textContent('[data-testid="sweep-inert"]');
    assert.match(note, /^Overlap weight is read only by kv routing: under round_robin it changes nothing, so every point of this sweep is the same run\./);
    assert.match(note, /“kv only” under Routing/);
    // Next to the form.
    const [runBox, noteBox] = await Promise.all(['sweep-run', 'sweep-inert'].map((id) => page.locator(`[data-testid="${id}"]`).boundingBox()));
    assert.ok(noteBox.y - (runBox.y + runBox.height) < 60, 'the note sits under the form');
    // After running: still said, and in the result's status line.
    const inert = await runSweep(page, {});
    assert.deepEqual(inert.inert, ['round_robin']);
    assertMatchesCsv(inert.series[0].points, flat, 'overlap weight under round robin');
    assert.ok(await page.isVisible('[data-testid="sweep-inert"]'));
    assert.match(await page.textContent('[data-testid="sweep-status"]'), /^Overlap weight is read only by kv routing.*3 points in \d+ ms/);
    await page.locator('[data-testid="sweep"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-inert-note', { fullPage: false });

    // round_robin next to kv: only round robin's line is flat; kv alone: nothing to say.
    await page.selectOption('[data-testid="sweep-series"]', 'round_robin,kv');
    assert.equal(await page.textContent('[data-testid="sweep-inert"]'),
      'Overlap weight is read only by kv routing: under round_robin it changes nothing, so that line stays flat.');
    await page.selectOption('[data-testid="sweep-series"]', 'kv');
    assert.equal(await page.isVisible('[data-testid="sweep-inert"]'), false);
    const kv = await runSweep(page, { series: 'kv' });
    assert.deepEqual(kv.inert, []);
    assert.doesNotMatch(await page.textContent('[data-testid="sweep-status"]'), /read only/);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a bad spec is named next to the input and the last curve stays; a newer sweep supersedes; cancel', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const good = await runSweep(page, { param: 'overlap_weight', spec: '0:1:0.5' });
    await page.fill('[data-testid="sweep-spec"]', '0:abc');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForSelector('[data-testid="sweep-error"]:not([hidden])');
    const msg = await page.textContent('[data-testid="sweep-error"]');
    assert.match(msg, /overlap_weight/);
    assert.match(msg, /abc/);
    assert.equal(await page.getAttribute('[data-testid="sweep-spec"]', 'aria-invalid'), 'true');
    // The error sits right under the form, next to the input.
    const [inputBox, errBox] = await Promise.all(['sweep-spec', 'sweep-error'].map((id) => page.locator(`[data-testid="${id}"]`).boundingBox()));
    assert.ok(errBox.y - (inputBox.y + inputBox.height) < 40, 'the error is next to the input');
    assert.equal(await seqOf(page), good.seq, 'the last good sweep is still the drawn one');
    assert.equal(await page.isVisible('[data-testid="sweep-chart"]'), true);
    assert.equal((await drawn(page)).hit.labels.length, 3);
    await page.locator('[data-testid="sweep"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-bad-spec', { fullPage: false });

    // Two clicks in a row: the second sweep wins, the first never draws. (The first is made long:
    // 40,000 to 70,000 requests took 0.33 s in all, and once finished before the second click.)
    await page.selectOption('[data-testid="sweep-param"]', 'num_requests');
    await page.fill('[data-testid="sweep-spec"]', '400000,500000,600000,700000');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForSelector('[data-testid="sweep-cancel"]:not([hidden])');
    await page.selectOption('[data-testid="sweep-param"]', 'instances');
    await page.fill('[data-testid="sweep-spec"]', '1,3');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForFunction((n) => window.kvfleet.lastSweep.seq > n, good.seq, { timeout: 60000 });
    await page.waitForTimeout(300); // not a wait for a result: room for a stale sweep to be drawn, were it drawn
    const last = await page.evaluate(() => window.kvfleet.lastSweep);
    assert.equal(last.seq, good.seq + 1, 'only the newer sweep was drawn');
    assert.equal(last.param, 'instances');
    assert.deepEqual(last.series[0].points.map((p) => p.value), [1, 3]);
    assert.equal(await page.isVisible('[data-testid="sweep-error"]'), false);

    // Cancel stops a sweep in flight; nothing new is drawn.
    await page.selectOption('[data-testid="sweep-param"]', 'num_requests');
    await page.fill('[data-testid="sweep-spec"]', '400000,500000,600000,700000');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForSelector('[data-testid="sweep-cancel"]:not([hidden])');
    await page.click('[data-testid="sweep-cancel"]');
    assert.match(await page.textContent('[data-testid="sweep-status"]'), /cancelled/i);
    await page.waitForTimeout(300); // not a wait for a result: room for the cancelled sweep to be drawn, were it drawn
    assert.equal(await seqOf(page), last.seq);
    assert.equal(await page.isVisible('[data-testid="sweep-progress"]'), false);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a sweep worker that cannot load the simulator is named, and the last curve stays', async () => {
  const { page, errors, context } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  try {
    const good = await runSweep(page, { param: 'overlap_weight', spec: '0:1:0.5', workers: 1 });
    // From now on the wasm cannot be fetched: only a new pool worker needs it.
    await context.route('**/kvfleet_bg.wasm', (route) => route.abort());
    await page.evaluate(() => { window.kvfleet.sweepWorkers = 2; });
    await page.click('[data-testid="sweep-run"]');
    await page.waitForSelector('[data-testid="sweep-error"]:not([hidden])', { timeout: 30000 });
    assert.match(await page.textContent('[data-testid="sweep-error"]'), /A sweep worker could not start: .*WebAssembly module/);
    assert.equal(await seqOf(page), good.seq, 'the last good sweep is still the drawn one');
    assert.equal(await page.isVisible('[data-testid="sweep-cancel"]'), false, 'not left busy');
    assert.ok(errors.every((e) => /kvfleet_bg\.wasm/.test(e)), `only the blocked wasm: ${errors.join('; ')}`);
    // With the wasm back, the next sweep replaces the broken worker and draws.
    await context.unroute('**/kvfleet_bg.wasm');
    const again = await runSweep(page, { spec: '0:2:1' });
    assert.equal(again.seq, good.seq + 1);
    assert.equal(await page.isVisible('[data-testid="sweep-error"]'), false);
  } finally { await context.close(); }
});

test('the sweep panel reads well in dark and at 360 px', async () => {
  for (const [name, opts] of [['sweep-replicas-dark', { colorScheme: 'dark' }], ['sweep-replicas-360', { width: 360, height: 780 }]]) {
    const { page, errors, close } = await openPage('/', opts);
    try {
      const before = await seqOf(page);
      await page.click('[data-testid="sweep-preset-replicas"]');
      await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, before, { timeout: 60000 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${name}: no horizontal page scroll (${overflow}px)`);
      await page.locator('[data-testid="sweep"]').screenshot({ path: path.join(ROOT, 'test-results', `${name}.png`) });
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

test('compare: a point of "hit rate as replicas grow" loads that policy and replica count; its button opens the sweep', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    // The comparison runs once the reader scrolls to it.
    await page.locator('[data-testid="compare"]').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="compare-table"] tbody tr').length >= 4
      && !document.querySelector('[data-testid="compare-run"]').disabled, null, { timeout: 30000 });
    await page.locator('[data-testid="compare-sweep"]').scrollIntoViewIfNeeded();
    const { xy, label } = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid="compare-sweep"]');
      const c = window.Chart.getChart(canvas);
      const d = c.data.datasets.findIndex((x) => x.label === 'round_robin');
      const el = c.getDatasetMeta(d).data[4];
      const r = canvas.getBoundingClientRect();
      return { xy: { x: r.left + el.x, y: r.top + el.y }, label: c.data.labels[4] };
    });
    assert.equal(label, '16');
    const runs = await page.evaluate(() => window.kvfleet.runCount);
    await page.mouse.click(xy.x, xy.y);
    await page.waitForFunction((n) => window.kvfleet.runCount > n && window.kvfleet.lastReport.config.routing === 'round_robin'
      && window.kvfleet.lastReport.config.instances === 16, runs, { timeout: 20000 });
    assert.equal(new URL(await settledUrl(page)).searchParams.get('instances'), '16');

    const before = await seqOf(page);
    await page.click('[data-testid="compare-sweep-more"]');
    await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, before, { timeout: 60000 });
    const sw = await page.evaluate(() => window.kvfleet.lastSweep);
    assert.deepEqual(sw.series.map((s) => s.routing), ['round_robin', 'kv']);
    assert.deepEqual(sw.series[0].points.map((p) => p.value), [1, 2, 4, 8, 16, 32]);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

/** The captions and the datasets of both sweep charts, with the drawn sweep's percentiles per line. */
const captionsAndSets = (page) => page.evaluate(() => {
  const sets = (id) => window.Chart.getChart(document.querySelector(`[data-testid="${id}"]`)).data.datasets
    .map((d) => ({ label: d.label, data: d.data, dashed: (d.borderDash || []).length > 0 }));
  const sw = window.kvfleet.lastSweep;
  const pick = (k) => sw.series.map((se) => se.points.map((p) => p.summary[k]));
  return {
    caps: [document.querySelector('#sweep-cap-1').textContent, document.querySelector('#sweep-cap-2').textContent],
    sets: [sets('sweep-chart'), sets('sweep-ttft')], labels: sw.series.map((se) => se.label), metrics: sw.metrics,
    p50: { ttft: pick('ttft_ms_p50'), tpot: pick('tpot_ms_p50') }, p99: { ttft: pick('ttft_ms_p99'), tpot: pick('tpot_ms_p99') },
  };
});

/** Checks one chart's caption against its datasets: "p50 dashed" means one dashed p50 line per line swept. */
function assertCaptionMatches(cap, sets, p50, p99, lines, what) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const dashedP50 = sets.filter((d) => d.dashed && p50.some((v) => same(v, d.data)));
  const solidP99 = sets.filter((d) => !d.dashed && p99.some((v) => same(v, d.data)));
  if (/p50 dashed/.test(cap)) {
    assert.equal(dashedP50.length, lines.length, `${what}: "${cap}" but ${dashedP50.length} dashed p50 lines for ${lines.length} lines`);
    assert.equal(solidP99.length, lines.length, `${what}: one solid p99 line per line swept`);
  } else {
    assert.equal(sets.filter((d) => p50.some((v) => same(v, d.data))).length, 0, `${what}: "${cap}" says no p50, none is drawn`);
    // A preset's own lines: each named "<label> dashed" is drawn dashed, "<label> solid" solid.
    for (const l of lines) {
      const m = new RegExp(`${l} (solid|dashed|dotted)`).exec(cap);
      assert.ok(m, `${what}: the caption names ${l}'s line`);
      assert.equal(sets.find((d) => d.label === l).dashed, m[1] !== 'solid', `${what}: ${l} is drawn ${m[1]}`);
    }
  }
}

test('every preset\'s chart captions say what its charts draw', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    for (const id of ['weight', 'replicas', 'pd', 'staleness']) {
      const before = await seqOf(page);
      await page.click(`[data-testid="sweep-preset-${id}"]`);
      await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, before, { timeout: 120000 });
      const got = await captionsAndSets(page);
      const firstKey = got.metrics[0] === 'tpot' ? 'tpot' : null;
      if (firstKey) assertCaptionMatches(got.caps[0], got.sets[0], got.p50.tpot, got.p99.tpot, got.labels, `${id} first chart`);
      else assert.doesNotMatch(got.caps[0], /p50/, `${id}: the first chart draws no percentile`);
      assertCaptionMatches(got.caps[1], got.sets[1], got.p50.ttft, got.p99.ttft, got.labels, `${id} TTFT chart`);
      if (id === 'replicas') {
        assert.match(got.caps[1], /p50 dashed/, 'round_robin vs kv shows its p50s');
        await page.locator('[data-testid="sweep"]').scrollIntoViewIfNeeded();
        await screenshot(page, 'sweep-replicas-p50', { fullPage: false });
      }
    }
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

// tests/e2e/disagg.test.mjs: disaggregated prefill and decode in real Chromium. The "Fleet layout"
// control splits the fleet into two pools and back; the run then equals the native CLI's with the same
// flags (summary, pools, per-replica rows, fleet lines); the pool sliders keep instances at their sum
// and the URL reproduces the run; the per-replica charts mark the pools; the KV transfers panel's
// figures and sentence are the report's numbers; the hero sweeps the prefill pool; the "P:D split at
// 8 GPUs" preset equals the CLI's sweep point by point; a URL with one pool only is named as an error.
// Screenshots: the settings and the transfers panel (light, 1280 px).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { startSite, ROOT, RESULTS, settledUrl, nativeBin } from './harness.mjs';

const BIN = nativeBin();
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** Opens `where`; `heroSweep: false` holds the first screen's sweep, for a test that never looks at it. */
async function openPage(where, { width = 1280, height = 900, heroSweep = true } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height }, heroSweep });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

function cli(args) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-disagg-')), 'out.json');
  execFileSync(BIN, ['-q', ...args, out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** Waits for a run after `act`, and returns its report. */
async function afterRun(page, act) {
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await act();
  await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 30000 });
  await page.waitForFunction(() => !document.querySelector('#results')?.classList.contains('stale'), null, { timeout: 30000 }).catch(() => {});
  return page.evaluate(() => window.kvfleet.lastReport);
}

async function shoot(page, selector, name) {
  await mkdir(RESULTS, { recursive: true });
  await page.locator(selector).first().screenshot({ path: path.join(RESULTS, `${name}.png`) });
}

test('the layout control splits the fleet, the run equals the CLI, and the pools are drawn and told', async () => {
  const { page, errors, close } = await openPage('/?routing=kv');
  try {
    assert.equal(await page.isVisible('[data-testid=transfers]'), false, 'a colocated run has no transfers panel');
    let r = await afterRun(page, () => page.click('label[for="in-fleet_layout-disaggregated"]'));
    assert.equal(r.config.prefill_instances, 2);
    assert.equal(r.config.decode_instances, 2);
    assert.equal(r.config.instances, 4, 'the 4 replicas split 2 + 2');
    assert.equal(await page.isVisible('[data-testid=field-instances]'), false, 'the replica slider gives way to the pool sliders');
    assert.equal(await page.isVisible('[data-testid=field-decode_instances]'), true);

    // One more decode replica by keyboard: instances follows.
    r = await afterRun(page, async () => {
      await page.focus('[data-testid=input-decode_instances]');
      await page.keyboard.press('ArrowRight');
    });
    assert.equal(r.config.decode_instances, 3);
    assert.equal(r.config.instances, 5);
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('prefill_instances'), '2');
    assert.equal(url.searchParams.get('decode_instances'), '3');

    const native = cli(['--des-routing', 'kv', '--des-prefill-instances', '2', '--des-decode-instances', '3', '--des-report-json']);
    assert.deepEqual(r.summary, native.summary, 'wasm summary equals the native CLI');
    assert.deepEqual(r.pools, native.pools);
    assert.deepEqual(r.per_instance, native.per_instance);
    assert.deepEqual(r.fleet_lines, native.fleet_lines);
    assert.match(r.fleet_lines[0], /Fleet: 2 prefill \+ 3 decode instance\(s\)/, 'the fleet line counts both pools');
    assert.equal(await page.textContent('[data-testid=fleet-lines]'), [...native.fleet_lines, native.pools.line].join('\n'), 'the pools line follows the three');

    // The per-replica charts and table mark the pools.
    const split = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hit]')).options.plugins.poolDivider);
    assert.equal(split.split, 2);
    assert.equal(split.n, 5);
    const rows = await page.locator('[data-testid=replica-rows] tbody th').allTextContents();
    assert.deepEqual(rows, ['R0 · prefill', 'R1 · prefill', 'R2 · decode', 'R3 · decode', 'R4 · decode']);

    // The transfers panel: its figures are the report's, its sentence computed from them.
    assert.equal(await page.isVisible('[data-testid=transfers]'), true);
    const t = r.pools.transfers;
    const words = await page.textContent('[data-testid=transfers-words]');
    assert.match(words, new RegExp(`^${t.count} prompts crossed to the decode pool`));
    const share = Math.round((100 * t.time_ms_mean) / r.summary.ttft_ms_mean);
    assert.match(words, new RegExp(`, ${share}% of the mean time to first token`), words);
    assert.match(await page.textContent('[data-testid=fig-link-busy]'), new RegExp(`${Math.round(100 * t.link_utilisation)}%`));
    // The verdict against 5 colocated replicas on the same traffic, as the CLI runs them.
    await page.waitForFunction(() => window.kvfleet.transfersVerdict?.text, null, { timeout: 30000 });
    const colo = cli(['--des-routing', 'kv', '--des-instances', '5', '--des-report-json']);
    const v = await page.evaluate(() => window.kvfleet.transfersVerdict);
    assert.equal(v.colocated.tpot_ms_p99, colo.summary.tpot_ms_p99);
    assert.equal(v.colocated.ttft_ms_p99, colo.summary.ttft_ms_p99);
    assert.match(v.text, /^Against 5 colocated replicas on the same traffic: p99 time per output token /);
    const better = (a, b) => a < b;
    const verdict = better(r.summary.tpot_ms_p99, colo.summary.tpot_ms_p99)
      ? (better(r.summary.ttft_ms_p99, colo.summary.ttft_ms_p99) ? 'This split wins on both.' : 'This split buys faster tokens with slower first tokens.')
      : (better(r.summary.ttft_ms_p99, colo.summary.ttft_ms_p99) ? 'This split buys faster first tokens with slower tokens.' : 'Colocation wins on both: this split does not pay here.');
    assert.ok(v.text.includes(verdict), `${v.text} lacks ${verdict}`);
    assert.equal(await page.textContent('[data-testid=transfers-verdict]'), v.text);
    const busy = await page.evaluate(() => {
      const c = window.Chart.getChart(document.querySelector('[data-testid=chart-link-busy]'));
      return c.data.datasets.map((d) => d.label);
    });
    assert.deepEqual(busy, ['R2 link', 'R3 link', 'R4 link'], 'one line per decode replica\'s link');
    const cdf = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-transfer-cdf]')).data.datasets[0].data);
    assert.equal(cdf.length, 100);
    assert.deepEqual(cdf.map((p) => p.x), t.time_ms_cdf);

    // The hero sweeps the prefill pool, the decode pool held.
    await page.waitForFunction(() => (window.kvfleet.hero.sweeps.kv || []).some((q) => q.instances === 2), null, { timeout: 60000 });
    const hero = await page.evaluate(() => ({
      x: window.Chart.getChart(document.querySelector('[data-testid=chart-hero]')).options.scales.x.title.text,
      at2: window.kvfleet.hero.sweeps.kv.find((q) => q.instances === 2),
    }));
    assert.match(hero.x, /^Prefill replicas \(log scale; decode pool: 3\)$/);
    assert.equal(hero.at2.hit_rate_tokens, r.summary.hit_rate_tokens, 'the hero point at 2 prefill replicas is the run on screen');
    assert.match(await page.textContent('#takeaway'), /On 2 prefill replicas \(and 3 decode\), kv serves/);

    await shoot(page, '#group-fleet', 'disagg-settings-1280-light');
    await page.locator('[data-testid=transfers]').scrollIntoViewIfNeeded();
    await shoot(page, '[data-testid=transfers]', 'disagg-transfers-1280-light');

    // Back to colocated: the pools merge into 5 replicas.
    r = await afterRun(page, () => page.click('label[for="in-fleet_layout-colocated"]'));
    assert.equal(r.config.instances, 5);
    assert.equal(r.pools, undefined);
    assert.equal(await page.isVisible('[data-testid=transfers]'), false);
    assert.equal(new URL(await settledUrl(page)).searchParams.has('prefill_instances'), false, 'unset (the default): left out of the URL');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the P:D split preset equals the CLI sweep at 8 replicas, point by point', async () => {
  const base = ['--des-instances', '8', '--request-rate', '24', '--des-num-requests', '2000', '--des-routing', 'kv'];
  const rows = cli([...base, '--des-sweep', 'prefill-instances=1:7', '--des-sweep-json']);
  // On the page's own routing (round robin): the preset's kv line and its colocated reference route by kv.
  const { page, errors, close } = await openPage('/', { heroSweep: false });
  try {
    const before = await page.evaluate(() => window.kvfleet.lastSweep?.seq ?? 0);
    await page.click('[data-testid="sweep-preset-pd"]');
    await page.waitForFunction((n) => (window.kvfleet.lastSweep?.seq ?? 0) > n, before, { timeout: 120000 });
    const sw = await page.evaluate(() => window.kvfleet.lastSweep);
    assert.equal(sw.series.length, 1);
    const pts = sw.series[0].points;
    assert.equal(pts.length, 7);
    pts.forEach((p, i) => {
      assert.equal(p.config.prefill_instances, i + 1);
      assert.equal(p.config.decode_instances, 7 - i, 'the decode pool gets the rest of 8');
      assert.equal(p.config.instances, 8);
      assert.equal(p.summary.ttft_ms_p99, rows[i].ttft_ms_p99, `P=${i + 1}: TTFT p99 as the CLI`);
      assert.equal(p.summary.tpot_ms_p99, rows[i].tpot_ms_p99, `P=${i + 1}: TPOT p99 as the CLI`);
    });
    // The title's claim: more prefill replicas cut the first-token wait, fewer decode replicas slow
    // every token after it (the ends of the sweep).
    assert.ok(pts[6].summary.ttft_ms_p99 < pts[0].summary.ttft_ms_p99, 'TTFT p99 falls as P grows');
    assert.ok(pts[6].summary.tpot_ms_p99 > pts[0].summary.tpot_ms_p99, 'TPOT p99 rises as D shrinks');
    const first = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=sweep-chart]')).options.scales.y.title.text);
    assert.match(first, /^TPOT p99 and p50 \(ms\)$/);
    // The reference: 8 colocated replicas on the same traffic, as the CLI runs them.
    const colo = cli([...base, '--des-report-json']);
    assert.equal(sw.reference.label, 'colocated 8');
    assert.equal(sw.reference.summary.tpot_ms_p99, colo.summary.tpot_ms_p99);
    assert.equal(sw.reference.summary.ttft_ms_p99, colo.summary.ttft_ms_p99);
    const flat = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=sweep-chart]')).data.datasets
      .find((d) => d.label === 'colocated 8 (reference)').data);
    assert.deepEqual(flat, Array(7).fill(colo.summary.tpot_ms_p99));
    const x = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=sweep-chart]')).options.scales.x.title.text);
    assert.equal(x, 'Prefill replicas (count)');
    const heads = await page.locator('[data-testid=sweep-table] thead th').allTextContents();
    assert.ok(heads.includes('TPOT p99'), heads.join(', '));
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a link with one pool only names the missing field and draws nothing wrong', async () => {
  const { page, errors, context } = await site.open('/?prefill_instances=3', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => /invalid decode_instances/.test(document.body.textContent), null, { timeout: 30000 });
    const text = await page.textContent('body');
    assert.match(text, /invalid decode_instances: got unset/);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the layout\'s line counts the replicas in words that fit the count: one replica, or n replicas each', async () => {
  for (const [n, start] of [[1, 'One replica, prefilling and decoding. '], [3, '3 replicas, each prefilling and decoding. ']]) {
    const { page, errors, close } = await openPage(`/?instances=${n}`, { heroSweep: false });
    try {
      const about = await page.textContent('[data-testid=layout-about]');
      assert.ok(about.startsWith(start), `${n}: ${about}`);
      assert.doesNotMatch(about, /\b1 replicas\b/);
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

test('a mixed fleet typed in the fleet settings sets replicas and engine, equals the CLI, and each bar names its GPU', async () => {
  const { page, errors, close } = await openPage('/?routing=kv', { heroSweep: false });
  try {
    const fleet = '2:llama3-8b-h100,1:llama3-8b-mi300x';
    let r = await afterRun(page, async () => {
      await page.locator('[data-testid=input-fleet]').fill(fleet);
      await page.locator('[data-testid=input-fleet]').dispatchEvent('change');
    });
    assert.equal(r.config.fleet, fleet);
    assert.equal(r.config.instances, 3, 'the groups\' total');
    assert.equal(r.config.engine, 'llama3-8b-h100', 'the first group\'s preset');
    const native = cli(['--des-routing', 'kv', '--des-fleet', fleet, '--des-report-json']);
    for (const key of ['summary', 'per_instance', 'presets', 'fleet_lines']) assert.deepEqual(r[key], native[key], key);
    // Each bar of the per-replica charts and each row of the table names its replica's GPU.
    const labels = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hit]')).data.labels);
    assert.deepEqual(labels.map((l) => l.replace(/ –$/, '')), ['R0 H100', 'R1 H100', 'R2 MI300X']);
    const rows = await page.locator('[data-testid=replica-table] tbody th').allTextContents();
    assert.deepEqual(rows, ['R0 H100', 'R1 H100', 'R2 MI300X']);
    const hero = await page.evaluate(() => window.Chart.getChart(document.getElementById('chart-hero-reps')).data.labels);
    assert.deepEqual(hero, ['R0 H100', 'R1 H100', 'R2 MI300X'], 'the first screen\'s bars too');
    // Unset, the cache is each preset's own, not unbounded.
    assert.equal((await page.textContent('[data-testid=hero-readout-kv_blocks]'))?.trim(), 'each GPU\'s own');
    assert.equal((await page.textContent('[data-testid=readout-fleet]'))?.trim(), '2 + 1 replicas');
    const engine = await page.evaluate(() => ({ disabled: document.querySelector('[data-testid=input-engine]').disabled,
      title: document.querySelector('[data-testid=field-engine]').title }));
    assert.equal(engine.disabled, true, 'the engine is the fleet\'s');
    assert.match(engine.title, /Set by the mixed fleet/);
    // The replica slider resizes the fleet in its proportions: 4 replicas of a 2:1 mix are 3 + 1.
    r = await afterRun(page, async () => {
      await page.focus('[data-testid=input-instances]');
      await page.keyboard.press('ArrowRight');
    });
    assert.equal(r.config.instances, 4);
    assert.equal(r.config.fleet, '3:llama3-8b-h100,1:llama3-8b-mi300x');
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('fleet'), '3:llama3-8b-h100,1:llama3-8b-mi300x');
    await page.evaluate(() => document.activeElement?.blur());
    await shoot(page, '#group-fleet', 'mixed-fleet-settings');
    await shoot(page, '[data-testid=chart-hit]', 'mixed-fleet-hit-chart');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a link with an unknown preset in the fleet names the field and what is allowed', async () => {
  const { page, errors, context } = await site.open('/?fleet=2:llama3-8b-a100', { viewport: { width: 1280, height: 900 }, heroSweep: false });
  try {
    await page.waitForFunction(() => /invalid fleet/.test(document.body.textContent), null, { timeout: 30000 });
    assert.match(await page.textContent('body'), /invalid fleet: got 2:llama3-8b-a100; allowed: COUNT:PRESET groups/);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

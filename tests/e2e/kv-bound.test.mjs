// tests/e2e/kv-bound.test.mjs: the small-cache run (32 prefixes, 8 replicas, kv routing, 16 KV blocks
// per replica) set through the URL, in real Chromium: the hero and the results both show the KV-bound
// finding, titled, with the words and numbers the native CLI prints for the same flags; the routing
// capture figure says why its picks found more blocks than admissions reused (evictions while requests
// waited), with the CLI's counts. Ten times the cache: no finding and no such clause. A link without
// `admission` runs the default rule, preempt (the KV cache group's control reads it): the small cache
// preempts, with the CLI's counts, and the fleet lines end with the CLI's preemption line; a link
// with `admission=reserve` keeps the whole reservation (the control reads it, and nothing preempts). With a CPU tier (the KV cache group's
// control reads it), the report's tier figures are the CLI's, and the fleet lines end with its tier line.
// With a CPU tier, a shared tier and a router that counts them, the controls read them, the shared
// tier's figures and line are the CLI's, and the per-replica hit chart splits each bar per tier.
// Screenshots: test-results/kv-bound.png, test-results/kv-preempt.png, test-results/kv-cpu-tier.png,
// test-results/kv-shared-tier.png, test-results/kv-shared-tier-controls.png (light, 1280 px).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, nativeBin, ROOT } from './harness.mjs';

const SMALL = { num_prefixes: 32, instances: 8, routing: 'kv', kv_blocks: 16 };
const n = (x) => x.toLocaleString('en-US');
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

/** The native CLI on the same settings: its JSON report and its text report's lines. */
function cli(settings) {
  const flags = Object.entries(settings).flatMap(([k, v]) => [`--des-${k.replace(/_/g, '-')}`, String(v)]);
  const out = execFileSync(nativeBin(), ['-q', ...flags, '--des-report-json', '-'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const text = execFileSync(nativeBin(), ['-q', ...flags], { cwd: ROOT, encoding: 'utf8' });
  return { report: JSON.parse(out), lines: text.split('\n') };
}

async function open(settings) {
  const query = new URLSearchParams(Object.entries(settings).map(([k, v]) => [k, String(v)]));
  const { page, errors, context } = await site.open(`/?${query}`, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt && window.kvfleet.lastReport, null, { timeout: 60000 });
  await page.waitForFunction(() => !document.querySelector('#results')?.classList.contains('stale'), null, { timeout: 30000 }).catch(() => {});
  return { page, errors, context, report: await page.evaluate(() => window.kvfleet.lastReport) };
}

test('the small cache: the KV-bound finding and the capture clause, with the CLI\'s numbers', async () => {
  const native = cli(SMALL);
  const warning = native.lines.find((l) => l.startsWith('  WARNING: KV-bound: '));
  assert.ok(warning, `the CLI names the finding:\n${native.lines.join('\n')}`);
  const words = warning.slice('  WARNING: '.length);
  // Its numbers, from the CLI's JSON: 9 blocks = ceil((4096 + 256) / 512) hold 1 to a 16-block
  // cache; the batch and the wait share are the fleet's, from the per-replica figures.
  const rows = native.report.per_instance;
  const wait = rows.reduce((a, p) => a + p.kv_wait_share, 0) / rows.length;
  const batch = rows.reduce((a, p) => a + p.batch_mean * p.busy_share, 0) / rows.reduce((a, p) => a + p.busy_share, 0);
  assert.ok(words.includes('not the 256 batch slots'), words);
  assert.ok(words.includes('A 16-block cache holds 1 request of 9 blocks'), words);
  assert.ok(words.includes(`a busy replica ran ${batch.toFixed(1)} requests at once on average`), words);
  assert.ok(words.includes(`a replica spent ${Math.round(100 * wait)}% of the run`), words);
  assert.ok(wait > 0.5 && batch < 2, `${wait} ${batch}`);

  const { page, errors, context, report } = await open(SMALL);
  try {
    assert.equal(report.summary.ttft_ms_p50, native.report.summary.ttft_ms_p50, 'the page ran what the CLI ran');
    const hero = await page.textContent('[data-testid=hero-finding-kv_bound]');
    assert.equal(hero, `⚠ KV-bound: ${words.slice('KV-bound: '.length)}`);
    const block = page.locator('[data-testid=finding-kv_bound]');
    assert.match(await block.locator('strong').textContent(), /^⚠ KV-bound: /);
    assert.equal(await block.locator('p').textContent(), words);

    // The capture figure: picks found more than admissions reused, and why, in the CLI's counts.
    const s = native.report.summary;
    assert.ok(s.pick_hit_blocks > s.cached_blocks && s.evicted_after_pick_blocks > 0, JSON.stringify(s));
    const capture = await page.textContent('[data-testid=fig-capture]');
    assert.ok(capture.includes(`picks found ${n(s.pick_hit_blocks)} of the ${n(s.best_hit_blocks)} blocks the best-placed replica held; `
      + `evictions while requests waited cost ${n(s.evicted_after_pick_blocks)} of them, and admissions reused ${n(s.cached_blocks)}`), capture);
    const note = await page.textContent('[data-testid=fleet-note]');
    assert.ok(note.includes(`${n(s.cached_blocks)} of ${n(s.prompt_blocks)} prompt blocks came from a cache`), note);
    await page.locator('[data-testid=finding-kv_bound]').scrollIntoViewIfNeeded();
    await screenshot(page, 'kv-bound', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('ten times the cache: no KV-bound finding, and picks and admissions agree without a clause', async () => {
  const big = { ...SMALL, kv_blocks: 160 };
  const native = cli(big);
  assert.equal(native.lines.some((l) => l.includes('KV-bound')), false);
  const { page, errors, context, report } = await open(big);
  try {
    assert.deepEqual(report.findings.map((f) => f.kind), native.report.findings.map((f) => f.kind));
    assert.equal(await page.locator('[data-testid=hero-finding-kv_bound]').count(), 0);
    assert.equal(await page.locator('[data-testid=finding-kv_bound]').count(), 0);
    const s = report.summary;
    assert.equal(s.pick_hit_blocks, s.cached_blocks);
    const capture = await page.textContent('[data-testid=fig-capture]');
    assert.ok(capture.includes(`picks found ${n(s.pick_hit_blocks)} of the ${n(s.best_hit_blocks)} blocks the best-placed replica held`), capture);
    assert.equal(capture.includes('evictions while requests waited'), false, capture);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a link without admission runs preempt: the control reads it, and the small cache preempts as the CLI\'s does; admission=reserve keeps reserving', async () => {
  // SMALL names no admission rule, on the page and on the command line: both run the default.
  assert.equal('admission' in SMALL, false);
  const native = cli(SMALL);
  const line = native.lines.find((l) => l.startsWith('  Preemptions (admission=preempt): '));
  const p = native.report.summary.preemption;
  assert.ok(line && p.preemptions > 0, native.lines.join('\n'));
  const { page, errors, context, report } = await open(SMALL);
  try {
    const control = page.locator('[data-testid=input-admission]');
    assert.equal(await control.inputValue(), 'preempt');
    assert.deepEqual(await control.locator('option').allTextContents(), ['preempt', 'reserve']);
    assert.deepEqual(report.summary.preemption, p);
    assert.deepEqual(report.per_instance.map((r) => r.preemption), native.report.per_instance.map((r) => r.preemption));
    // The fleet lines' box ends with the CLI's preemption line, word for word.
    const box = await page.locator('[data-testid=fleet-lines]').textContent();
    assert.ok(box.split('\n').includes(line), `${box}\n--- the CLI's: ${line}`);
    await page.locator('[data-testid=fleet-lines]').scrollIntoViewIfNeeded();
    await screenshot(page, 'kv-preempt', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }

  const reserve = { ...SMALL, admission: 'reserve' };
  const old = cli(reserve);
  assert.equal(old.report.summary.preemption, undefined);
  const r = await open(reserve);
  try {
    assert.equal(await r.page.locator('[data-testid=input-admission]').inputValue(), 'reserve');
    assert.equal(r.report.summary.preemption, undefined);
    assert.equal(r.report.summary.ttft_ms_p50, old.report.summary.ttft_ms_p50, 'the page ran what the CLI ran');
    const box = await r.page.locator('[data-testid=fleet-lines]').textContent();
    assert.equal(box.includes('Preemptions'), false, box);
    assert.deepEqual(r.errors, []);
  } finally { await r.context.close(); }
});

test('the small cache with a CPU tier: the control reads it, and the tier serves hits as the CLI\'s does', async () => {
  const tier = { ...SMALL, cpu_kv_blocks: 512 };
  const native = cli(tier);
  const line = native.lines.find((l) => l.startsWith('  CPU tier: '));
  const t = native.report.summary.cpu_tier;
  assert.ok(line && t.cpu_hit_tokens > 0 && t.loads > 0, native.lines.join('\n'));
  // Any tier's hits count in the token hit rate: more than the same cache without the tier.
  assert.ok(native.report.summary.cached_tokens > cli(SMALL).report.summary.cached_tokens);
  const { page, errors, context, report } = await open(tier);
  try {
    // The KV cache group's control shows the tier's size (the slider's readout, in blocks).
    assert.equal(await page.locator('[data-testid=field-cpu_kv_blocks]').count(), 1);
    assert.match(await page.textContent('[data-testid=readout-cpu_kv_blocks]'), /^512 blocks$/);
    assert.deepEqual(report.summary.cpu_tier, t);
    assert.deepEqual(report.per_instance.map((r) => r.cpu_tier), native.report.per_instance.map((r) => r.cpu_tier));
    const box = await page.locator('[data-testid=fleet-lines]').textContent();
    assert.ok(box.split('\n').includes(line), `${box}\n--- the CLI's: ${line}`);
    await page.locator('[data-testid=fleet-lines]').scrollIntoViewIfNeeded();
    await screenshot(page, 'kv-cpu-tier', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the small cache with a CPU tier and a shared tier the router sees: the controls read them, the figures and line are the CLI\'s, and the hit chart splits per tier', async () => {
  const tiers = { ...SMALL, cpu_kv_blocks: 64, shared_kv_blocks: 512, router_tiers: 'all' };
  const native = cli(tiers);
  const line = native.lines.find((l) => l.startsWith('  Shared tier: '));
  const t = native.report.summary.shared_tier;
  assert.ok(line && t.shared_hit_tokens > 0 && t.loads > 0, native.lines.join('\n'));
  // The router that counts the tiers caches more than the one that sees HBM only.
  assert.ok(native.report.summary.cached_tokens > cli({ ...tiers, router_tiers: 'hbm' }).report.summary.cached_tokens);
  // Each replica's bar, split: its share of prompt tokens from HBM, its CPU tier and the pool.
  const want = native.report.per_instance.map((r) => [r.shared_tier.hbm_hit_tokens, r.shared_tier.cpu_hit_tokens, r.shared_tier.shared_hit_tokens]
    .map((tok) => (100 * tok) / r.prompt_tokens));
  const { page, errors, context, report } = await open(tiers);
  try {
    assert.equal(await page.locator('[data-testid=field-shared_kv_blocks]').count(), 1);
    assert.match(await page.textContent('[data-testid=readout-shared_kv_blocks]'), /^512 blocks$/);
    assert.equal(await page.locator('[data-testid=input-router_tiers]').inputValue(), 'all');
    assert.equal(await page.locator('[data-testid=field-shared_gbps]').count(), 1);
    assert.deepEqual(report.summary.shared_tier, t);
    assert.deepEqual(report.per_instance.map((r) => r.shared_tier), native.report.per_instance.map((r) => r.shared_tier));
    const box = await page.locator('[data-testid=fleet-lines]').textContent();
    assert.ok(box.split('\n').includes(line), `${box}\n--- the CLI's: ${line}`);
    // An off-screen chart holds the new data and draws (legend included) once it comes into view.
    await page.locator('[data-testid=chart-hit]').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hit]'))?.legend?.legendItems?.length > 1,
      null, { timeout: 10000 }).catch(() => {});
    const chart = await page.evaluate(() => {
      const ch = window.Chart.getChart(document.querySelector('[data-testid=chart-hit]'));
      return { data: ch.data.datasets.map((d) => d.data), hidden: ch.data.datasets.map((d) => !!d.hidden), legend: ch.legend.legendItems.map((i) => i.text) };
    });
    assert.deepEqual(chart.hidden, [false, false, false]);
    assert.deepEqual(chart.legend, ['HBM', 'CPU tier', 'Shared tier']);
    want.forEach((w, i) => w.forEach((v, k) => assert.ok(Math.abs(chart.data[k][i] - v) < 1e-9, `replica ${i} tier ${k}: ${chart.data[k][i]} != ${v}`)));
    await screenshot(page, 'kv-shared-tier', { fullPage: false });
    await page.locator('[data-testid=field-shared_kv_blocks]').scrollIntoViewIfNeeded();
    await screenshot(page, 'kv-shared-tier-controls', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

// tests/e2e/embed-sweep.test.mjs: ?embed=1&show=sweep, the sweep panel's figure in a frame. At 640x500
// and 360x500 the P:D preset draws both charts with data, never scrolls and nothing overflows; its
// points equal the native CLI's --des-sweep CSV (exact floats) and the sentence names the split with
// the lowest p99 TTFT as the CLI finds it; a NAME=VALUES spec with sweep_routing= draws one line per
// policy, equal to the CLI; a control re-runs the sweep; a bad sweep= or sweep_routing= falls back
// with a note naming what is allowed.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, ROOT, nativeBin } from './harness.mjs';

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** The native CLI's sweep CSV as rows of {param, value, ...numbers}. */
function cliSweep(spec, extra) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-embed-sweep-')), 'sweep.csv');
  execFileSync(nativeBin(), ['--des-sweep', spec, ...extra, '--des-sweep-csv', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [head, ...lines] = readFileSync(out, 'utf8').trim().split('\n');
  const keys = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((c, i) => [keys[i], i < 2 ? c : Number(c)])));
}

// The P:D preset's workload (sweep-presets.js), as CLI flags.
const PD_FLAGS = ['--des-instances', '8', '--request-rate', '24', '--des-num-requests', '2000', '--des-routing', 'kv'];

/** Every element whose content is wider or taller than its own box, or that sticks out of the frame. */
function overflowing() {
  const bad = [];
  const W = window.innerWidth, H = window.innerHeight;
  for (const el of document.querySelectorAll('#embed, #embed *')) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    if (r.right > W + 0.5 || r.bottom > H + 0.5 || r.left < -0.5 || r.top < -0.5) bad.push(`${name} outside the frame`);
    if (cs.display !== 'inline' && el.tagName !== 'CANVAS' && el.clientWidth > 0) {
      if (el.scrollWidth > el.clientWidth + 1) bad.push(`${name} content ${el.scrollWidth}px wide in ${el.clientWidth}px`);
      if (el.scrollHeight > el.clientHeight + 1 && cs.overflowY !== 'visible') bad.push(`${name} content ${el.scrollHeight}px tall in ${el.clientHeight}px`);
    }
  }
  return bad;
}

/** Opens an embed and waits for its first drawn sweep (and the sentence under it). */
async function openSweep(query, width = 640, height = 500) {
  const { page, errors, context } = await site.open(`/?embed=1&show=sweep&${query}`, { viewport: { width, height } });
  await page.waitForFunction(() => (window.kvfleet?.lastSweep?.seq ?? 0) > 0
    && document.querySelector('[data-testid=embed-sentence]').textContent.trim().length > 0, null, { timeout: 120000 });
  return { page, errors, close: () => context.close(), last: () => page.evaluate(() => window.kvfleet.lastSweep) };
}

const points = (page) => page.evaluate(() => [...document.querySelectorAll('#embed canvas')].map((c) => {
  const ch = window.Chart.getChart(c);
  return ch ? ch.data.datasets.reduce((n, d) => n + d.data.filter((v) => Number.isFinite(v)).length, 0) : 0;
}));

const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

for (const [w, h] of [[640, 500], [360, 500]]) {
  test(`show=sweep&sweep=pd at ${w}x${h}: both charts have data, no scrolling, nothing overflows`, async () => {
    const { page, errors, close: done } = await openSweep(`sweep=pd&caption=${encodeURIComponent('Figure 2. P:D at 8 GPUs.')}`, w, h);
    try {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const { scroll, inner, sw, cw } = await page.evaluate(() => ({ scroll: document.documentElement.scrollHeight, inner: innerHeight,
        sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth }));
      assert.ok(scroll <= inner && sw <= cw, `no scrollbars: ${sw}x${scroll} in ${cw}x${inner}`);
      assert.deepEqual(await page.evaluate(overflowing), []);
      const pts = await points(page);
      assert.equal(pts.length, 2, 'two charts');
      // TPOT and TTFT: p99 and p50 of 7 splits, and the colocated reference line, on each.
      assert.ok(pts.every((n) => n >= 21), `every chart has data: ${pts}`);
      for (const c of await page.$$('#embed canvas')) assert.ok((await c.boundingBox()).height >= 100, 'each chart at least 100 px tall');
      assert.match(await page.textContent('[data-testid="embed-caption"]'), /^Figure 2\. P:D at 8 GPUs\. kv: lowest p99 TTFT/);
      await screenshot(page, `embed-sweep-pd-${w}x${h}`, { fullPage: false });
      assert.deepEqual(errors, []);
    } finally { await done(); }
  });
}

test('show=sweep&sweep=pd equals the CLI\'s --des-sweep prefill-instances=1:7 at 8 replicas; the sentence names its lowest p99 TTFT; a control re-runs it', async () => {
  const cli = cliSweep('prefill-instances=1:7', PD_FLAGS);
  const colocated = cliSweep('instances=8', PD_FLAGS)[0];
  const { page, errors, close: done, last } = await openSweep('sweep=pd');
  try {
    const sw = await last();
    assert.equal(sw.param, 'prefill_instances');
    assert.equal(sw.series.length, 1);
    assert.equal(sw.series[0].routing, 'kv');
    const pts = sw.series[0].points;
    assert.deepEqual(pts.map((p) => String(p.value)), cli.map((r) => r.value));
    for (const [i, r] of cli.entries()) {
      for (const k of ['ttft_ms_p99', 'ttft_ms_p50', 'tpot_ms_p99', 'hit_rate_requests']) {
        assert.ok(close(pts[i].summary[k], r[k]), `P=${r.value} ${k}: page ${pts[i].summary[k]}, CLI ${r[k]}`);
      }
    }
    assert.ok(close(sw.reference.summary.ttft_ms_p99, colocated.ttft_ms_p99), 'the colocated reference equals the CLI at 8 replicas');
    // The splits whose p99 TTFT is the lowest (equal within 0.1 %), as the CLI finds them.
    const low = Math.min(...cli.map((r) => r.ttft_ms_p99));
    const best = cli.filter((r) => r.ttft_ms_p99 <= low * 1.001).map((r) => r.value);
    const sentence = await page.textContent('[data-testid=embed-sentence]');
    const named = /lowest p99 TTFT at prefill_instances = ([\d, and]+?)(?: tie)? \(/.exec(sentence);
    assert.ok(named, sentence);
    assert.deepEqual(named[1].split(/, | and /), best, sentence);
    // A control re-runs the sweep at its new value.
    const seq = sw.seq;
    await page.focus('[data-testid="embed-input-request_rate"]');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((n) => window.kvfleet.lastSweep.seq > n, seq, { timeout: 120000 });
    const again = await last();
    const rate = again.series[0].points[0].config.request_rate;
    assert.ok(rate < 24, `the sweep ran at the control's rate: ${rate}`);
    assert.ok(again.series[0].points.every((p) => p.config.request_rate === rate && p.config.instances === 8));
    assert.deepEqual(errors, []);
  } finally { await done(); }
});

test('show=sweep with a CLI-style spec and sweep_routing= draws one line per policy, equal to the CLI', async () => {
  const { page, errors, close: done, last } = await openSweep('sweep=instances=1,2,4&sweep_routing=round_robin,kv');
  try {
    const sw = await last();
    assert.deepEqual(sw.series.map((s) => s.routing), ['round_robin', 'kv']);
    const sentence = await page.textContent('[data-testid=embed-sentence]');
    for (const se of sw.series) {
      const cli = cliSweep('instances=1,2,4', ['--des-routing', se.routing]);
      assert.deepEqual(se.points.map((p) => String(p.value)), cli.map((r) => r.value));
      for (const [i, r] of cli.entries()) assert.ok(close(se.points[i].summary.ttft_ms_p99, r.ttft_ms_p99), `${se.routing} ${r.value}`);
      // The sentence gives each line's token hit rate at the first and last value, as the CLI measures it.
      const at = (r) => `${(r.hit_rate_tokens * 100).toFixed(1)}% at ${r.value}`;
      assert.ok(sentence.includes(`${se.routing}: prompt tokens from cache ${at(cli[0])}, ${at(cli[2])}; lowest p99 TTFT at instances = `), sentence);
    }
    assert.equal(await page.textContent('[data-testid="url-notes"]').then((t) => t.trim()), '');
    assert.deepEqual(errors, []);
  } finally { await done(); }
});

test('a bad sweep= or sweep_routing= falls back with a note naming what is allowed', async () => {
  for (const [query, note] of [
    ['sweep=nope=1:3', /Unknown sweep=“nope=1:3”; allowed: a preset \(.*pd.*\) or NAME=VALUES.*Showing the pd sweep/],
    ['sweep=kv_blocks=abc', /The link's sweep: .*kv_blocks.*abc.*; allowed: .*Showing the pd sweep/],
    ['sweep=pd&sweep_routing=bogus', /Unknown sweep_routing=“bogus”; allowed: current, all, or policies from .*round_robin/],
  ]) {
    const { page, errors, close: done, last } = await openSweep(query);
    try {
      assert.match(await page.textContent('[data-testid="url-notes"]'), note, query);
      const sw = await last();
      assert.equal(sw.param, 'prefill_instances', `${query}: the pd sweep is drawn`);
      assert.deepEqual(sw.series.map((s) => s.routing), ['kv']);
      assert.ok((await points(page)).every((n) => n > 0));
      assert.doesNotMatch(await page.textContent('[data-testid="url-notes"]'), /unknown setting in the link/);
      assert.deepEqual(errors, []);
    } finally { await done(); }
  }
});

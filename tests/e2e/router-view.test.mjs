// tests/e2e/router-view.test.mjs: "what the router knows" in real Chromium. The settings group is built
// from the simulator's parameter table and shows refresh and lag only for a snapshot; a run under every
// view equals the native CLI's report; the staleness preset draws load spread and p99 TTFT against the
// refresh interval for 1 and 4 routers, equal to the CLI's sweep CSV; the decision table shows, per
// candidate, what the router saw and the truth, equal to the CLI's --des-decisions records; its range
// follows the run loaded (the last request of a 12,031-request trace) and keeps a range the reader typed.
// Screenshots: the group, the table (light, dark, 360 px), the staleness sweep.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, ROOT, settledUrl, nativeBin } from './harness.mjs';

const BIN = nativeBin();
const ROUTER_PARAMS = ['router_view', 'router_refresh_ms', 'kv_event_lag_ms', 'router_predict_ttl_ms', 'routers'];
const BURSTY = ['--arrival-model', 'gamma', '--des-burstiness', '0.1', '--request-rate', '30', '--des-num-requests', '2000',
  '--des-instances', '8', '--des-num-prefixes', '32'];
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

function tmp(name) { return path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-view-')), name); }

function cli(args) { execFileSync(BIN, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] }); }

function cliReport(args) {
  const out = tmp('report.json');
  cli([...args, '--des-report-json', out]);
  return JSON.parse(readFileSync(out, 'utf8'));
}

function cliDecisions(args) {
  const out = tmp('decisions.jsonl');
  cli([...args, '--des-decisions', out]);
  return readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

function cliSweep(spec, extra) {
  const out = tmp('sweep.csv');
  cli(['--des-sweep', spec, ...extra, '--des-sweep-csv', out]);
  const [head, ...lines] = readFileSync(out, 'utf8').trim().split('\n');
  const keys = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((c, i) => [keys[i], i < 2 ? c : Number(c)])));
}

async function openPage(where, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height }, colorScheme });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

const runCount = (page) => page.evaluate(() => window.kvfleet.runCount);
const waitForRun = (page, n) => page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 30000 });
const shown = (page, name) => page.isVisible(`[data-testid="field-${name}"]`);

test('the "what the router knows" group is built from the parameter table; refresh and lag show for a snapshot only', async () => {
  const { page, errors, close } = await openPage('/?routing=kv');
  try {
    const group = page.locator('#group-router');
    assert.equal(await group.locator('summary').textContent(), 'Advanced: what the router knows');
    assert.equal(await group.getAttribute('open'), null, 'closed by default: the first screen is unchanged');
    await page.evaluate(() => { document.getElementById('group-router').open = true; });
    const labels = await page.evaluate((names) => names.map((n) => document.querySelector(`[data-testid="field-${n}"] label, [data-testid="field-${n}"] legend`)?.textContent), ROUTER_PARAMS);
    assert.deepEqual(labels, ['Router view', 'Refresh interval', 'KV event lag', 'Predict on route', 'Routers']);
    assert.deepEqual(await Promise.all(ROUTER_PARAMS.map((n) => shown(page, n))), [true, false, false, true, true]);

    let n = await runCount(page);
    await page.selectOption('[data-testid="input-router_view"]', 'snapshot');
    await waitForRun(page, n);
    assert.deepEqual(await Promise.all(ROUTER_PARAMS.map((x) => shown(page, x))), [true, true, true, true, true]);
    assert.equal(new URL(await settledUrl(page)).searchParams.get('router_view'), 'snapshot');
    assert.equal(await page.textContent('[data-testid="readout-router_refresh_ms"]'), '50 ms', "llm-d's default");
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    assert.equal(report.config.router_view, 'snapshot');
    assert.deepEqual(report.summary, cliReport(['--des-router-view', 'snapshot']).summary, 'the snapshot run equals the CLI');

    n = await runCount(page);
    await page.selectOption('[data-testid="input-router_view"]', 'offline');
    await waitForRun(page, n);
    assert.deepEqual(await Promise.all(ROUTER_PARAMS.map((x) => shown(page, x))), [true, false, false, false, true]);
    const offline = await page.evaluate(() => window.kvfleet.lastReport);
    assert.deepEqual(offline.summary, cliReport(['--des-router-view', 'offline']).summary);
    assert.equal(offline.summary.hit_rate_requests, 0.89, "the seed's method on the seed's example: 89.0%");
    await group.scrollIntoViewIfNeeded();
    await group.screenshot({ path: path.join(ROOT, 'test-results', 'router-view-group.png') });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('four routers on a stale snapshot: the page run equals the CLI', async () => {
  const url = '/?routing=kv&router_view=snapshot&routers=4&router_refresh_ms=100&kv_event_lag_ms=20&router_predict_ttl_ms=200'
    + '&arrival_model=gamma&burstiness=0.1&request_rate=30&num_requests=2000&instances=8&num_prefixes=32';
  const { page, errors, close } = await openPage(url);
  try {
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    const native = cliReport(['--des-router-view', 'snapshot', '--des-routers', '4', '--des-router-refresh-ms', '100',
      '--des-kv-event-lag-ms', '20', '--des-router-predict-ttl-ms', '200', ...BURSTY]);
    assert.deepEqual(report.summary, native.summary);
    assert.deepEqual(report.per_instance, native.per_instance);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the staleness preset plots load spread and p99 TTFT against the refresh interval for 1 and 4 routers, equal to the CLI', async () => {
  const spec = 'router-refresh-ms=0,10,50,100,500';
  const base = ['--des-routing', 'kv', '--des-router-view', 'snapshot', ...BURSTY];
  const one = cliSweep(spec, [...base, '--des-routers', '1']);
  const four = cliSweep(spec, [...base, '--des-routers', '4']);
  const { page, errors, close } = await openPage('/');
  try {
    const before = await page.evaluate(() => window.kvfleet.lastSweep?.seq ?? 0);
    await page.click('[data-testid="sweep-preset-staleness"]');
    await page.waitForFunction((k) => (window.kvfleet.lastSweep?.seq ?? 0) > k, before, { timeout: 120000 });
    const sw = await page.evaluate(() => window.kvfleet.lastSweep);
    assert.equal(sw.preset, 'staleness');
    assert.equal(sw.param, 'router_refresh_ms');
    assert.deepEqual(sw.metrics, ['spread', 'ttft']);
    assert.deepEqual(sw.series.map((s) => s.label), ['1 router', '4 routers']);
    for (const [s, rows] of [[sw.series[0], one], [sw.series[1], four]]) {
      assert.equal(s.points.length, rows.length);
      s.points.forEach((p, i) => {
        assert.equal(Number(p.value), Number(rows[i].value));
        for (const k of ['load_spread', 'ttft_ms_p99', 'ttft_ms_p50', 'hit_rate_requests']) {
          assert.ok(p.summary[k] === rows[i][k], `${s.label} refresh ${rows[i].value}: ${k} page ${p.summary[k]} !== CLI ${rows[i][k]}`);
        }
        assert.equal(p.config.routers, s.label === '1 router' ? 1 : 4);
      });
    }
    // Four routers herd: at 500 ms their p99 is above one router's (2.51 s against 1.81 s, seed 42).
    assert.ok(four.at(-1).ttft_ms_p99 > one.at(-1).ttft_ms_p99);
    const charts = await page.evaluate(() => ['sweep-chart', 'sweep-ttft'].map((id) => {
      const c = window.Chart.getChart(document.querySelector(`[data-testid="${id}"]`));
      return { y: c.options.scales.y.title.text, sets: c.data.datasets.map((d) => ({ label: d.label, data: d.data, dash: d.borderDash })) };
    }));
    assert.equal(charts[0].y, 'Load spread');
    assert.deepEqual(charts[0].sets.map((d) => d.label), ['1 router', '4 routers']);
    assert.deepEqual(charts[0].sets[1].data, four.map((r) => r.load_spread));
    assert.deepEqual(charts[1].sets[0].data, one.map((r) => r.ttft_ms_p99));
    assert.notDeepEqual(charts[0].sets[0].dash, charts[0].sets[1].dash, 'the two lines are told apart by dash');
    assert.match(await page.textContent('#sweep-cap-1'), /Load spread.*1 router solid, 4 routers dashed/);
    assert.match(await page.textContent('[data-testid="sweep-status"]'), /Staleness: kv on a snapshot view, bursty traffic/);
    // Changing the form by hand leaves the preset's own lines.
    await page.selectOption('[data-testid="sweep-param"]', 'overlap_weight');
    assert.equal(await page.inputValue('[data-testid="sweep-series"]'), 'current');
    await page.locator('[data-testid="sweep"]').screenshot({ path: path.join(ROOT, 'test-results', 'router-view-staleness.png') });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the decision table shows what the router saw beside the truth, as the CLI logs it', async () => {
  const flags = ['--des-router-view', 'snapshot', '--des-routers', '4', '--des-router-refresh-ms', '100', '--arrival-model', 'gamma',
    '--des-burstiness', '0.3', '--des-num-requests', '400', '--des-instances', '8'];
  const native = cliDecisions(flags);
  const url = '/?routing=kv&router_view=snapshot&routers=4&router_refresh_ms=100&arrival_model=gamma&burstiness=0.3&num_requests=400&instances=8';
  for (const [name, opts] of [['light', {}], ['dark', { colorScheme: 'dark' }], ['360', { width: 360, height: 780 }]]) {
    const { page, errors, close } = await openPage(url, opts);
    try {
      await page.fill('[data-testid="dec-from"]', '40');
      await page.fill('[data-testid="dec-to"]', '59');
      await page.fill('[data-testid="dec-count"]', '5');
      await page.click('[data-testid="dec-show"]');
      await page.waitForFunction(() => window.kvfleet.lastDecisions, null, { timeout: 60000 });
      const got = await page.evaluate(() => window.kvfleet.lastDecisions);
      assert.equal(got.first, 55, 'the last 5 of requests 40 to 59');
      assert.deepEqual(got.records, native.slice(55, 60), 'the records are the CLI\'s');
      const rows = page.locator('[data-testid="dec-table"] tbody tr');
      assert.equal(await rows.count(), 5 * 8);
      // One chosen row per request; a stale cell for every value the router saw wrong.
      assert.equal(await page.locator('[data-testid="dec-table"] tr.chosen').count(), 5);
      const wrong = native.slice(55, 60).flatMap((d) => d.candidates)
        .reduce((a, c) => a + ['hit_blocks', 'active_blocks', 'waiting', 'running'].filter((k) => c[k] !== c[`true_${k}`]).length, 0);
      assert.ok(wrong > 0, 'a 100 ms snapshot is wrong somewhere in these five decisions');
      assert.equal(await page.locator('[data-testid="dec-table"] td.stale').count(), wrong);
      const first = native[55].candidates.find((c) => c.active_blocks !== c.true_active_blocks);
      if (first) {
        const cell = page.locator(`[data-testid="dec-table"] tr[data-request="55"][data-replica="${first.replica}"] td.stale`).first();
        assert.match(await cell.textContent(), new RegExp(`^${first.active_blocks} true ${first.true_active_blocks}$`));
      }
      assert.match(await page.textContent('[data-testid="dec-status"]'), /Requests 55 to 59 · kv routing, view snapshot \(refresh 100 ms/);
      await page.locator('[data-testid="decisions"]').scrollIntoViewIfNeeded();
      await screenshot(page, `router-view-decisions-${name}`, { fullPage: false });
      // A new run keeps the table in step: one router, live.
      const n = await runCount(page);
      await page.evaluate(() => { document.getElementById('group-router').open = true; });
      const seq = got.seq;
      await page.selectOption('[data-testid="input-router_view"]', 'exact');
      await waitForRun(page, n);
      await page.waitForFunction((k) => window.kvfleet.lastDecisions.seq > k, seq, { timeout: 60000 });
      assert.equal(await page.locator('[data-testid="dec-table"] td.stale').count(), 0, 'the exact view is never wrong');
      if (name === 'light') {
        await page.fill('[data-testid="dec-to"]', '3');
        await page.click('[data-testid="dec-show"]');
        await page.waitForSelector('[data-testid="dec-error"]:not([hidden])');
        assert.match(await page.textContent('[data-testid="dec-error"]'), /“To” must be a whole number from 40/);
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${name}: no horizontal page scroll (${overflow}px)`);
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

test('the decision range follows the run loaded: the last request of a 12,031-request trace, a range the reader typed kept', async () => {
  // Natively: the opening run's requests and the conversation trace's.
  const synthetic = cliReport([]).summary.requests;
  const trace = cliReport(['--des-mooncake-trace', 'data/mooncake/conversation_trace.jsonl']).summary.requests;
  assert.equal(trace, 12031);
  const { page, errors, close } = await openPage('/');
  try {
    const range = () => page.evaluate(() => ['dec-from', 'dec-to'].map((id) => document.querySelector(`[data-testid="${id}"]`).value));
    assert.deepEqual(await range(), ['0', String(synthetic - 1)]);
    // The trace loaded: "to" moves to its last request.
    let n = await runCount(page);
    await page.click('[data-testid="trace-conversation"]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k && window.kvfleet.lastReport.source === 'conversation_trace.jsonl', n, { timeout: 120000 });
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.summary.requests), trace);
    assert.deepEqual(await range(), ['0', String(trace - 1)]);
    assert.equal(await page.getAttribute('[data-testid="dec-to"]', 'max'), String(trace - 1));
    await page.click('[data-testid="dec-show"]');
    await page.waitForFunction(() => window.kvfleet.lastDecisions, null, { timeout: 120000 });
    const got = await page.evaluate(() => window.kvfleet.lastDecisions);
    const count = Number(await page.inputValue('[data-testid="dec-count"]'));
    assert.equal(got.first, trace - count, 'the last decisions of the trace');
    assert.deepEqual(got.records.map((d) => d.id), Array.from({ length: count }, (_, i) => trace - count + i));
    assert.match(await page.textContent('[data-testid="dec-status"]'), new RegExp(`^Requests ${trace - count} to ${trace - 1} `));
    // A range the reader typed stays; past the end of a shorter run it is cut to that run's last request.
    await page.fill('[data-testid="dec-from"]', '150');
    await page.fill('[data-testid="dec-to"]', '5000');
    n = await runCount(page);
    await page.click('#source-reset');
    await page.waitForFunction(([k, want]) => window.kvfleet.runCount > k && window.kvfleet.lastReport.summary.requests === want, [n, synthetic], { timeout: 60000 });
    assert.deepEqual(await range(), ['150', String(synthetic - 1)]);
    await page.fill('[data-testid="dec-to"]', '170');
    n = await runCount(page);
    await page.click('[data-testid="trace-conversation"]');
    await waitForRun(page, n);
    await page.waitForFunction(() => window.kvfleet.lastReport.source === 'conversation_trace.jsonl', null, { timeout: 120000 });
    assert.deepEqual(await range(), ['150', '170'], 'the reader\'s range is kept');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

// tests/e2e/calibrate.test.mjs: "Calibrate the engine to your GPU" in real Chromium. The sample step
// log fitted in the page's worker gives, to the bit, the JSON `kvfleet calibrate --calibrate-json`
// writes for it (tests/golden/calibrate_sample.json, which tests/calibrate.rs checks against the
// CLI), and the table shows the CLI's figures; a log without decode-only steps shows the fit's
// warning; a bad log shows the simulator's message with its line and keeps the last fit on screen;
// the faster GPU's sample fits as the CLI fits it, and the planner's answers on the page's preset and
// on that fit are each the CLI's `kvfleet plan` (the fit's with --des-engine-file), the fit needing
// fewer replicas; "Use this fit as the engine" puts the four coefficients into the page's config and
// its link. A polynomial fit (of a log timed by Dynamo's mocker) used as the engine runs as the CLI
// runs it with --des-engine-file, the settings panel shows its phases, and its link reproduces the
// run; a phase the engine refuses keeps the run on screen, and bad phases in a link are each named in
// a note. The fit by simulation of the sample request log, run over
// the page's workers, is the CLI's `--calibrate-json` for the same start and budget; Cancel keeps the
// best so far; a bad request log shows its line and keeps the last fit. Screenshots: the panel at
// 1280 px and at 360 px.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { startSite, ROOT, RESULTS, settledUrl, nativeBin } from './harness.mjs';

const GOLDEN = JSON.parse(readFileSync(path.join(ROOT, 'tests/golden/calibrate_sample.json'), 'utf8'));
let site;

before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

async function openPage({ width = 1280, height = 900 } = {}) {
  const { page, errors, context } = await site.open('/', { viewport: { width, height } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

/** Clicks `what` (a selector) or sets the file input to `file`, and waits for a new fit or an error. */
async function fitBy(page, { click, file }) {
  const before = await page.evaluate(() => window.kvfleet.lastCalibration?.id ?? 0);
  await page.evaluate(() => { document.querySelector('[data-testid=cal-error]').hidden = true; });
  if (click) await page.click(click);
  else await page.setInputFiles('[data-testid=cal-file]', file);
  await page.waitForFunction((b) => (window.kvfleet.lastCalibration?.id ?? 0) !== b
    || !document.querySelector('[data-testid=cal-error]').hidden, before, { timeout: 30000 });
}

/** `kvfleet calibrate FILE ARGS --calibrate-json OUT`'s fit. */
function cliFit(file, args) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-cal-')), 'fit.json');
  execFileSync(nativeBin(), ['calibrate', file, ...args, '--calibrate-json', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** `kvfleet plan -q ARGS --plan-json OUT`'s plan. */
function cliPlan(args) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-cal-')), 'plan.json');
  execFileSync(nativeBin(), ['plan', '-q', ...args, '--plan-json', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** A screenshot of the panel alone, into test-results/. */
async function shoot(page, name) {
  await mkdir(RESULTS, { recursive: true });
  await page.locator('[data-testid=calibrate]').screenshot({ path: path.join(RESULTS, `${name}.png`) });
}

function tmpFile(name, text) {
  const p = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-cal-')), name);
  writeFileSync(p, text);
  return p;
}

test('the sample fitted in the page is the CLI fit; warnings, errors, the fit as the engine, and the plans', async () => {
  const { page, errors, close } = await openPage();
  try {
    await page.locator('[data-testid=calibrate]').scrollIntoViewIfNeeded();
    await fitBy(page, { click: '[data-testid=cal-sample]' });
    const got = await page.evaluate(() => window.kvfleet.lastCalibration);
    assert.ok(got, await page.textContent('[data-testid=cal-error]'));
    assert.deepEqual(got.fit, GOLDEN, 'the page fit of the sample equals `kvfleet calibrate --calibrate-json`');
    const rows = await page.$$eval('[data-testid=cal-table] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    // Each coefficient to the precision its error supports (the error to two significant digits,
    // the value to the same place), the unit under the name; the CLI's exact figures in the tooltip.
    assert.deepEqual(rows, [
      ['step_fixed_us µs', '5,847', '210'],
      ['prefill_token_us µs/token', '32.023', '0.042'],
      ['decode_seq_us µs/sequence', '17.6', '2.0'],
      ['kv_read_token_ns ns/token', '49.69', '0.36'],
    ]);
    const tips = await page.$$eval('[data-testid=cal-table] tbody tr td:first-of-type', (tds) => tds.map((td) => td.title));
    assert.deepEqual(tips, GOLDEN.coefficients.map((c) => `Exact: ${c.value.toFixed(6)} ± ${c.se.toFixed(6)} ${c.unit}`));
    const head = await page.textContent('[data-testid=cal-headline]');
    assert.ok(head.includes(`R² ${GOLDEN.r2.toFixed(6)}, RMS residual ${GOLDEN.rmse_us.toFixed(1)} µs over 600 steps`), head);
    assert.match(await page.textContent('[data-testid=cal-status]'), /generated from the llama3-8b-h100 preset .* not measured/);

    // No decode-only steps: the fit says d0 and c0 cannot be told apart (the CLI's warning).
    const mixed = ['prefill_tokens,decode_seqs,kv_tokens_read,step_us'];
    for (let i = 1; i <= 30; i++) mixed.push(`${100 * i},${i % 7 + 1},${1000 * (i % 5 + 1)},${6000 + 32 * 100 * i + 20 * (i % 7 + 1) + 49 * (i % 5 + 1) + (i % 3) * 50}`);
    await page.selectOption('[data-testid=cal-form]', 'polynomial');
    const mixedFile = tmpFile('mixed.csv', mixed.join('\n'));
    await fitBy(page, { file: mixedFile });
    const warn = await page.textContent('[data-testid=cal-warnings]');
    assert.match(warn, /Warning: .*no decode-only steps/, warn);
    const polyFit = await page.evaluate(() => window.kvfleet.lastCalibration);
    assert.deepEqual(polyFit.fit, cliFit(mixedFile, ['--form', 'polynomial']), 'the page fit equals the CLI fit of the same file');
    assert.equal((await page.$$('[data-testid=cal-warnings] li')).length, polyFit.fit.warnings.length);

    // A bad log: the simulator's message with the file and line; the last fit stays.
    await fitBy(page, { file: tmpFile('bad.csv', 'prefill_tokens,decode_seqs,kv_tokens_read,step_us\n10,1,100,500\n10,1,100,-3\n') });
    const err = await page.textContent('[data-testid=cal-error]');
    assert.match(err, /bad\.csv:3/, err);
    assert.deepEqual(await page.evaluate(() => window.kvfleet.lastCalibration), polyFit, 'the last good fit stays');
    assert.equal(await page.isHidden('[data-testid=cal-out]'), false);

    // Linear again: the log on screen is fitted again. Then the faster GPU's sample, its plans and its use.
    await page.selectOption('[data-testid=cal-form]', 'linear');
    await page.waitForFunction((b) => window.kvfleet.lastCalibration?.form === 'linear' && window.kvfleet.lastCalibration.id !== b,
      polyFit.id, { timeout: 30000 });
    assert.equal(await page.evaluate(() => window.kvfleet.lastCalibration.name), 'mixed.csv', 'a new form refits the log on screen');
    const b200 = path.join(ROOT, 'data/kvfleet/steps_generated_llama3-8b-b200.csv');
    const b200Fit = cliFit(b200, []);
    await fitBy(page, { click: '[data-testid=cal-sample-b200]' });
    assert.deepEqual(await page.evaluate(() => window.kvfleet.lastCalibration.fit), b200Fit);

    // Is the preset right? The page's engine (the H100 preset) and the fit, each planned as the CLI
    // plans them with the capacity panel's targets (300 ms p99 TTFT, up to 32 replicas).
    await page.click('[data-testid=cal-plan]');
    await page.waitForFunction(() => window.kvfleet.lastCalibrationPlans, null, { timeout: 60000 });
    const plans = await page.evaluate(() => window.kvfleet.lastCalibrationPlans);
    assert.equal(plans.policy, 'round_robin');
    const fitFile = tmpFile('b200.json', JSON.stringify(b200Fit));
    const flags = ['--plan-routing', 'round_robin', '--slo-ttft-p99-ms', '300', '--plan-max-replicas', '32'];
    const want = [cliPlan(flags), cliPlan([...flags, '--des-engine-file', fitFile])].map((c) => c.policies[0]);
    assert.deepEqual(plans.sides.map((x) => x.plan), want, 'each side is the CLI plan of its engine');
    const [a, b] = want.map((w) => w.at_min.instances);
    assert.ok(b < a, `the faster GPU's fit needs fewer replicas (${b} against ${a})`);
    assert.equal(await page.textContent('[data-testid=cal-plan-move]'),
      `The fit needs ${a - b} replica${a - b === 1 ? '' : 's'} fewer than the llama3-8b-h100 preset (${b} against ${a}).`);
    assert.match(await page.textContent('[data-testid=cal-plan-preset]'), new RegExp(`^On the llama3-8b-h100 preset${a} replicas`));
    await shoot(page, 'calibrate-desktop');

    // Use it as the engine: the page's config and its link carry the four coefficients.
    await page.click('[data-testid=cal-use]');
    await page.waitForFunction(() => window.kvfleet.config?.engine === 'custom', null, { timeout: 30000 });
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('engine'), 'custom');
    for (const c of b200Fit.coefficients) assert.equal(Number(url.searchParams.get(c.name)), c.value, `${c.name} in the link`);
  } finally {
    await close();
  }
  assert.deepEqual(errors, []);
});

/** The CLI's report of the page's `config` run on the fit in `fitFile` (--des-engine-file in place of the engine's settings). */
function cliRunOnFit(config, params, fitFile) {
  const engineKeys = new Set(['engine', 'step_fixed_us', 'prefill_token_us', 'decode_seq_us', 'kv_read_token_ns', 'prefill_poly_ms', 'decode_poly_ms']);
  const args = [];
  for (const p of params) {
    const v = config[p.name];
    if (v === null || v === undefined || v === '' || engineKeys.has(p.name)) continue;
    args.push(p.flag, String(v));
  }
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-cal-')), 'report.json');
  execFileSync(nativeBin(), [...args, '--des-engine-file', fitFile, '--des-report-json', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

test('a polynomial fit as the engine runs as the CLI runs it with --des-engine-file, and its link reproduces it', async () => {
  // A step log timed by Dynamo's mocker polynomial over 2,097,152 tokens of KV (4,096 blocks of 512),
  // fitted with that capacity so all six coefficients are identified, on a page whose cache is that size.
  const cap = '2097152';
  const log = tmpFile('mocker.csv', execFileSync(nativeBin(), ['calibrate', '--generate', 'dynamo-mocker', '--kv-capacity-tokens', cap,
    '--steps', '300', '--seed', '5'], { cwd: ROOT, encoding: 'utf8' }));
  const want = cliFit(log, ['--form', 'polynomial', '--kv-capacity-tokens', cap]);
  assert.ok(want.engine.decode_poly_ms.every((d) => d !== 0) && want.engine.prefill_poly_ms[0] > 0, 'the fit has both phases');
  const { page, errors, context } = await site.open('/?kv_blocks=4096', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    await page.locator('[data-testid=calibrate]').scrollIntoViewIfNeeded();
    await page.selectOption('[data-testid=cal-form]', 'polynomial');
    await page.fill('[data-testid=cal-kv]', cap);
    await fitBy(page, { file: log });
    assert.deepEqual(await page.evaluate(() => window.kvfleet.lastCalibration.fit), want, 'the page fit is the CLI fit');
    assert.equal(await page.isDisabled('[data-testid=cal-use]'), false, 'a polynomial fit can be used');
    await page.click('[data-testid=cal-use]');
    await page.waitForFunction(() => window.kvfleet.lastReport?.config?.engine === 'custom', null, { timeout: 30000 });
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    const config = await page.evaluate(() => window.kvfleet.config);
    assert.deepEqual([config.prefill_poly_ms, config.decode_poly_ms], [want.engine.prefill_poly_ms, want.engine.decode_poly_ms]);
    const params = await page.evaluate(() => window.kvfleet.params);
    assert.deepEqual(report, cliRunOnFit(config, params, tmpFile('fit.json', JSON.stringify(want))), 'the run is the CLI\'s with --des-engine-file');
    // The settings panel shows the phases as the CLI's flags take them.
    assert.equal(await page.inputValue('[data-testid=input-decode_poly_ms]'), want.engine.decode_poly_ms.join(','));

    // The link alone reproduces the run.
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('decode_poly_ms'), want.engine.decode_poly_ms.join(','));
    const again = await site.open(url.pathname + url.search, { viewport: { width: 1280, height: 900 } });
    try {
      await again.page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.lastReport, null, { timeout: 30000 });
      assert.deepEqual(await again.page.evaluate(() => window.kvfleet.lastReport), report, 'the link gives the same run');
      assert.deepEqual(again.errors, []);
    } finally { await again.context.close(); }

    // A phase the engine refuses, typed in the settings: the simulator's message, the run on screen stays.
    await page.evaluate(() => { document.querySelector('details#group-engine, [data-group=engine]')?.setAttribute('open', ''); });
    await page.fill('[data-testid=input-decode_poly_ms]', '1,-5,0');
    await page.dispatchEvent('[data-testid=input-decode_poly_ms]', 'change');
    await page.waitForFunction(() => window.kvfleet.errors?.some((m) => /decode_poly_ms/.test(m)), null, { timeout: 30000 });
    assert.match(await page.textContent('[data-testid=error-decode_poly_ms]'), /decode_poly_ms/);
    assert.deepEqual(await page.evaluate(() => window.kvfleet.lastReport), report, 'the last good run stays');
  } finally { await context.close(); }
  assert.deepEqual(errors, []);
});

test('bad polynomial values in a link: each named in a note, and the page runs without them', async () => {
  const { page, errors, context } = await site.open('/?engine=custom&prefill_poly_ms=1,x,0&decode_poly_ms=1,-5,0', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.lastReport, null, { timeout: 30000 });
    const notes = await page.textContent('#url-notes');
    assert.match(notes, /\(prefill_poly_ms\) was not valid: “x” in “1,x,0” is not a number\. Using the default, 0,0,0\./, notes);
    assert.match(notes, /\(decode_poly_ms\) was rejected by the simulator: .*reaches -4.*Using the default, 0,0,0\./, notes);
    const config = await page.evaluate(() => window.kvfleet.lastReport.config);
    assert.equal(config.engine, 'custom');
    assert.equal(config.prefill_poly_ms, undefined, 'no prefill phase');
    assert.equal(config.decode_poly_ms, undefined, 'no decode phase');
  } finally { await context.close(); }
  assert.deepEqual(errors, []);
});

test('on a 360 px phone the panel fits the column', async () => {
  const { page, errors, close } = await openPage({ width: 360, height: 780 });
  try {
    await page.locator('[data-testid=calibrate]').scrollIntoViewIfNeeded();
    await fitBy(page, { click: '[data-testid=cal-sample-b200]' });
    await page.click('[data-testid=cal-plan]');
    await page.waitForFunction(() => window.kvfleet.lastCalibrationPlans, null, { timeout: 60000 });
    const wide = await page.evaluate(() => {
      const box = document.querySelector('[data-testid=calibrate]').getBoundingClientRect();
      const out = [...document.querySelectorAll('[data-testid=calibrate] *')].filter((el) => el.getBoundingClientRect().right > box.right + 1);
      const wrap = document.querySelector('[data-testid=calibrate] .table-wrap');
      return { panel: box.right, page: document.documentElement.scrollWidth, out: out.map((el) => el.tagName + (el.id ? `#${el.id}` : '')),
        tableScrolls: wrap.scrollWidth > wrap.clientWidth };
    });
    assert.deepEqual(wide.out, [], 'nothing sticks out of the panel');
    assert.equal(wide.tableScrolls, false, 'the coefficients fit the column without scrolling');
    assert.ok(wide.page <= 360, `the page scrolls sideways: ${wide.page} px`);
    await shoot(page, 'calibrate-phone');
  } finally {
    await close();
  }
  assert.deepEqual(errors, []);
});

/** Starts the request log sample's fit by simulation and waits for its result or its error. */
async function fitRequests(page, { start, budget, cancelAfter = null }) {
  await page.selectOption('[data-testid=rf-start]', start);
  await page.fill('[data-testid=rf-budget]', String(budget));
  const before = await page.evaluate(() => window.kvfleet.lastRequestFit?.id ?? 0);
  // A cancel once the progress line counts `cancelAfter` replays (watched in the page, so it lands
  // between two batches however fast they run).
  await page.evaluate((after) => {
    if (after === null) return;
    const status = document.querySelector('[data-testid=rf-status]');
    const obs = new MutationObserver(() => {
      const m = /: ([\d,]+) of at most/.exec(status.textContent);
      if (m && Number(m[1].replace(/,/g, '')) >= after) { obs.disconnect(); document.querySelector('[data-testid=rf-cancel]').click(); }
    });
    obs.observe(status, { childList: true, characterData: true, subtree: true });
  }, cancelAfter);
  await page.click('[data-testid=rf-sample]');
  await page.waitForFunction((b) => (window.kvfleet.lastRequestFit?.id ?? 0) !== b
    || !document.querySelector('[data-testid=rf-error]').hidden, before, { timeout: 60000 });
  assert.equal(await page.isHidden('[data-testid=rf-error]'), true, await page.textContent('[data-testid=rf-error]'));
  return page.evaluate(() => window.kvfleet.lastRequestFit);
}

test('the fit by simulation in the workers is the CLI fit; Cancel keeps the best so far', async () => {
  const { page, errors, close } = await openPage();
  try {
    // The default start is another GPU's engine, not the sample's own preset (from which there is nothing to fit).
    assert.equal(await page.inputValue('[data-testid=rf-start]'), 'llama3-8b-b200');
    const sample = path.join(ROOT, 'data/kvfleet/requests_generated_llama3-8b-h100.csv');
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-cal-')), 'req.json');
    execFileSync(nativeBin(), ['calibrate', '--requests', sample, '--start', 'llama3-8b-b200', '--max-evaluations', '120', '--calibrate-json', out],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const want = JSON.parse(readFileSync(out, 'utf8'));
    await page.locator('#rf-h').scrollIntoViewIfNeeded();
    const got = await fitRequests(page, { start: 'llama3-8b-b200', budget: 120 });
    assert.ok(got.workers >= 2, `the replays ran on ${got.workers} workers`);
    assert.deepEqual(got.fit, want, 'the page fit equals `kvfleet calibrate --requests ... --calibrate-json`');
    const fitted = await page.$$eval('[data-testid=rf-coefs] tbody tr td:last-child', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(fitted, ['step_fixed_us', 'prefill_token_us', 'decode_seq_us', 'kv_read_token_ns'].map((k) => want.engine[k].toFixed(3)));
    assert.match(await page.textContent('[data-testid=rf-headline]'),
      new RegExp(`Distance \\(RMS of the relative errors\\): ${(want.fit.distance * 100).toFixed(1)}% \\(start ${(want.start_distance * 100).toFixed(1)}%\\), ${want.evaluations} replays, stopped at the replay budget`));

    // Cancelled after 30 replays: the best so far, said so, better than the start.
    const cut = await fitRequests(page, { start: 'llama3-8b-b200', budget: 1000, cancelAfter: 30 });
    assert.equal(cut.fit.ended, 'stopped');
    assert.ok(cut.fit.evaluations >= 30 && cut.fit.evaluations < 649, `${cut.fit.evaluations} replays`);
    assert.ok(cut.fit.fit.distance < cut.fit.start_distance);
    assert.match(await page.textContent('[data-testid=rf-headline]'), /cancelled: the best so far/);

    // A bad request log: the CLI's message with its line; the last fit stays on screen.
    await page.evaluate(() => { document.querySelector('[data-testid=rf-error]').hidden = true; });
    await page.setInputFiles('[data-testid=rf-file]', tmpFile('bad-req.csv', 'arrival_s,prompt_tokens,output_tokens,ttft_ms,tpot_ms\n0,5,5,x,1\n'));
    await page.waitForFunction(() => !document.querySelector('[data-testid=rf-error]').hidden, null, { timeout: 30000 });
    assert.match(await page.textContent('[data-testid=rf-error]'), /bad-req\.csv:2: `ttft_ms` is not a number/);
    assert.deepEqual(await page.evaluate(() => window.kvfleet.lastRequestFit), cut, 'the last fit stays');
    assert.equal(await page.isHidden('[data-testid=rf-out]'), false);
  } finally {
    await close();
  }
  assert.deepEqual(errors, []);
});

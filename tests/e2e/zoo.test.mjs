// tests/e2e/zoo.test.mjs: the router zoo in the page, in real Chromium. The routing control
// lists every policy the native CLI accepts (read from its own error message, not from the page) in two
// groups, each with its line and, for a deployed router, the project it follows; each zoo policy runs
// and shows a hit rate, with its own settings shown only for it; Compare holds all eleven policies
// without an overflowing element at 1440x900 and 360x740; the decision table shows the zoo's terms,
// score, cost and rule branch, equal to the CLI's --des-decisions records.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, ROOT, nativeBin } from './harness.mjs';

const BIN = nativeBin();
// The issue's grouping: the deployed routers, and the project each one's note must name.
const DEPLOYED = { dynamo: 'NVIDIA Dynamo', sglang: 'SGLang', llm_d: 'llm-d', aibrix: 'AIBrix' };
const ZOO = ['least_loaded', 'p2c', 'dynamo', 'sglang', 'llm_d', 'aibrix'];
// Each zoo policy's own settings (shown only while it is the routing).
const KNOBS = { dynamo: ['dynamo_temperature', 'dynamo_overlap_credit'], sglang: ['sglang_miss'], llm_d: ['llmd_weights'] };

let site;
let policies;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  // The CLI names every policy it accepts when given one it does not.
  const out = spawnSync(BIN, ['--des-routing', 'no_such_policy'], { cwd: ROOT, encoding: 'utf8' });
  const m = /(?:allowed:|one of)\s*([^\n]+)/.exec(out.stderr);
  assert.ok(m, `the CLI lists the allowed policies: ${out.stderr}`);
  policies = m[1].replace(/\.$/, '').split(/,\s*|\s+or\s+/).map((s) => s.trim()).filter(Boolean);
  assert.ok(policies.length >= 11, `eleven policies or more: ${policies}`);
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

async function openPage(where, { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height }, colorScheme });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}
const runCount = (page) => page.evaluate(() => window.kvfleet.runCount);
const waitForRun = (page, n) => page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });

/** Elements inside `root` whose content is wider than their box (scrolling boxes excepted), or past the viewport. */
function overflowing(selector) {
  const bad = [];
  const W = document.documentElement.clientWidth;
  const root = document.querySelector(selector);
  for (const el of [root, ...root.querySelectorAll('*')]) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.closest('[hidden]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const inScroller = el.parentElement?.closest('.table-wrap');
    const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    if (!inScroller && (r.right > W + 0.5 || r.left < -0.5)) bad.push(`${name} outside the page (${r.left.toFixed(0)}-${r.right.toFixed(0)} of ${W})`);
    const scrolls = ['auto', 'scroll'].includes(cs.overflowX);
    if (!scrolls && cs.display !== 'inline' && el.tagName !== 'CANVAS' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      bad.push(`${name} content ${el.scrollWidth}px wide in ${el.clientWidth}px`);
    }
  }
  return bad;
}

test('the routing control lists every policy the CLI accepts, in two groups, each with its line', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const wasm = await page.evaluate(() => window.kvfleet.params.find((p) => p.name === 'routing').choices);
    assert.deepEqual([...wasm].sort(), [...policies].sort(), 'the wasm parameter table lists the CLI\'s policies');
    const groups = await page.$$eval('#controls [data-testid^="routing-group-"]', (gs) => gs.map((g) => ({
      title: g.querySelector('.policy-group-title').textContent,
      names: [...g.querySelectorAll('input[type=radio]')].map((r) => r.value),
    })));
    assert.deepEqual(groups.map((g) => g.title), ['Simple', 'Deployed routers']);
    assert.deepEqual([...groups[1].names].sort(), Object.keys(DEPLOYED).sort());
    assert.deepEqual([...groups[0].names].sort(), policies.filter((p) => !DEPLOYED[p]).sort());
    // Every policy has a line; each deployed router's names its project; no links.
    for (const p of policies) {
      const line = (await page.textContent(`[data-testid="policy-line-${p}"]`)).trim();
      assert.ok(line.length > 20 && !/No description/.test(line), `${p} has a line: ${line}`);
      if (DEPLOYED[p]) assert.match(line, new RegExp(`follows ${DEPLOYED[p]}`), `${p} names ${DEPLOYED[p]}`);
      const tip = await page.getAttribute(`label[for="in-routing-${p}"]`, 'title');
      assert.ok(tip.startsWith(line.split(' (follows')[0]), `${p}'s tooltip is its line`);
    }
    assert.equal(await page.locator('#field-routing a, [data-testid="routing-list"] a').count(), 0, 'no links');
    // The hero's routing control has the same groups.
    const hero = await page.$$eval('[data-testid^="hero-routing-group-"] input[type=radio]', (rs) => rs.map((r) => r.value));
    assert.deepEqual([...hero].sort(), [...policies].sort());
    await page.locator('[data-testid="routing-list"] summary').click();
    await page.locator('#field-routing').screenshot({ path: path.join(ROOT, 'test-results', 'zoo-routing-control.png') });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('each zoo policy runs from the control and shows a hit rate; its own settings show only for it', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    for (const p of ZOO) {
      const n = await runCount(page);
      await page.click(`label[for="in-routing-${p}"]`);
      await waitForRun(page, n);
      const cfg = await page.evaluate(() => window.kvfleet.lastReport.config.routing);
      assert.equal(cfg, p);
      const hit = (await page.textContent('[data-testid="fig-hit-rate"] .value')).trim();
      assert.match(hit, /^\d+(\.\d)?%$/, `${p}: the token hit rate is a number (${hit})`);
      assert.match(await page.textContent('[data-testid="routing-about"]'), /\w{4,}/);
      for (const [owner, names] of Object.entries(KNOBS)) {
        for (const name of names) {
          assert.equal(await page.isVisible(`[data-testid="field-${name}"]`), owner === p, `${name} shown only for ${owner} (now ${p})`);
        }
      }
      if (p === 'dynamo') {
        const m = await runCount(page);
        await page.evaluate(() => {
          const el = document.querySelector('[data-testid="input-dynamo_overlap_credit"]');
          el.value = '0'; el.dispatchEvent(new Event('input', { bubbles: true }));
        });
        await waitForRun(page, m);
        assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.dynamo_overlap_credit), 0);
      }
    }
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

for (const [w, h] of [[1440, 900], [360, 740]]) {
  test(`compare at ${w}x${h}: all eleven policies, one row and one bar each with a number, nothing overflows`, async () => {
    const { page, errors, close } = await openPage('/', { width: w, height: h });
    try {
      await page.locator('[data-testid="compare"]').scrollIntoViewIfNeeded();
      await page.click('[data-testid="compare-run"]');
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="compare-table"] tbody tr').length === n
        && !document.querySelector('[data-testid="compare-run"]').disabled, policies.length, { timeout: 120000 });
      const rows = await page.$$eval('[data-testid="compare-table"] tbody tr', (trs) => trs.map((r) => ({
        policy: r.dataset.policy, hit: r.querySelector('td').textContent })));
      assert.deepEqual(rows.map((r) => r.policy).sort(), [...policies].sort());
      for (const r of rows) assert.match(r.hit, /^\d+(\.\d)?%$/, `${r.policy}: ${r.hit}`);
      for (const id of ['cmp-hit', 'cmp-ttft', 'cmp-spread']) {
        const bars = await page.evaluate((cid) => {
          const c = window.Chart.getChart(document.getElementById(cid));
          return { labels: c.data.labels, data: c.data.datasets[0].data, colors: c.data.datasets[0].backgroundColor };
        }, id);
        assert.deepEqual([...bars.labels].sort(), [...policies].sort(), `${id}: one bar per policy`);
        assert.ok(bars.data.every(Number.isFinite), `${id}: every bar has a number`);
        assert.equal(new Set(bars.colors).size, policies.length, `${id}: eleven colours`);
      }
      const sweep = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid="compare-sweep"]')).data.datasets.length);
      assert.equal(sweep, policies.length);
      assert.deepEqual(await page.evaluate(overflowing, '[data-testid="compare"]'), []);
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(scroll <= 0, `no horizontal page scroll (${scroll}px)`);
      await page.locator('[data-testid="compare"]').screenshot({ path: path.join(ROOT, 'test-results', `zoo-compare-${w}.png`) });
      assert.deepEqual(errors, []);
    } finally { await close(); }
  });
}

function cliDecisions(args) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-zoo-')), 'decisions.jsonl');
  execFileSync(BIN, [...args, '--des-decisions', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

test('the decision table shows the zoo\'s terms, score, cost and rule, as the CLI logs them', async () => {
  for (const p of ['dynamo', 'sglang', 'aibrix', 'p2c', 'llm_d']) {
    const native = cliDecisions(['--des-routing', p]);
    const { page, errors, close } = await openPage(`/?routing=${p}`, p === 'aibrix' ? { width: 360, height: 780 } : {});
    try {
      await page.fill('[data-testid="dec-from"]', '0');
      await page.fill('[data-testid="dec-to"]', '59');
      await page.fill('[data-testid="dec-count"]', '6');
      await page.click('[data-testid="dec-show"]');
      await page.waitForFunction(() => window.kvfleet.lastDecisions, null, { timeout: 60000 }).catch(async (e) => {
        // Say what the panel showed, so a run that never answers can be told from one still working.
        const said = await page.evaluate(() => ['dec-status', 'dec-error'].map((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent));
        throw new Error(`${p}: no decisions after 60 s; the panel said ${JSON.stringify(said)}; page errors ${JSON.stringify(errors)}: ${e.message}`);
      });
      const got = await page.evaluate(() => window.kvfleet.lastDecisions);
      assert.deepEqual(got.records, native.slice(54, 60), `${p}: the records are the CLI's`);
      const head = await page.$$eval('[data-testid="dec-table"] thead th', (ths) => ths.map((t) => t.textContent.replace(/\u200b/g, '')));
      const terms = native[54].candidates[0].terms.map((t) => t.name);
      for (const t of terms) assert.ok(head.includes(t), `${p}: a column for ${t} (${head})`);
      assert.equal(head.includes('Score'), native[54].candidates[0].score !== undefined, `${p}: a score column when scored`);
      assert.ok(!head.includes('Recent'), `${p}: kv's recent term is not shown`);
      // The chosen row's pick names the rule branch; a cell per term holds the logged value.
      const d = native[59];
      const chosen = (await page.textContent(`[data-testid="dec-table"] tr[data-request="59"][data-replica="${d.chosen}"] td.pick`)).trim();
      assert.equal(chosen, `✓ ${[d.reason, d.rule].filter(Boolean).join(' · ')}`);
      const excluded = d.candidates.filter((c) => c.excluded).length;
      assert.equal(await page.locator('[data-testid="dec-table"] tr[data-request="59"].excluded').count(), excluded);
      if (p === 'p2c') assert.equal(excluded, d.candidates.length - 2, 'p2c: all but the two drawn are excluded');
      await page.locator('[data-testid="decisions"]').scrollIntoViewIfNeeded();
      await screenshot(page, `zoo-decisions-${p}`, { fullPage: false });
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(scroll <= 0, `${p}: no horizontal page scroll (${scroll}px)`);
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
});

test('a sweep of the routing over the four deployed routers draws one point each with a hit rate', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    await page.selectOption('[data-testid="sweep-param"]', 'routing');
    await page.fill('[data-testid="sweep-spec"]', 'dynamo,sglang,llm_d,aibrix');
    await page.click('[data-testid="sweep-run"]');
    await page.waitForFunction(() => window.kvfleet.lastSweep && window.kvfleet.lastSweep.param === 'routing', null, { timeout: 90000 });
    const pts = await page.evaluate(() => window.kvfleet.lastSweep.series[0].points.map((p) => [p.value, p.summary.hit_rate_tokens]));
    assert.deepEqual(pts.map(([v]) => v), ['dynamo', 'sglang', 'llm_d', 'aibrix']);
    assert.ok(pts.every(([, h]) => Number.isFinite(h) && h > 0), JSON.stringify(pts));
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

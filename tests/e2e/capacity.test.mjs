// tests/e2e/capacity.test.mjs: the GPU planner in real Chromium. A plan of the seed's
// workload at 24 req/s equals `kvfleet plan --plan-json` policy for policy, headline included (its
// first line bold, the details plain under it), and shows aibrix's inversion; a plan of the built-in
// synthetic trace equals the CLI's on the same file; the trace is parsed once, however many slider
// steps replay it; the chart holds one point per (policy, replicas) evaluated, draws every point that
// misses a target small and faded whatever its marker (kv's star, p2c's and least_loaded's crosses
// included), and a Pareto front of points that meet every target, which no such point undercuts;
// bad targets are said beside the form and the last plan stays; Cancel stops a plan; a row loads its
// configuration; on the default plan a tie on cost within 0.5% per token goes to the lower p99 TTFT
// (then the name), the headline says so and the chart's cheapest ring is that fleet, every plotted cost has a
// labelled tick on the cost axis, and a policy that never meets the targets says what it reached
// (llm_d's flat p99 and why, checked against a run); round robin, the cheapest there, is not
// compared with itself; counts read "1 replica", "2 replicas", "1 seed", "2 seeds". Under a load step
// with kpa set on the page, the autoscaled-against-static comparison equals `--plan-autoscale kpa`'s,
// and the "compare GPUs" mode's mix plan of three presets and its headline equal `--plan-mix`'s
// (every preset of the model offered and checked; one preset checked is said; Cancel stops a search;
// the last mix stays). Screenshots: the panel after a plan (light, 1280 px) and at 390 px; the
// comparison (1280 px) and the mix (1280 and 360 px).

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
  // No test here looks at the first screen's figure: its sweep stays held (harness.mjs), so nothing
  // above the panel redraws while its controls are clicked, and the planner has the cores.
  site = await startSite({ heroSweep: false });
});
after(async () => { await site?.close(); });

/** A screenshot of the panel alone, into test-results/. */
async function shoot(page, name) {
  await mkdir(RESULTS, { recursive: true });
  await page.locator('[data-testid=capacity]').screenshot({ path: path.join(RESULTS, `${name}.png`) });
}

function cliPlan(args) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-plan-')), 'plan.json');
  execFileSync(BIN, ['plan', '-q', ...args, '--plan-json', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

async function openPage(where, { width = 1280, height = 900 } = {}) {
  const { page, errors, context } = await site.open(where, { viewport: { width, height } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

async function plan(page, { ttft, max = '32' }) {
  const before = await page.evaluate(() => window.kvfleet.lastCapacity?.ms ?? null);
  await page.fill('[data-testid=cap-ttft]', ttft);
  await page.fill('[data-testid=cap-max]', max);
  await page.click('[data-testid=cap-run]');
  await page.waitForFunction((b) => window.kvfleet.lastCapacity && window.kvfleet.lastCapacity.ms !== b, before, { timeout: 120000 });
  return page.evaluate(() => window.kvfleet.lastCapacity);
}

function assertSamePlans(pagePlans, cli) {
  assert.equal(pagePlans.length, cli.policies.length);
  for (const want of cli.policies) {
    const got = pagePlans.find((p) => p.policy === want.policy);
    assert.ok(got, `the page planned ${want.policy}`);
    assert.deepEqual(got, want, `${want.policy}: the page's plan equals the CLI's`);
  }
}

/** The headline's two parts as the CLI's JSON holds them: the first line, and the rest. */
function split(headline) {
  const [head, ...rest] = headline.split('\n');
  return { head, details: rest.join(' ') };
}

/**
 * Whether a plan's point meets the targets, worked out here from its measured figures: each latency
 * target given at or above its p99 (an unmeasured p99 misses), the unserved share at most the limit,
 * and no growing backlog unless allowed.
 */
function meetsTargets(point, slo) {
  const m = point.measured;
  const latency = [['ttft_p99_ms', m.ttft_ms_p99], ['tpot_p99_ms', m.tpot_ms_p99], ['e2e_p99_ms', m.e2e_ms_p99]]
    .every(([k, v]) => slo[k] === null || slo[k] === undefined || (Number.isFinite(v) && v <= slo[k]));
  return latency && m.rejected_share <= slo.max_rejected && !(slo.sustained && m.overloaded);
}

/** The planner chart as drawn: each dataset's label and its points with the options Chart.js resolved. */
function drawnChart(page) {
  return page.evaluate(() => {
    const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'cap-chart');
    return ch.data.datasets.map((d, i) => ({
      label: d.label,
      points: ch.getDatasetMeta(i).data.map((el, j) => {
        const q = d.data[j];
        const o = el.options;
        return { x: q.x, y: q.y, n: q.n, policy: q.policy, radius: o.radius, borderWidth: o.borderWidth, borderColor: o.borderColor, backgroundColor: o.backgroundColor, pointStyle: o.pointStyle };
      }),
    }));
  });
}

/** The opacity of a CSS colour written as #rgb, #rrggbb, #rrggbbaa, rgb() or rgba() (1 when none is given). */
function alphaOf(color) {
  const hex = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(color);
  if (hex) return hex[2] ? parseInt(hex[2], 16) / 255 : 1;
  const rgba = /^rgba?\(([^)]*)\)$/i.exec(color);
  if (rgba) { const parts = rgba[1].split(/[,\s/]+/).filter(Boolean); return parts.length > 3 ? Number(parts[3]) : 1; }
  if (color === 'transparent') return 0;
  return 1;
}

test('a plan of the seed workload equals the CLI, headline, inversion and chart included', async () => {
  const { page, errors, close } = await openPage('/?request_rate=24');
  try {
    // With a growing backlog allowed (the checkbox off), aibrix shows an inversion at 360 ms: 357 ms
    // on 4 replicas, 365 ms on 5 (tests/plan.rs; at 300 ms while its ties went to the lowest index).
    await page.uncheck('[data-testid=cap-sustained]');
    const got = await plan(page, { ttft: '360' });
    const cli = cliPlan(['--request-rate', '24', '--slo-ttft-p99-ms', '360', '--plan-max-replicas', '32', '--plan-allow-overload']);
    assertSamePlans(got.plans, cli);
    assert.equal(got.headline, cli.headline);
    const { head, details } = split(cli.headline);
    assert.ok(details.length > 0, cli.headline);
    assert.equal(await page.textContent('[data-testid=cap-headline]'), head);
    assert.equal(await page.textContent('[data-testid=cap-details]'), details);
    const notes = await page.textContent('[data-testid=cap-notes]');
    assert.match(notes, /aibrix meets the targets at 4 replicas but misses them at 5 \(ttft_p99\)/);
    const rows = await page.$$eval('[data-testid=cap-table] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.equal(rows.length, 11);
    const kv = rows.find((r) => r[0] === 'kv');
    const cliKv = cli.policies.find((p) => p.policy === 'kv');
    assert.equal(kv[1], `${cliKv.min_replicas} ✓`);
    assert.equal(kv[3], `$${cliKv.at_min.cost.usd_per_hour.toFixed(2)}`);
    // The chart: one point per (policy, replicas) the searches evaluated, and a front of points
    // that meet every target, which no other such point undercuts (cheaper and faster at once).
    const chart = await drawnChart(page);
    const points = chart.filter((d) => cli.policies.some((p) => p.policy === d.label)).flatMap((d) => d.points);
    const want = cli.policies.reduce((a, p) => a + p.points.filter((q) => q.measured.ttft_ms_p99 !== null).length, 0);
    assert.equal(points.length, want);
    const meets = (q) => meetsTargets(cli.policies.find((p) => p.policy === q.policy).points.find((x) => x.instances === q.n), cli.slo);
    const front = chart.find((d) => d.label.startsWith('Pareto front')).points;
    assert.ok(front.length >= 2, 'a front of at least two points');
    for (const f of front) {
      assert.ok(meets(f), `the front point ${JSON.stringify(f)} meets every target`);
      const better = points.filter((q) => meets(q) && q.y < f.y && q.x < f.x);
      assert.deepEqual(better, [], `nothing that meets the targets undercuts the front point ${JSON.stringify(f)}`);
    }
    // The cheapest ring is the fleet the headline names (its first words: "Cheapest: kv on 3 replicas").
    const named = /^Cheapest: (\S+) on (\d+) replicas? /.exec(head);
    assert.ok(named, head);
    assert.equal(got.cheapest, named[1]);
    const low = front.reduce((a, b) => (b.y < a.y ? b : a));
    assert.deepEqual([low.policy, low.n], [named[1], Number(named[2])]);
    assert.equal(front.filter((f) => f.y === low.y).length, 1, 'one ring at the lowest cost');
    assert.ok(chart.some((d) => d.label === 'TTFT target 360 ms'));
    await shoot(page, 'capacity-panel');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('every point that misses a target is drawn small and faded, whatever its marker; the front joins only points that meet them all', async () => {
  const { page, errors, close } = await openPage('/?request_rate=24');
  try {
    // "on 1 seed", "on 2 seeds": the word follows the value.
    const unit = () => page.textContent('[data-testid=cap-seeds-unit]');
    assert.equal(await unit(), 'seed');
    await page.fill('[data-testid=cap-seeds]', '2');
    assert.equal(await unit(), 'seeds');
    await page.fill('[data-testid=cap-seeds]', '1');
    assert.equal(await unit(), 'seed');
    assert.doesNotMatch(await page.textContent('.cap-form'), /\(s\)/);
    // A growing backlog misses (the default): at 24 req/s most policies miss at some sizes they
    // tried and meet at others, kv, p2c and least_loaded (a star and two crosses, strokes only) too.
    const got = await plan(page, { ttft: '300' });
    const slo = got.spec.slo;
    assert.equal(slo.sustained, true);
    const chart = await drawnChart(page);
    const meets = (q) => meetsTargets(got.plans.find((p) => p.policy === q.policy).points.find((x) => x.instances === q.n), slo);
    for (const plan of got.plans) {
      const pts = chart.find((d) => d.label === plan.policy).points;
      assert.equal(pts.length, plan.points.filter((q) => Number.isFinite(q.measured.ttft_ms_p99)).length, plan.policy);
      const pass = pts.filter(meets), fail = pts.filter((q) => !meets(q));
      if (['kv', 'p2c', 'least_loaded'].includes(plan.policy)) {
        assert.ok(pass.length > 0 && fail.length > 0, `${plan.policy} has points that meet and points that miss`);
        assert.ok(['star', 'cross', 'crossRot'].includes(pass[0].pointStyle), `${plan.policy} is drawn with strokes only (${pass[0].pointStyle})`);
      }
      // What every marker draws is its stroke: a missing point's is at most half as opaque and
      // thinner, and the point at most 0.6 times the size, of any point that meets the targets.
      for (const q of fail) {
        const at = `${plan.policy} on ${q.n}: ${JSON.stringify(q)}`;
        assert.ok(alphaOf(q.borderColor) <= 0.5, `faded stroke, ${at}`);
        assert.ok(alphaOf(q.backgroundColor) <= 0.5, `faded fill, ${at}`);
        assert.ok(q.radius <= 0.6 * 6 && q.borderWidth <= 1, `small and thin, ${at}`);
      }
      for (const q of pass) {
        const at = `${plan.policy} on ${q.n}: ${JSON.stringify(q)}`;
        assert.equal(alphaOf(q.borderColor), 1, `full stroke, ${at}`);
        assert.ok(q.radius >= 6 && q.borderWidth >= 2, `full size, ${at}`);
      }
    }
    // The front: every point meets every target, none that meets them is cheaper and faster, and
    // it starts at the cheapest such point. Round robin on 1 replica, the cheapest of all, misses
    // (a growing backlog) and stays off it.
    const all = chart.filter((d) => got.plans.some((p) => p.policy === d.label)).flatMap((d) => d.points);
    const front = chart.find((d) => d.label === 'Pareto front (targets met)').points;
    assert.ok(front.length >= 1);
    for (const f of front) {
      assert.ok(meets(f), `the front point ${JSON.stringify(f)} meets every target`);
      assert.deepEqual(all.filter((q) => meets(q) && q.y < f.y && q.x < f.x), [], `nothing that meets the targets undercuts ${JSON.stringify(f)}`);
    }
    const cheapest = Math.min(...all.filter(meets).map((q) => q.y));
    assert.equal(Math.min(...front.map((f) => f.y)), cheapest);
    const rr1 = all.find((q) => q.policy === 'round_robin' && q.n === 1);
    assert.ok(rr1 && !meets(rr1) && rr1.y < cheapest, JSON.stringify(rr1));
    assert.ok(!front.some((f) => f.policy === 'round_robin' && f.n === 1));
    // The legend draws each policy's marker at full strength, whatever its first point; the
    // caption says what the sizes, the fading and the rings mean.
    const ink = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'cap-chart');
      return ch.legend.legendItems.map((item) => {
        const g = item.pointStyle;
        const px = g.getContext('2d').getImageData(0, 0, g.width, g.height).data;
        let a = 0; for (let i = 3; i < px.length; i += 4) a = Math.max(a, px[i]);
        return [item.text, a];
      });
    });
    const policies = ink.filter(([text]) => got.plans.some((p) => p.policy === text));
    assert.equal(policies.length, got.plans.length);
    for (const [text, a] of policies) assert.ok(a >= 240, `${text}: the legend's glyph is opaque (${a})`);
    const key = await page.textContent('[data-testid=cap-key]');
    assert.match(key, /full size: meets every target; .*small, faded: misses at least one\. Ringed and joined by the dashed line: the Pareto front, the cheapest fleet at each latency among those that meet every target; at the lowest cost, the fleet the headline names\./);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('a plan of the built-in synthetic trace equals the CLI on the same file', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=trace-synthetic]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    // The trace is parsed once: a slider step replays the parsed requests (the worker's
    // counter, sent with every result, stays at 1).
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 1);
    for (const key of ['ArrowRight', 'ArrowLeft']) {
      const k = await page.evaluate(() => window.kvfleet.runCount);
      await page.focus('[data-testid="input-instances"]');
      await page.keyboard.press(key);
      await page.waitForFunction((c) => window.kvfleet.runCount > c, k, { timeout: 60000 });
      assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 1, `no parse after ${key}`);
    }
    await page.fill('[data-testid=cap-seeds]', '2');
    const got = await plan(page, { ttft: '2000' });
    const cli = cliPlan(['--des-mooncake-trace', 'www/data/synthetic_trace.jsonl', '--slo-ttft-p99-ms', '2000', '--plan-max-replicas', '32', '--plan-seeds', '2']);
    assertSamePlans(got.plans, cli);
    assert.equal(got.headline, cli.headline);
    // What routing is worth here: round robin misses 2 s at any size up to 32, kv needs 3.
    assert.equal(cli.policies.find((p) => p.policy === 'round_robin').min_replicas, null);
    assert.equal(cli.policies.find((p) => p.policy === 'kv').min_replicas, 3);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('bad targets are said and the last plan stays; cancel stops; a row loads its fleet', async () => {
  const { page, errors, close } = await openPage('/?request_rate=24', { width: 390, height: 844 });
  try {
    const first = await plan(page, { ttft: '300' });
    await shoot(page, 'capacity-panel-390');
    for (const [field, value, want] of [
      ['cap-ttft', '-5', /TTFT p99: enter a number of ms above 0/],
      ['cap-max', '0', /Up to: enter a whole number of replicas from 1 to 256/],
      ['cap-price', '-1', /Price: enter a number of dollars/],
      ['cap-seeds', '17', /Seeds: enter a whole number from 1 to 16/],
    ]) {
      const keep = await page.inputValue(`[data-testid=${field}]`);
      await page.fill(`[data-testid=${field}]`, value);
      await page.click('[data-testid=cap-run]');
      const msg = await page.textContent('[data-testid=cap-error]');
      assert.match(msg, want);
      assert.equal(await page.isVisible('[data-testid=cap-error]'), true);
      assert.equal(await page.getAttribute(`[data-testid=${field}]`, 'aria-invalid'), 'true', `${field} is marked`);
      assert.equal(await page.evaluate(() => window.kvfleet.lastCapacity.ms), first.ms, 'the last plan stays');
      assert.equal(await page.isVisible('[data-testid=cap-headline]'), true);
      await page.fill(`[data-testid=${field}]`, keep);
    }
    for (const id of ['cap-ttft', 'cap-tpot', 'cap-e2e', 'cap-rejected']) await page.fill(`[data-testid=${id}]`, '');
    await page.click('[data-testid=cap-run]');
    assert.match(await page.textContent('[data-testid=cap-error]'), /Give at least one target/);
    await page.fill('[data-testid=cap-rejected]', '0');
    // Cancel: a plan of all eleven policies at up to 256 replicas, 16 seeds each, is stopped at once
    // (with one seed it once finished between the button showing and the click).
    await page.fill('[data-testid=cap-ttft]', '1');
    await page.fill('[data-testid=cap-max]', '256');
    await page.fill('[data-testid=cap-seeds]', '16');
    await page.click('[data-testid=cap-run]');
    await page.waitForSelector('[data-testid=cap-cancel]:visible');
    await page.click('[data-testid=cap-cancel]');
    assert.match(await page.textContent('[data-testid=cap-status]'), /Planning cancelled\. The last finished plan is still shown\./);
    assert.equal(await page.isVisible('[data-testid=cap-cancel]'), false);
    assert.equal(await page.evaluate(() => window.kvfleet.lastCapacity.ms), first.ms);
    // A row loads that policy at its fleet size.
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=cap-table] tbody tr[data-policy=sticky]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 30000 });
    const sticky = first.plans.find((p) => p.policy === 'sticky').min_replicas;
    assert.ok(sticky > 0);
    assert.match(await page.textContent('[data-testid=cap-status]'), new RegExp(`Loaded sticky on ${sticky} replica`));
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('routing'), 'sticky');
    assert.equal(url.searchParams.get('instances'), String(sticky));
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the default plan: the x axis has 3+ labelled ticks spanning the points; every plotted cost has a labelled tick; the legend draws the front and target dashed', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const got = await plan(page, { ttft: '300' }); // the form's defaults
    // What is plotted, from the plans themselves: every finite p99 TTFT, and the target's line.
    const xs = got.plans.flatMap((p) => p.points.map((q) => q.measured.ttft_ms_p99)).filter(Number.isFinite).concat(300);
    const lo = Math.min(...xs), hi = Math.max(...xs);
    const axis = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'cap-chart');
      const x = ch.scales.x;
      return { type: x.type, ticks: x.ticks.map((t) => ({ value: t.value, label: t.label })).filter((t) => t.label !== '' && t.label != null) };
    });
    assert.equal(axis.type, 'logarithmic');
    const labels = axis.ticks.map((t) => String(t.label));
    assert.ok(axis.ticks.length >= 3, `3 or more tick labels, got ${JSON.stringify(labels)}`);
    assert.equal(new Set(labels).size, labels.length, 'no two ticks read the same');
    assert.ok(axis.ticks[0].value <= lo, `the first tick (${labels[0]}) is at or below the fastest point, ${lo} ms`);
    assert.ok(axis.ticks.at(-1).value >= hi, `the last tick (${labels.at(-1)}) is at or above the slowest point, ${hi} ms`);
    // The cost axis: every cost a plotted point has (3 replicas' $10.47 included, H100s at $3.49) reads off a tick
    // labelled with it in dollars, cents only when there are any.
    const costs = [...new Set(got.plans.flatMap((p) => p.points.filter((q) => Number.isFinite(q.measured.ttft_ms_p99)).map((q) => q.cost.usd_per_hour)))].sort((a, b) => a - b);
    assert.ok(costs.length <= 8 && costs.includes(3 * 3.49), JSON.stringify(costs));
    const yTicks = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'cap-chart');
      return ch.scales.y.ticks.map((t) => ({ value: t.value, label: String(t.label) }));
    });
    for (const c of costs) {
      const tick = yTicks.find((t) => Math.abs(t.value - c) < 1e-9);
      const want = Number.isInteger(c) ? `$${c}` : `$${c.toFixed(2)}`;
      assert.ok(tick && tick.label === want, `a tick labelled ${want} for the cost ${c}, got ${JSON.stringify(yTicks)}`);
    }
    // The legend: an entry's line dash is its dataset's, and a dashed line is drawn broken.
    const items = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'cap-chart');
      return ch.legend.legendItems.map((item) => {
        const ds = ch.data.datasets[item.datasetIndex];
        const g = item.pointStyle;
        let gap = null;
        if (g instanceof HTMLCanvasElement && ds.showLine) {
          const row = g.getContext('2d').getImageData(0, Math.floor(g.height / 2), g.width, 1).data;
          const ink = []; for (let i = 0; i < g.width; i++) ink.push(row[4 * i + 3] > 40);
          gap = ink.slice(ink.indexOf(true), ink.lastIndexOf(true) + 1).includes(false);
        }
        return { text: item.text, want: ds.borderDash || [], lineDash: item.lineDash, gap, style: typeof g === 'string' ? g : 'image' };
      });
    });
    for (const label of ['Pareto front (targets met)', 'TTFT target 300 ms']) {
      const it = items.find((i) => i.text === label);
      assert.ok(it && it.want.length > 0, `${label} is dashed in the plot`);
      assert.ok(it.gap === true || (it.style === 'line' && it.lineDash?.length), `${label}: the legend draws a broken line (${JSON.stringify(it)})`);
    }
    for (const it of items) assert.deepEqual(it.lineDash ?? [], it.want, `"${it.text}" lineDash equals its dataset's borderDash`);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test("the default plan: a level price goes to the lower p99 TTFT, in the headline and the chart's ring; llm_d's flat p99 under the lowest-index tie rule is said and explained, as a run shows", async () => {
  const { page, errors, close } = await openPage('/');
  try {
    const got = await plan(page, { ttft: '300' });
    const cli = cliPlan(['--slo-ttft-p99-ms', '300', '--plan-max-replicas', '32']);
    assert.equal(got.headline, cli.headline);
    // Every policy needs 2 replicas ($6.98/h: H100s at $3.49 a GPU-hour); dynamo's $/M output
    // tokens were once the lowest by 0.009%, which named it the cheapest over round robin's 36 %
    // lower p99 TTFT. Within 0.5% of the lowest $/M the prices are level: tied on cost, the lowest
    // p99 TTFT decides (then the name), worked out here from the plans. The headline says so in
    // bold, its figures the winner's own; the details say the rest, plain.
    const answered = got.plans.filter((p) => p.at_min);
    const hour = Math.min(...answered.map((p) => p.at_min.cost.usd_per_hour));
    assert.equal(hour, 6.98);
    const tied = answered.filter((p) => p.at_min.cost.usd_per_hour === hour);
    const lowestM = Math.min(...tied.map((p) => p.at_min.cost.usd_per_m_tokens));
    const level = tied.filter((p) => p.at_min.cost.usd_per_m_tokens <= lowestM * 1.005);
    const ttftAt = (p) => p.at_min.measured.ttft_ms_p99;
    const byTtft = [...level].sort((a, b) => ttftAt(a) - ttftAt(b) || (a.policy < b.policy ? -1 : 1));
    const [win, second] = byTtft;
    assert.ok(ttftAt(second) > ttftAt(win), 'a p99 decides, not the name');
    assert.equal(win.policy, 'round_robin');
    const rr = win.at_min;
    const headline = await page.textContent('[data-testid=cap-headline]');
    assert.equal(headline, `Cheapest: round_robin on 2 replicas (2 GPUs) at $6.98/h, $${rr.cost.usd_per_m_tokens.toFixed(2)} per million output tokens, meeting the targets; `
      + `tied on cost with ${level.length - 1} others, round_robin has the lowest p99 TTFT.`);
    assert.ok(headline.split(/\s+/).length <= 32, headline);
    const details = await page.textContent('[data-testid=cap-details]');
    assert.match(details, /^Tied at \$6\.98\/h with /);
    // The table marks the same tied policies on their $/M cell, and no other, though a policy just
    // beyond the 0.5% may print the same two decimals.
    const marked = await page.evaluate(() => [...document.querySelectorAll('[data-testid=cap-table] tbody tr')]
      .filter((tr) => [...tr.cells].some((c) => c.textContent.endsWith('≈ tied'))).map((tr) => tr.dataset.policy));
    assert.deepEqual([...marked].sort(), level.map((p) => p.policy).sort());
    // The p99s as the CLI's table writes them (from 100 ms whole ms, from 10 ms to a tenth).
    const ms = (x) => (x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`);
    assert.ok(details.includes(`, so the lower p99 TTFT decides between them. round_robin has the lowest p99 TTFT of those: ${ms(ttftAt(win))} against ${ms(ttftAt(second))} or more.`), details);
    assert.doesNotMatch(details, /last resort|by a hair|goodput on the fleet as configured decides/);
    // The chart rings the same fleet: the Pareto front's cheapest point is round robin's answer.
    const ring = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.id === 'cap-chart');
      const front = ch.data.datasets.find((d) => d.label === 'Pareto front (targets met)');
      return { first: front.data[0], cheapest: window.kvfleet.lastCapacity.cheapest };
    });
    assert.equal(ring.cheapest, 'round_robin');
    assert.equal(ring.first.policy, 'round_robin');
    assert.equal(ring.first.n, 2);
    assert.equal(ring.first.y, 6.98);
    // Round robin is the cheapest: the last sentence compares it with no one, itself included.
    assert.ok(details.endsWith(' No other policy costs less per hour, so cache-aware routing saves nothing here.'), details);
    assert.doesNotMatch(details, /against round_robin|round_robin costs the same|than round_robin/i);
    const weight = (sel) => page.$eval(sel, (el) => Number(getComputedStyle(el).fontWeight));
    assert.ok(await weight('[data-testid=cap-headline]') >= 600, 'the headline is bold');
    assert.ok(await weight('[data-testid=cap-details]') < 600, 'the details are not');
    // The one-line answer leads; the tie-break is behind a closed "why" disclosure, one click away.
    assert.equal(await page.isVisible('[data-testid=cap-details]'), false, 'the tie-break starts folded');
    await page.click('[data-testid=cap-why] > summary');
    assert.equal(await page.isVisible('[data-testid=cap-details]'), true, 'a click on "why" shows it');
    // An empty price field says the price it uses: the H100's list price.
    assert.equal(await page.getAttribute('[data-testid=cap-price]', 'placeholder'), 'list: $3.49/GPU-h');
    // llm_d: its ties drawn, as llm-d's max-score picker draws them, it needs 2 replicas like the
    // rest, and the page says nothing of it. Given to the lowest index (`--des-tie-break lowest`), a
    // new prefix's first request always took the first idle replica, so llm_d never met the targets
    // and the replicas added got no requests; the page's sentence for that plan (its own function,
    // on the CLI's plan) says what it reached and why, as a run shows.
    const llmd = got.plans.find((p) => p.policy === 'llm_d');
    assert.equal(llmd.min_replicas, 2);
    const notes = await page.textContent('[data-testid=cap-notes]');
    assert.doesNotMatch(notes, /llm_d never met/);
    const lowest = cliPlan(['--slo-ttft-p99-ms', '300', '--plan-max-replicas', '32', '--plan-routing', 'llm_d', '--des-tie-break', 'lowest']);
    const old = lowest.policies[0];
    assert.equal(old.min_replicas, null);
    const spec = await page.evaluate(() => window.kvfleet.lastCapacity.spec);
    const words = await page.evaluate(async ([p, sp]) => (await import('./js/capacity.js')).neverMetWords(p, sp, { kv_blocks: null, llmd_weights: '3,2,2' }), [old, spec]);
    const said = 'llm_d never met the targets within 32 replicas: its p99 TTFT stayed between 347 ms and 362 ms from 1 to 32 replicas, '
      + 'against a target of 300 ms. From 2 to 32 replicas every run came out the same: the replicas added got no requests. '
      + "With an unbounded KV cache llm-d's KV-cache score is the same on every replica, and its prefix weight (3) is above its queue weight (2), "
      + "so the replica holding the most of a prompt's leading blocks always wins over an empty one, however long its queue.";
    assert.equal(words, said);
    const p99 = old.points.map((q) => Math.round(q.measured.ttft_ms_p99));
    assert.equal(Math.min(...p99), 347);
    assert.equal(Math.max(...p99), 362);
    // A run of llm_d on 32 replicas with ties to the lowest index: 347 ms, and replicas 3 to 32
    // served nothing.
    const run = JSON.parse(execFileSync(BIN, ['-q', '--des-routing', 'llm_d', '--des-instances', '32', '--des-tie-break', 'lowest', '--des-report-json', '-'], { cwd: ROOT, encoding: 'utf8' }));
    assert.equal(Math.round(run.summary.ttft_ms_p99), 347);
    const served = run.per_instance.map((r) => r.requests);
    assert.ok(served[0] > 0 && served[1] > 0, JSON.stringify(served));
    assert.deepEqual(served.slice(2), new Array(30).fill(0));
    // Drawn, the same run spreads the 8 prefixes' first requests: more than 2 replicas serve.
    const drawn = JSON.parse(execFileSync(BIN, ['-q', '--des-routing', 'llm_d', '--des-instances', '32', '--des-report-json', '-'], { cwd: ROOT, encoding: 'utf8' }));
    assert.ok(drawn.per_instance.filter((r) => r.requests > 0).length > 2, JSON.stringify(drawn.per_instance.map((r) => r.requests)));
    assert.equal(await page.getAttribute('[data-testid=cap-table] tr[data-policy=kv]', 'title'), 'Load kv on 2 replicas');
    const head = await page.$$eval('[data-testid=cap-table] thead th', (ths) => ths.map((th) => th.textContent));
    assert.equal(head.at(-1), 'Goodput on your 4 replicas');
    assert.doesNotMatch(`${headline} ${details} ${notes}`, /\(s\)/);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('autoscaled against static and the cheapest GPU mix of three presets equal the CLI; one preset checked is said, Cancel works, and the last mix stays', async () => {
  // A load step under kpa on the page; the CLI gets the same workload with the scaler as --plan-autoscale.
  const flags = ['--request-rate-schedule', '0s:4,20s:24', '--des-num-requests', '400', '--des-routing', 'kv',
    '--slo-ttft-p99-ms', '360', '--plan-max-replicas', '12', '--plan-routing', 'kv'];
  const { page, errors, close } = await openPage('/?request_rate_schedule=0s:4,20s:24&num_requests=400&routing=kv&autoscale=kpa');
  try {
    await plan(page, { ttft: '360', max: '12' });
    await page.waitForFunction(() => window.kvfleet.lastCapacityAutoscale?.comparison, null, { timeout: 60000 });
    const auto = await page.evaluate(() => window.kvfleet.lastCapacityAutoscale);
    const cli = cliPlan([...flags, '--plan-autoscale', 'kpa']);
    assert.equal(auto.replicas, cli.policies[0].min_replicas, 'the static fleet is the plan\'s answer for kv');
    assert.deepEqual(auto.comparison, cli.autoscale, 'the comparison equals the CLI\'s');
    const words = await page.textContent('[data-testid=cap-autoscale-words]');
    assert.ok(words.includes(cli.autoscale.answer), words);
    const rows = await page.$$eval('[data-testid=cap-autoscale-table] tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.equal(rows.length, 2);
    assert.ok(rows[0].includes(`static, ${cli.autoscale.static.max_replicas} replicas`) && rows[0].includes(cli.autoscale.static.gpu_hours.toFixed(3)), rows[0]);
    assert.ok(rows[1].includes(`$${cli.autoscale.autoscaled.cost_usd.toFixed(3)}`), rows[1]);
    await shoot(page, 'capacity-autoscale-1280');

    // Compare GPUs: every preset of the engine's model is offered and checked; with the H200
    // unchecked, the H100 (the engine), the MI300X and the B200, each at its list price, under kv.
    await page.selectOption('[data-testid=cap-mode]', 'mix');
    const boxes = () => page.$$eval('[data-testid=cap-mix-preset]', (bs) => bs.map((b) => [b.value, b.checked]));
    assert.deepEqual(await boxes(), [['llama3-8b-h100', true], ['llama3-8b-h200', true], ['llama3-8b-mi300x', true], ['llama3-8b-b200', true]]);
    await page.uncheck('[data-testid=cap-mix-preset][value=llama3-8b-h200]');
    await page.click('[data-testid=cap-run]');
    await page.waitForFunction(() => window.kvfleet.lastCapacityMix, null, { timeout: 120000 });
    const mix = await page.evaluate(() => window.kvfleet.lastCapacityMix);
    const cliMix = cliPlan([...flags, '--plan-mix', 'llama3-8b-h100,llama3-8b-mi300x,llama3-8b-b200']);
    assert.deepEqual(mix.mix, cliMix.mixes[0], 'the mix plan equals the CLI\'s');
    assert.equal(mix.headline, cliMix.headline);
    assert.equal(mix.mix.presets.length, 3);
    assert.equal(await page.textContent('[data-testid=cap-mix-headline]'), cliMix.headline);
    const mixHead = await page.$$eval('[data-testid=cap-mix-table] thead th', (ths) => ths.map((th) => [th.textContent, th.title]));
    assert.deepEqual(mixHead.slice(0, 4).map(([t]) => t), ['h100', 'mi300x', 'b200', 'GPUs'], 'one count column per preset, headed by its GPU');
    assert.deepEqual(mixHead.slice(0, 3).map(([, t]) => t.split(':')[0]), ['llama3-8b-h100', 'llama3-8b-mi300x', 'llama3-8b-b200'], 'its tooltip names the preset');
    const mixRows = await page.$$eval('[data-testid=cap-mix-table] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.equal(mixRows.length, cliMix.mixes[0].points.length, 'one row per mix simulated');
    const answer = cliMix.mixes[0].answer.map(String);
    const at = mixRows.filter((r) => r.slice(0, 3).join() === answer.join());
    assert.equal(at.length, 1, mixRows.join('\n'));
    assert.ok(at[0].at(-2).includes('← cheapest') && at[0].at(-1) === 'meets', at[0].join(' | '));
    // Only the answer's row stands out: its first cell bold, every other row's first cell plain.
    const weights = await page.$$eval('[data-testid=cap-mix-table] tbody tr', (trs) => trs.map((tr) => [
      [...tr.children].slice(0, 3).map((c) => c.textContent).join(), Number(getComputedStyle(tr.children[0]).fontWeight)]));
    for (const [counts, w] of weights) {
      if (counts === answer.join()) assert.ok(w >= 600, `the answer ${counts}: weight ${w}`);
      else assert.ok(w < 600, `${counts} is not the answer, yet its first cell weighs ${w}`);
    }
    const mixSays = await page.textContent('[data-testid=cap-mix-words]');
    assert.match(mixSays, /for each pair of presets/);
    assert.match(mixSays, /one replica fewer of any preset it has misses|Not verified/);
    assert.equal(await page.isVisible('[data-testid=cap-out]'), false, 'the per-policy plan is hidden in the mix mode');
    await shoot(page, 'capacity-mix-1280');
    // One preset checked: said, marked, and the last mix stays.
    await page.uncheck('[data-testid=cap-mix-preset][value=llama3-8b-h100]');
    await page.uncheck('[data-testid=cap-mix-preset][value=llama3-8b-mi300x]');
    await page.click('[data-testid=cap-run]');
    assert.match(await page.textContent('[data-testid=cap-error]'), /check at least two presets \(1 checked\)/);
    assert.equal(await page.getAttribute('[data-testid=cap-mix-boxes]', 'aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => window.kvfleet.lastCapacityMix.ms), mix.ms);
    assert.equal(await page.textContent('[data-testid=cap-mix-headline]'), cliMix.headline);
    // Cancel stops a search of all four, and the last mix stays.
    // (on four seeds, so that the search is still running when Cancel is clicked, however fast the
    // machine; the click is made as soon as the button shows, in the page)
    for (const n of ['llama3-8b-h100', 'llama3-8b-h200', 'llama3-8b-mi300x']) await page.check(`[data-testid=cap-mix-preset][value=${n}]`);
    await page.fill('[data-testid=cap-seeds]', '4');
    await page.click('[data-testid=cap-run]');
    assert.equal(await page.getAttribute('[data-testid=cap-mix-boxes]', 'aria-invalid'), null);
    await page.waitForFunction(() => {
      const b = document.querySelector('[data-testid=cap-cancel]');
      if (!b || b.hidden) return false;
      b.click();
      return true;
    }, null, { timeout: 30000, polling: 10 });
    assert.match(await page.textContent('[data-testid=cap-status]'), /Planning cancelled/);
    assert.equal(await page.evaluate(() => window.kvfleet.lastCapacityMix.ms), mix.ms);
    assert.equal(await page.textContent('[data-testid=cap-mix-headline]'), cliMix.headline);
    await page.setViewportSize({ width: 360, height: 800 });
    await shoot(page, 'capacity-mix-360');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the Pareto front rings the headline\'s answer alone at its cost, even where another fleet of that cost has a lower p99', async () => {
  const { paretoFront } = await import('../../www/js/capacity-chart.js');
  // The seed's workload at 24 req/s against 300 ms: round robin, dynamo and kv all need 6 H100s
  // ($20.94/h); round robin's $1.13 per million output tokens is more than 0.5% below the others'
  // $1.14, so the headline names it, though its p99 is 148 ms against their 147 ms.
  const pts = [
    { policy: 'round_robin', n: 6, x: 148, y: 20.94 },
    { policy: 'dynamo', n: 6, x: 147, y: 20.94 },
    { policy: 'kv', n: 6, x: 147, y: 20.94 },
    { policy: 'aibrix', n: 7, x: 275, y: 24.43 },
    { policy: 'kv', n: 8, x: 120, y: 27.92 },
  ];
  const key = (f) => f.map((q) => `${q.policy}@${q.n}`);
  // Without an answer: the cheapest fleet at each latency (dynamo first of the two at 147 ms).
  assert.deepEqual(key(paretoFront(pts)), ['dynamo@6', 'kv@8']);
  // With round robin's answer: it alone at $20.94/h, then kv's 8 replicas, faster.
  assert.deepEqual(key(paretoFront(pts, (q) => q.policy === 'round_robin' && q.n === 6)), ['round_robin@6', 'kv@8']);
});

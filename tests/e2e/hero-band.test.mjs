// tests/e2e/hero-band.test.mjs: the hero's "spread over K seeds" option. Off on the first screen (no band,
// no seeds worker); on, each drawn point's band is the 95 % interval the command line's --des-seeds gives
// for the same settings (native == wasm, one definition), checked by hand against Student t too; the
// sentence says "beyond noise" only where the intervals part (as printed, too); Cancel stops the runs, Resume finishes them,
// and unchecking takes the band away.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startSite, screenshot, ROOT, nativeBin, nextFrames } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 120000;
const settled = (page) => page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
  null, { timeout: PAGE_TIMEOUT });
const bandDone = (page) => page.waitForFunction(() => {
  const b = window.kvfleet.heroBand;
  return b && !b.pending && b.ctx && b.spreads.size === b.ctx.policies.length * b.ctx.xs.length;
}, null, { timeout: PAGE_TIMEOUT });
const bandSets = (page) => page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid=chart-hero]')).data.datasets
  .filter((d) => d.band).map((d) => ({ band: d.band, label: d.label, data: d.data })));

/** The command line's seeds section for the page's defaults with `routing` on `instances` replicas. */
function cliSeeds(routing, instances, k) {
  const out = execFileSync(nativeBin(), ['--des-routing', routing, '--des-instances', String(instances), '--des-seeds', String(k), '--des-report-json', '-', '-q'],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out).seeds;
}

const pct1 = (x) => `${(100 * x).toFixed(1)}%`;
const name = (p) => (p === 'round_robin' ? 'round robin' : p);

test('off at first; on with 3 seeds, each band is --des-seeds 3\'s interval and the sentence follows the intervals', async () => {
  const { page, errors } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  assert.equal(await page.isChecked('[data-testid=hero-band-on]'), false, 'off by default');
  assert.deepEqual(await bandSets(page), []);
  assert.equal(await page.evaluate(() => window.kvfleet.heroBand.host), null, 'no seeds worker before it is asked for');
  assert.equal(await page.isHidden('[data-testid=hero-noise]'), true);

  await page.fill('[data-testid=hero-band-k]', '3');
  await page.check('[data-testid=hero-band-on]');
  await bandDone(page);
  await nextFrames(page);
  const { routing, instances } = await page.evaluate(() => window.kvfleet.lastReport.config);
  const policies = await page.evaluate(() => window.kvfleet.heroBand.ctx.policies);
  const sets = await bandSets(page);
  assert.deepEqual([...new Set(sets.map((s) => s.band))].sort(), [...policies].sort(), 'a band for every drawn policy');
  // The band at the current count is the command line's 95 % interval over seeds 42, 43, 44, in percent.
  const cli = {};
  for (const p of policies) cli[p] = cliSeeds(p, instances, 3).summary.hit_rate_tokens;
  for (const p of policies) {
    const pt = await page.evaluate(([q, x]) => window.kvfleet.heroBand.spreads.get(`${q}|${x}`).hit_rate_tokens, [p, instances]);
    assert.deepEqual(pt.values, cli[p].values, `${p}: the same three runs natively and in the page`);
    assert.equal(pt.ci95_low, cli[p].ci95_low);
    assert.equal(pt.ci95_high, cli[p].ci95_high);
    // By hand: mean ± t(0.975, 2) · s / √3, t = 4.30265273.
    const [a, b, c] = pt.values, m = (a + b + c) / 3;
    const sd = Math.sqrt(((a - m) ** 2 + (b - m) ** 2 + (c - m) ** 2) / 2);
    assert.ok(Math.abs(pt.ci95_high - (m + 4.30265273 * sd / Math.sqrt(3))) < 1e-9, `${p}: Student t`);
    const hi = sets.find((s) => s.band === p && s.label.endsWith('band')).data.find((d) => d.x === instances);
    assert.ok(Math.abs(hi.y - 100 * Math.min(1, cli[p].ci95_high)) < 1e-9, `${p}: the band's upper edge`);
    // The sweep's own point is the first seed's.
    const own = await page.evaluate(([q, x]) => window.kvfleet.hero.sweeps[q].find((d) => d.instances === x).hit_rate_tokens, [p, instances]);
    assert.equal(pt.values[0], own);
  }
  // The sentence: the chosen policy against each other drawn one, "beyond noise" only where the intervals part.
  const mine = cli[routing];
  const parts = policies.filter((p) => p !== routing).map((p) => {
    const t = cli[p];
    const theirs = `${name(p)}'s ${pct1(t.mean)} ${t.ci95_low === t.ci95_high ? '(the same on every seed)' : `(${pct1(t.ci95_low)}–${pct1(t.ci95_high)})`}`;
    // Apart: the intervals do not overlap, and do not touch as printed (to 0.1%) either.
    const tenths = (x) => Math.round(1000 * x);
    const apart = (mine.ci95_low > t.ci95_high || t.ci95_low > mine.ci95_high)
      && (tenths(mine.ci95_low) > tenths(t.ci95_high) || tenths(t.ci95_low) > tenths(mine.ci95_high));
    return apart ? `${mine.mean > t.mean ? 'more' : 'less'} than ${theirs}, beyond noise` : `within noise of ${theirs}`;
  });
  const head = mine.ci95_low === mine.ci95_high ? '(the same on every seed)' : `(95% interval ${pct1(mine.ci95_low)}–${pct1(mine.ci95_high)})`;
  const want = `Over 3 seeds, ${name(routing)} serves ${pct1(mine.mean)} of prompt tokens from cache ${head}: ${parts.join('; ')}.`;
  assert.equal(await page.textContent('[data-testid=hero-noise]'), want);
  assert.match(await page.textContent('[data-testid=hero-band-status]'), /95% intervals of the token hit rate over 3 seeds/);
  await screenshot(page, 'hero-band-1280', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('Cancel stops the seeds, Resume finishes them, unchecking takes the band away', async () => {
  const { page, errors } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  await page.fill('[data-testid=hero-band-k]', '8');
  await page.check('[data-testid=hero-band-on]');
  await page.waitForFunction(() => window.kvfleet.heroBand.spreads.size >= 1, null, { timeout: PAGE_TIMEOUT });
  await page.click('[data-testid=hero-band-stop]');
  await page.waitForFunction(() => window.kvfleet.heroBand.stoppedId === window.kvfleet.heroBand.cancelledId, null, { timeout: PAGE_TIMEOUT });
  const done = await page.evaluate(() => window.kvfleet.heroBand.spreads.size);
  const total = await page.evaluate(() => window.kvfleet.heroBand.ctx.policies.length * window.kvfleet.heroBand.ctx.xs.length);
  assert.ok(done < total, `stopped before the end (${done} of ${total})`);
  assert.equal(await page.textContent('[data-testid=hero-band-status]'),
    `Cancelled at ${done} of ${total} points; the shaded bands are 95% intervals of the token hit rate over 8 seeds (seed 42 up).`);
  assert.equal(await page.textContent('[data-testid=hero-band-stop]'), 'Resume');
  // A redraw (a frame) starts nothing new: the worker was told to stop, and stopped.
  await nextFrames(page, 4);
  assert.equal(await page.evaluate(() => window.kvfleet.heroBand.pending), null);
  assert.equal(await page.evaluate(() => window.kvfleet.heroBand.spreads.size), done);
  // Resume: only the missing points, to the end.
  await page.click('[data-testid=hero-band-stop]');
  await bandDone(page);
  assert.equal(await page.isHidden('[data-testid=hero-band-stop]'), true);
  await page.uncheck('[data-testid=hero-band-on]');
  await nextFrames(page);
  assert.deepEqual(await bandSets(page), []);
  assert.equal(await page.isHidden('[data-testid=hero-noise]'), true);
  assert.deepEqual(errors, []);
});

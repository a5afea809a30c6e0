// tests/e2e/router-cpu.test.mjs: a router with one core set through the URL, in real Chromium: the
// settings group "Advanced: what the router knows" shows its cores, CPU times and queue; the fleet
// lines end with the native CLI's router CPU line for the same flags, word for word (busy share,
// routing delay, router rejections and timeouts), and the hero's turned-away figure gives their reasons; clearing the cores (a free, instant router) hides the CPU settings
// and drops the line; under round robin (which hashes no prompt blocks) the per-block CPU hides.
// Screenshot: test-results/router-cpu.png (light, 1280 px).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, nativeBin, ROOT } from './harness.mjs';

// 150 ms of a core per request at 6 req/s: 90 % busy, and a queue of 3 that overflows; a 400 ms
// caller timeout that some requests reach while still at the router (the router's timeouts).
const BUSY = { routing: 'kv', router_vcpu: 1, router_cpu_us_fixed: 150000, router_queue: 3, timeout_ms: 400 };
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** The native CLI on the same settings: its JSON report and its router CPU line. */
function cli(settings) {
  const flags = Object.entries(settings).flatMap(([k, v]) => [`--des-${k.replace(/_/g, '-')}`, String(v)]);
  const json = execFileSync(nativeBin(), ['-q', ...flags, '--des-report-json', '-'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const text = execFileSync(nativeBin(), ['-q', ...flags], { cwd: ROOT, encoding: 'utf8' });
  return { report: JSON.parse(json), line: text.split('\n').find((l) => l.startsWith('  Router CPU: ')) };
}

test('one busy router core: its settings, and the CLI\'s router CPU line under the fleet lines', async () => {
  const native = cli(BUSY);
  const x = native.report.router_cpu;
  assert.ok(native.line && x.rejected > 0 && x.timed_out > 0 && x.busy_share[0] > 0.5, `${native.line}\n${JSON.stringify(x)}`);
  assert.ok(native.line.endsWith(`rejected ${x.rejected}, timed out ${x.timed_out}`), native.line);
  const query = new URLSearchParams(Object.entries(BUSY).map(([k, v]) => [k, String(v)]));
  const { page, errors, context } = await site.open(`/?${query}`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport?.router_cpu && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    assert.deepEqual(report.config, native.report.config, 'config');
    assert.equal(report.summary.makespan_s, native.report.summary.makespan_s, 'makespan');
    assert.deepEqual(report.router_cpu, x, 'the page ran what the CLI ran');
    assert.equal(report.summary.rejected, native.report.summary.rejected);
    const box = await page.locator('[data-testid=fleet-lines]').textContent();
    assert.ok(box.split('\n').includes(native.line), `${box}\n--- the CLI's: ${native.line}`);
    assert.ok(native.line.includes(`rejected ${x.rejected}`) && native.line.includes(`busy ${Math.round(100 * x.busy_share[0])}%`), native.line);

    // The settings: cores, the two CPU times and the queue, in the router group.
    const group = page.locator('details', { has: page.locator('[data-testid=input-router_vcpu]') });
    await group.locator('summary').click();
    assert.match(await page.textContent('[data-testid=readout-router_vcpu]'), /^1 vCPU$/);
    // The hero names the reason: all the turned-away requests were refused at the router.
    const turned = await page.textContent('[data-testid=fig-dropped]');
    assert.ok(turned.includes(`${x.rejected} rejected: router queue full`), turned);
    assert.ok(turned.includes(`${report.summary.timed_out} timed out (${x.timed_out} at the router)`), turned);
    assert.match(await page.textContent('[data-testid=readout-router_queue]'), /^3 req$/);
    assert.equal(await page.locator('[data-testid=input-router_cpu_us_fixed]').isVisible(), true);
    await page.locator('[data-testid=input-router_vcpu]').scrollIntoViewIfNeeded();
    await screenshot(page, 'router-cpu', { fullPage: false });

    // Round robin hashes no prompt blocks: the per-block CPU hides, the fixed CPU stays.
    assert.equal(await page.locator('[data-testid=input-router_cpu_us_per_block]').isVisible(), true);
    let runs = await page.evaluate(() => window.kvfleet.runCount);
    await page.locator('[data-testid="input-routing-round_robin"]').locator('xpath=..').click();
    await page.waitForFunction((n) => window.kvfleet.runCount > n && window.kvfleet.lastReport.config.routing === 'round_robin', runs, { timeout: 60000 });
    assert.equal(await page.locator('[data-testid=input-router_cpu_us_per_block]').isVisible(), false);
    assert.equal(await page.locator('[data-testid=input-router_cpu_us_fixed]').isVisible(), true);

    // A free, instant router: the CPU settings hide and the line goes.
    runs = await page.evaluate(() => window.kvfleet.runCount);
    await page.locator('[data-testid=input-router_vcpu-unbounded]').check();
    await page.waitForFunction((n) => window.kvfleet.runCount > n && !window.kvfleet.lastReport.router_cpu, runs, { timeout: 60000 });
    assert.equal(await page.locator('[data-testid=input-router_cpu_us_fixed]').isVisible(), false);
    const after = await page.locator('[data-testid=fleet-lines]').textContent();
    assert.equal(after.includes('Router CPU'), false, after);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

// tests/e2e/lesson-rejected.test.mjs: a setting the simulator rejects, moved in a lesson's workbench
// ("Change it here"), is explained under that control, where the reader moved it, and the explanation
// goes once a run is accepted again.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

test('spike lesson: Fewest replicas moved above the starting replicas in the workbench says why under that slider', async () => {
  const { page, errors, context } = await site.open('/?lesson=spike-cold-replicas');
  try {
    await page.waitForSelector('[data-testid=lesson-checks] li');
    await page.waitForFunction(() => window.kvfleet?.runCount > 0);
    const error = '[data-testid=lesson-error-min_instances]';
    assert.equal(await page.isVisible(error), false, 'no error before a change');
    const runs = await page.evaluate(() => window.kvfleet.runCount);
    const start = await page.evaluate(() => window.kvfleet.lastReport.config.instances);
    // The slider's last stop: more replicas than the lesson starts with.
    await page.focus('[data-testid=lesson-input-min_instances]');
    await page.keyboard.press('End');
    await page.waitForSelector(`${error}:not([hidden])`, { timeout: 30000 });
    const text = await page.textContent(error);
    assert.match(text, /min_instances/i, text);
    assert.ok(text.includes(String(start)), `the message names the starting size ${start}: ${text}`);
    // The result on screen is still the last accepted run's.
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.instances), start);
    // Down to the slider's first stop, at most the starting size: accepted, and the error goes.
    await page.keyboard.press('Home');
    await page.waitForFunction((n) => window.kvfleet.runCount > n, runs, { timeout: 30000 });
    await page.waitForSelector(`${error}[hidden]`, { state: 'attached', timeout: 30000 });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

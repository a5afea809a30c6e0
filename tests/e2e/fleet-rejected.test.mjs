// tests/e2e/fleet-rejected.test.mjs: a mixed fleet the simulator rejects, typed in the settings panel:
// the page goes back to the fleet in force (none, or the last accepted one), so the engine and the
// replicas it sets follow that fleet (greyed only while one is in force), the status bar names it,
// the box keeps the text to correct, and the result on screen stays the last accepted run's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;

/** Types `text` into the settings panel's mixed fleet (its group opened) and waits for the rejection. */
async function typeFleet(page, text) {
  const errorsBefore = await page.evaluate(() => window.kvfleet.errors.length);
  await page.evaluate(() => { document.querySelector('[data-testid=input-fleet]').closest('details').open = true; });
  const box = page.locator('[data-testid=input-fleet]');
  await box.fill(text);
  await box.press('Enter');
  await page.waitForFunction((n) => window.kvfleet.errors.length > n, errorsBefore, { timeout: PAGE_TIMEOUT });
}

/** What the reader sees of the fleet, engine and replicas fields, and the status bar. */
function seen(page) {
  return page.evaluate(() => {
    const field = (id) => document.getElementById(id).closest('.field');
    const readout = (id) => field(id).querySelector('.field-top').lastElementChild.textContent.trim();
    const engine = field('in-engine');
    return {
      readout: readout('in-fleet'),
      box: document.getElementById('in-fleet').value,
      engineGreyed: engine.classList.contains('disabled'),
      engineDisabled: [...engine.querySelectorAll('select, input')].every((i) => i.disabled),
      engine: window.kvfleet.config.engine,
      instances: window.kvfleet.config.instances,
      status: document.getElementById('status-text').textContent,
      shown: window.kvfleet.lastReport.config.fleet ?? '',
      runs: window.kvfleet.runCount,
    };
  });
}

test('a rejected mixed fleet on a run of one engine: the engine is not greyed, the status says no fleet is in force', async () => {
  const { page, errors } = await site.open('/?num_requests=100', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.num_requests === 100, null, { timeout: PAGE_TIMEOUT });
  const before = await seen(page);
  // Two models in one fleet: the page reads the groups (and sets 2 replicas of the first preset), the
  // simulator refuses the mix.
  await typeFleet(page, '1:llama3-8b-h100,1:llama3-70b-2xh200');
  const got = await seen(page);
  assert.match(got.status, /^Mixed fleet 1:llama3-8b-h100,1:llama3-70b-2xh200 was rejected; no mixed fleet is in force, and the previous result is still shown\.$/);
  assert.equal(got.readout, before.readout, 'the readout is the one of no fleet');
  assert.deepEqual([got.engineGreyed, got.engineDisabled], [false, false], 'the engine is in use again');
  assert.deepEqual([got.engine, got.instances], [before.engine, before.instances], 'the replicas and engine of the run on screen');
  assert.equal(got.box, '1:llama3-8b-h100,1:llama3-70b-2xh200', 'the text typed stays in the box, to correct');
  assert.deepEqual([got.shown, got.runs], ['', before.runs], 'the result on screen is the last accepted run');
  await screenshot(page, 'fleet-rejected-none');
  assert.deepEqual(errors, []);
});

test('a rejected mixed fleet under an accepted one: the greyed engine and the replicas follow the fleet in force', async () => {
  const fleet = '2:llama3-8b-h100,2:llama3-8b-b200';
  const { page, errors } = await site.open(`/?fleet=${fleet}&num_requests=100`, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction((f) => window.kvfleet?.lastReport?.config.fleet === f, fleet, { timeout: PAGE_TIMEOUT });
  const before = await seen(page);
  assert.deepEqual([before.engineGreyed, before.instances], [true, 4]);
  await typeFleet(page, '1:llama3-8b-h100,1:llama3-70b-2xh200');
  const got = await seen(page);
  assert.equal(got.status, `Mixed fleet 1:llama3-8b-h100,1:llama3-70b-2xh200 was rejected; mixed fleet ${fleet} is still in force, and the previous result is still shown.`);
  assert.equal(got.readout, before.readout);
  assert.deepEqual([got.engineGreyed, got.engineDisabled, got.engine, got.instances], [true, true, 'llama3-8b-h100', 4]);
  assert.equal(got.box, '1:llama3-8b-h100,1:llama3-70b-2xh200');
  assert.deepEqual([got.shown, got.runs], [fleet, before.runs]);
  // Clearing the box runs the fleet of one engine.
  const box = page.locator('[data-testid=input-fleet]');
  await box.fill('');
  await box.press('Enter');
  await page.waitForFunction((n) => window.kvfleet.runCount > n && !(window.kvfleet.lastReport.config.fleet ?? ''), got.runs, { timeout: PAGE_TIMEOUT });
  assert.deepEqual(errors, []);
});

test('a mixed fleet of more replicas than a run takes is rejected as the fleet, with the bound, not as the Replicas slider', async () => {
  const { page, errors } = await site.open('/?num_requests=100', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.num_requests === 100, null, { timeout: PAGE_TIMEOUT });
  const before = await seen(page);
  await typeFleet(page, '150:llama3-8b-h100,150:llama3-8b-b200');
  const got = await seen(page);
  assert.match(got.status, /^Mixed fleet 150:llama3-8b-h100,150:llama3-8b-b200 was rejected/);
  const err = await page.evaluate(() => window.kvfleet.errors.at(-1));
  assert.match(String(err?.message ?? err), /invalid fleet: .*1 to 256 replicas in all, counting every preset's; this fleet has 300/);
  assert.equal(got.instances, before.instances, 'the Replicas setting is the run on screen\'s');
  assert.deepEqual(errors, []);
});

// tests/e2e/schedule-rejected.test.mjs: a rate schedule the simulator rejects, typed in the settings
// panel: the page says what was wrong and what is allowed, the field's readout and the request rate
// follow the schedule still in force (none, or the last accepted one), the box keeps the text to
// correct, and the result on screen stays the last accepted run's.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
const ALLOWED = 'TIME:RATE points from 0s, times rising, joined by \',\' (a step) or \'~\' (a linear ramp), '
  + 'e.g. 0s:4,120s:16,300s:4 or 0s:2~60s:20; or daily:PEAK:PERIOD[:TROUGH], e.g. daily:16:600s';

/** Types `text` into the settings panel's rate schedule (its group opened) and waits for the rejection. */
async function typeSchedule(page, text) {
  const errorsBefore = await page.evaluate(() => window.kvfleet.errors.length);
  await page.evaluate(() => { document.querySelector('[data-testid=input-request_rate_schedule]').closest('details').open = true; });
  const box = page.locator('[data-testid=input-request_rate_schedule]');
  await box.fill(text);
  await box.press('Enter');
  await page.waitForFunction((n) => window.kvfleet.errors.length > n, errorsBefore, { timeout: PAGE_TIMEOUT });
}

/** What the reader sees of the two fields, the error box and the status bar. */
function seen(page) {
  return page.evaluate(() => {
    const field = (id) => document.getElementById(id).closest('.field');
    const rate = document.getElementById('in-request_rate');
    return {
      readout: field('in-request_rate_schedule').querySelector('.field-top').lastElementChild.textContent.trim(),
      box: document.getElementById('in-request_rate_schedule').value,
      rateDisabled: rate.disabled,
      rateGreyed: field('in-request_rate').classList.contains('disabled'),
      rateNote: !field('in-request_rate').querySelector('.schedule-note')?.hidden,
      error: document.querySelector('[data-testid=run-error]').textContent,
      status: document.getElementById('status-text').textContent,
      shown: window.kvfleet.lastReport.config.request_rate_schedule ?? '',
      runs: window.kvfleet.runCount,
    };
  });
}

test('a rejected schedule on a run without one: the request rate stays in use, the readout says none', async () => {
  const { page, errors } = await site.open('/?num_requests=100', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.num_requests === 100, null, { timeout: PAGE_TIMEOUT });
  const before = await seen(page);
  await typeSchedule(page, 'banana');
  const got = await seen(page);
  assert.equal(got.error, `Rate schedule banana was rejected: 'banana' is not TIME:RATE. It must be ${ALLOWED}. `
    + 'The figure, numbers and sentences still show the last accepted settings.');
  assert.equal(got.status, 'Rate schedule banana was rejected; no rate schedule is in force, and the previous result is still shown.');
  // No schedule is in force: the readout is the one of no schedule, the request rate is not greyed.
  assert.equal(got.readout, before.readout);
  assert.deepEqual([got.rateDisabled, got.rateGreyed, got.rateNote], [false, false, false]);
  assert.equal(got.box, 'banana', 'the text typed stays in the box, to correct');
  assert.deepEqual([got.shown, got.runs], ['', before.runs], 'the result on screen is the last accepted run');
  // The rate works: moving it runs again, without the rejected schedule.
  await page.locator('#in-request_rate').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, got.runs, { timeout: PAGE_TIMEOUT });
  assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.request_rate_schedule ?? ''), '');
  assert.deepEqual(errors, []);
});

test('a rejected schedule under an accepted one: the readout and the greyed rate follow the one in force', async () => {
  const { page, errors } = await site.open('/?request_rate_schedule=0s:2,20s:24&num_requests=300', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.request_rate_schedule === '0s:2,20s:24', null, { timeout: PAGE_TIMEOUT });
  await typeSchedule(page, '0s:4,60s:8,30s:2');
  const got = await seen(page);
  assert.equal(got.error, `Rate schedule 0s:4,60s:8,30s:2 was rejected: times must increase: '30s:2' does not. It must be ${ALLOWED}. `
    + 'The figure, numbers and sentences still show the last accepted settings (rate schedule 0s:2,20s:24).');
  assert.equal(got.status, 'Rate schedule 0s:4,60s:8,30s:2 was rejected; rate schedule 0s:2,20s:24 is still in force, and the previous result is still shown.');
  assert.equal(got.readout, '0s:2,20s:24');
  assert.deepEqual([got.rateDisabled, got.rateGreyed, got.rateNote], [true, true, true]);
  assert.equal(got.box, '0s:4,60s:8,30s:2');
  assert.deepEqual(errors, []);
});

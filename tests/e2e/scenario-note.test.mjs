// tests/e2e/scenario-note.test.mjs: a "Try:" scenario's note belongs to that scenario: another
// scenario replaces it, a lesson or a setting that leaves it hides it, and no note names a control
// the page does not have (the cache's last stop is "unbounded" on its slider, not a checkbox).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const NOTE = '[data-testid=scenario-note]';
const visibleNote = (page) => page.evaluate((sel) => {
  const n = document.querySelector(sel);
  return n && !n.hidden && n.offsetParent !== null ? n.textContent : null;
}, NOTE);

async function afterRun(page, click) {
  const runs = await page.evaluate(() => window.kvfleet.runCount);
  await click();
  await page.waitForFunction((n) => window.kvfleet.runCount > n, runs, { timeout: 30000 });
}

test('a scenario note is replaced by the next scenario, and hidden by a lesson and by leaving it', async () => {
  const { page, errors, context } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
    await afterRun(page, () => page.click('[data-testid=scenario-tight]'));
    const tight = await visibleNote(page);
    assert.match(tight, /^32 prefixes/);
    // The note's words name controls that exist: the cache slider, whose last stop reads "unbounded".
    assert.doesNotMatch(tight, /tick|“Unbounded”|checkbox/, tight);
    assert.match(tight, /slide Cache per replica to unbounded/);
    const cacheLabel = await page.locator('#hero-controls').getByText('Cache per replica', { exact: false }).count();
    assert.ok(cacheLabel > 0, 'the hero has a control labelled Cache per replica');

    await afterRun(page, () => page.click('[data-testid=scenario-single]'));
    assert.match(await visibleNote(page), /^With one replica/, 'the next scenario replaces the note');

    await afterRun(page, () => page.click('[data-testid=scenario-tight]'));
    await afterRun(page, () => page.click('[data-testid=lesson-more-replicas-slower]'));
    assert.equal(await visibleNote(page), null, 'a lesson leaves the scenario: its note goes');

    await afterRun(page, () => page.click('[data-testid=scenario-tight]'));
    assert.match(await visibleNote(page), /^32 prefixes/);
    await afterRun(page, () => page.click('[data-testid=lesson-more-replicas-slower]'));
    await page.getByRole('button', { name: 'Leave the lesson' }).click();
    await page.waitForSelector('[data-testid=lesson-how]', { state: 'detached' });
    assert.equal(await visibleNote(page), null, 'still gone after leaving the lesson');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('no scenario note names a control the page no longer has', async () => {
  const { SCENARIOS } = await import('../../www/js/scenarios.js');
  for (const s of SCENARIOS) assert.doesNotMatch(s.look, /\btick\b|Unbounded|checkbox/, `${s.id}: ${s.look}`);
});

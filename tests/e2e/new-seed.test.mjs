// The settings panel's "New seed" button: it draws a seed from the browser's random source, runs
// with it and puts it in the link; the link reloaded repeats the run number for number.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT, settledUrl } from './harness.mjs';

let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});

after(async () => {
  await site?.close();
});

async function openPage(where) {
  const { page, errors, context } = await site.open(where, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

const reportOf = (page) => page.evaluate(() => ({ seed: window.kvfleet.lastReport.seed, summary: window.kvfleet.lastReport.summary }));
const urlSeed = (url) => new URL(url).searchParams.get('seed');

test('New seed draws a seed, runs it, puts it in the link, and the link repeats the run', async () => {
  const first = await openPage('/?routing=kv');
  let link, drawn;
  try {
    const { page } = first;
    const before = await reportOf(page);
    assert.equal(before.seed, 42, 'the page opens on the default seed');
    const button = page.locator('[data-testid="reroll"]');
    assert.equal((await button.textContent()).trim(), '↻ New seed');
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await button.click();
    await page.waitForFunction((k) => window.kvfleet.runCount > k && window.kvfleet.lastReport.seed !== 42, n, { timeout: 20000 });
    drawn = await reportOf(page);
    assert.ok(Number.isSafeInteger(drawn.seed) && drawn.seed >= 0 && drawn.seed < 2 ** 53, `seed ${drawn.seed}`);
    assert.notDeepEqual(drawn.summary, before.summary, 'a new seed gives other numbers');
    assert.equal(await page.inputValue('[data-testid="input-seed"]'), String(drawn.seed), 'the seed field shows it');
    assert.equal(await page.textContent('[data-testid="readout-seed"]'), String(drawn.seed), 'its readout, every digit');
    await page.waitForFunction((s) => new URLSearchParams(location.search).get('seed') === String(s), drawn.seed);
    const settled = await settledUrl(page);
    assert.equal(urlSeed(settled), String(drawn.seed));
    link = new URL(settled).pathname + new URL(settled).search;
    await screenshot(page, 'new-seed', { fullPage: false });
    assert.deepEqual(first.errors, []);
  } finally { await first.close(); }

  const second = await openPage(link);
  try {
    const again = await reportOf(second.page);
    assert.equal(again.seed, drawn.seed, 'the link carries the seed');
    assert.deepEqual(again.summary, drawn.summary, 'same link, same numbers');
    assert.deepEqual(second.errors, []);
  } finally { await second.close(); }
});

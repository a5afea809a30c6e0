// tests/e2e/hero-rejected.test.mjs: the first screen never shows an old result without saying why.
// The cache slider starts at the smallest cache the simulator accepts for the workload (the native
// CLI accepts it and refuses one block less), and follows prompt length and block size; settings the
// simulator rejects are said beside the hero's controls in plain words, the figure keeps the last
// accepted settings' curves, and the address keeps those settings. The prefixes slider's first tick
// is the value its first stop sets. Screenshot: hero-rejected.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startSite, screenshot, settledUrl, nativeBin, ROOT } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

async function openHero(url) {
  const opened = await site.open(url, { viewport: { width: 1440, height: 900 } });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending, null, { timeout: 60000 });
  return opened;
}

/** Whether the native CLI accepts these flags (exit 0) for a run of one request. */
function accepts(flags) {
  const r = spawnSync(nativeBin(), [...flags, '--des-num-requests', '1', '-q'], { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0;
}

for (const [query, flags] of [['', []], ['input_len=8192', ['--des-input-len', '8192']], ['block_size=256', ['--des-block-size', '256']],
  ['output_len=1000&range_ratio=0.5', ['--des-output-len', '1000', '--des-range-ratio', '0.5']]]) {
  test(`the cache slider's first stop is the smallest cache the simulator accepts (${query || 'defaults'})`, async () => {
    const { page, errors, context } = await openHero(`/?${query}`);
    try {
      await page.focus('[data-testid=hero-input-kv_blocks]');
      await page.keyboard.press('Home');
      await page.waitForFunction(() => window.kvfleet.lastReport.config.kv_blocks === window.kvfleet.config.kv_blocks, null, { timeout: 30000 });
      const least = await page.evaluate(() => window.kvfleet.config.kv_blocks);
      assert.ok(Number.isInteger(least), `${least}`);
      assert.ok(accepts([...flags, '--des-kv-blocks', String(least)]), `the CLI accepts ${least} blocks`);
      assert.ok(!accepts([...flags, '--des-kv-blocks', String(least - 1)]), `the CLI refuses ${least - 1} blocks`);
      assert.equal(await page.isVisible('[data-testid=run-error]'), false, 'no error at the first stop');
      // Its first tick names that stop.
      assert.equal(await page.textContent('[data-testid=hero-marks-kv_blocks] span:first-child'), String(least));
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

test('a setting that makes the cache too small: the reason beside the hero\'s controls, the last accepted figure, the last accepted address', async () => {
  const { page, errors, context } = await openHero('/?kv_blocks=13');
  try {
    await page.waitForFunction(() => window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    const good = await page.evaluate(() => window.kvfleet.lastReport.summary.hit_rate_tokens);
    const points = () => page.evaluate(() => Object.values(window.kvfleet.hero.onScreen()).reduce((n, pts) => n + pts.length, 0));
    const before = await points();
    assert.ok(before > 0);
    // Longer prompts (the panel's input length at its top) no longer fit in 13 blocks.
    await page.click('#group-traffic > summary');
    await page.focus('[data-testid=input-input_len]');
    await page.keyboard.press('End');
    const box = page.locator('[data-testid=run-error]');
    await box.waitFor({ state: 'visible', timeout: 30000 });
    const text = await box.textContent();
    assert.match(text, /^Cache per replica 13 blocks was rejected: it must be at least [\d,]+ blocks/);
    assert.match(text, /still show the last accepted settings \(cache per replica 13 blocks\)\.$/);
    assert.doesNotMatch(text, /invalid kv_blocks|allowed:/, 'plain words, not the raw message');
    // On the first screen, beside the controls.
    await page.evaluate(() => window.scrollTo(0, 0));
    const b = await box.boundingBox();
    assert.ok(b && b.y >= 0 && b.y + b.height <= 900, `the reason is on the first screen (${b && b.y})`);
    // The result, the figure and the address stay the last accepted settings'.
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.summary.hit_rate_tokens), good);
    assert.equal(await points(), before, 'the figure keeps its curves');
    const url = new URL(await settledUrl(page));
    assert.equal(url.searchParams.get('kv_blocks'), '13');
    assert.equal(url.searchParams.get('input_len'), null, 'the rejected input length is not in the address');
    await screenshot(page, 'hero-rejected', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the prefixes slider\'s first tick is the value its first stop sets', async () => {
  const { page, errors, context } = await openHero('/');
  try {
    await page.focus('[data-testid=hero-input-num_prefixes]');
    await page.keyboard.press('Home');
    const v = await page.evaluate(() => window.kvfleet.config.num_prefixes);
    const first = page.locator('[data-testid=hero-marks-num_prefixes] span').first();
    assert.equal(await first.textContent(), String(v));
    assert.equal(await first.evaluate((s) => s.style.getPropertyValue('--at')), '0', 'at the track\'s start');
    assert.equal(await page.getAttribute('[data-testid=hero-input-num_prefixes]', 'aria-valuetext'), '0 prefixes');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

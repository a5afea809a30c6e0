// tests/e2e/chromium-args.test.mjs: the flags the page tests start Chromium with (harness.mjs). Chromium
// reads only the last --disable-features, so ours must repeat every feature playwright-core disables
// (read here from the installed playwright-core's own source, not from harness.mjs); and with them a new
// browser context opens no address-bar popup pages (chrome://omnibox-popup.top-chrome/), which cost
// about half a second of CPU for each context.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from './harness.mjs';

/** The feature names in playwright-core's `disabledFeatures = [...]` (lib/coreBundle.js), comments skipped. */
function playwrightDisabled() {
  const text = readFileSync(join(ROOT, 'node_modules', 'playwright-core', 'lib', 'coreBundle.js'), 'utf8');
  const start = text.indexOf('disabledFeatures = [');
  assert.ok(start > 0, "playwright-core's coreBundle.js has no `disabledFeatures = [`: look for its Chromium switches");
  const body = text.slice(start, text.indexOf('].filter', start));
  return [...body.replace(/\/\/.*$/gm, '').matchAll(/"([A-Za-z0-9]+)"/g)].map((m) => m[1]);
}

test("our --disable-features repeats every feature playwright-core disables, and there is one such flag", () => {
  const flags = CHROMIUM_ARGS.filter((a) => a.startsWith('--disable-features='));
  assert.equal(flags.length, 1, flags.join(' '));
  const ours = flags[0].slice('--disable-features='.length).split(',');
  const theirs = playwrightDisabled();
  assert.ok(theirs.includes('PaintHolding') && theirs.length >= 10, `read ${theirs.length} features: ${theirs}`);
  assert.deepEqual(theirs.filter((f) => !ours.includes(f)), [], 'features playwright-core disables that our flag would switch back on');
});

test('a new browser context opens no address-bar popup pages', async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    for (let i = 0; i < 2; i++) {
      const page = await (await browser.newContext()).newPage();
      await page.goto('data:text/html,<p>hi</p>');
    }
    const cdp = await browser.newBrowserCDPSession();
    // Chromium creates them with the window; give it a moment to, were it to.
    await new Promise((r) => setTimeout(r, 1000));
    const { targetInfos } = await cdp.send('Target.getTargets');
    const urls = targetInfos.map((t) => t.url);
    assert.equal(urls.filter((u) => u.startsWith('data:')).length, 2, urls.join(' '));
    assert.deepEqual(urls.filter((u) => u.startsWith('chrome://')), [], 'Chromium pages beside the tests\' own');
  } finally {
    await browser.close();
  }
});

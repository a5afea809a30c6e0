// tests/e2e/trace-panel.test.mjs: the Replay section answers its own buttons: a status line names the
// trace being replayed, then the one on screen with its request count (counted here from the file)
// and a link to the results; its button is marked pressed; back to the synthetic workload, neither.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT } from './harness.mjs';

let site;
const linesIn = (file) => readFileSync(path.join(ROOT, 'www/data', file), 'utf8').split('\n').filter((l) => l.trim()).length;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

test('a built-in trace button: the Replay section says what is loading, then what is on screen, and marks the button', async () => {
  const { page, errors, context } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport, null, { timeout: 60000 });
    assert.equal(await page.isHidden('[data-testid=trace-status]'), true, 'nothing to say for the synthetic workload');
    // Every text the status line shows, in order.
    await page.evaluate(() => {
      window.__said = [];
      const el = document.querySelector('[data-testid=trace-status]');
      new MutationObserver(() => { if (!el.hidden) window.__said.push(el.textContent); }).observe(el, { childList: true, subtree: true, characterData: true, attributes: true });
    });
    await page.locator('[data-testid=trace-conversation]').scrollIntoViewIfNeeded();
    await page.click('[data-testid=trace-conversation]');
    await page.waitForFunction(() => /conversation_trace/.test(window.kvfleet.lastReport?.source || ''), null, { timeout: 60000 });
    await page.waitForFunction(() => /^On screen/.test(document.querySelector('[data-testid=trace-status]').textContent));
    const said = await page.evaluate(() => window.__said);
    assert.equal(said[0], 'Replaying the conversation trace…', said.join(' | '));
    const n = linesIn('conversation_trace.jsonl');
    assert.equal(await page.textContent('[data-testid=trace-status]'), `On screen: the conversation trace, ${n.toLocaleString('en-US')} requests replayed; see the results above.`);
    assert.equal(await page.getAttribute('[data-testid=trace-status] a', 'href'), '#results');
    assert.equal(await page.getAttribute('[data-testid=trace-conversation]', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('[data-testid=trace-synthetic]', 'aria-pressed'), 'false');
    // Back to the synthetic workload: the line goes, no button is pressed.
    await page.click('#source-reset');
    await page.waitForFunction(() => !window.kvfleet.lastReport.source || !/conversation/.test(window.kvfleet.lastReport.source), null, { timeout: 60000 });
    await page.waitForFunction(() => document.querySelector('[data-testid=trace-status]').hidden);
    assert.equal(await page.getAttribute('[data-testid=trace-conversation]', 'aria-pressed'), 'false');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

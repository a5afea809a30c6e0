// tests/e2e/routing-about-room.test.mjs: the line under the hero's routing buttons (the chosen
// policy's description) keeps the room of the longest one at the page's width, so the per-replica
// chart under it does not move when the policy changes (llm_d's line takes three lines, round_robin's one).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, nextFrames } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const ABOUT = '[data-testid=hero-routing-about]';

/** Picks `policy` on the hero's buttons, waits for its run and its line, and returns where things sit. */
async function pick(page, policy) {
  const runs = await page.evaluate(() => window.kvfleet.runCount);
  await page.click(`[data-testid=hero-controls] label[for$="-${policy}"]`);
  await page.waitForFunction((n) => window.kvfleet.runCount > n, runs, { timeout: 30000 });
  await page.waitForFunction((p) => window.kvfleet?.config?.routing === p, policy);
  return where(page);
}

async function where(page) {
  await nextFrames(page, 3);
  return page.evaluate((sel) => {
    const about = document.querySelector(sel);
    const lineH = parseFloat(getComputedStyle(about).fontSize) * 1.35;
    // The text's own height (its lines), apart from the room kept for it.
    const r = document.createRange();
    r.selectNodeContents(about);
    const rects = [...r.getClientRects()];
    const textH = rects.length ? Math.max(...rects.map((x) => x.bottom)) - Math.min(...rects.map((x) => x.top)) : 0;
    return { reps: document.querySelector('[data-testid=chart-hero-reps]').getBoundingClientRect().top + scrollY,
      lines: Math.round(textH / lineH), text: about.textContent };
  }, ABOUT);
}

for (const [w, h] of [[1440, 900], [1280, 800]]) {
  test(`${w}x${h}: the per-replica chart stays put across round_robin -> llm_d -> aibrix`, async () => {
    const { page, errors, context } = await site.open('/', { viewport: { width: w, height: h } });
    try {
      await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
      assert.equal(await page.evaluate(() => window.kvfleet.config.routing), 'round_robin', 'the page starts on round robin');
      const at = { round_robin: await where(page) };
      for (const p of ['llm_d', 'aibrix']) at[p] = await pick(page, p);
      // The case the page must handle: descriptions of different lengths at this width.
      assert.ok(at.llm_d.lines > at.round_robin.lines, `llm_d's line (${at.llm_d.lines} lines) is longer than round_robin's (${at.round_robin.lines})`);
      for (const p of ['llm_d', 'aibrix']) {
        assert.ok(Math.abs(at[p].reps - at.round_robin.reps) < 1, `${p}: chart top ${at[p].reps} vs round_robin's ${at.round_robin.reps}`);
      }
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

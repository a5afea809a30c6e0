// tests/e2e/compare-layout.test.mjs: the "Compare routing policies" table in real Chromium. At 1280 px
// every cell (the last column, Findings, included) lies inside the table's box, with no sideways scroll
// and no scroll hint; on a 390 px phone the table scrolls inside its box, a hint says so and edge
// shadows mark the side with more columns, and scrolling to the end brings the Findings column into view.
// At both widths the panel holds its space before it runs: filling it does not move the next section.
// Screenshots: compare-table-1280, compare-table-390.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

/** Opens the page at `width`, scrolls to the comparison and waits for its table (it runs on sight). */
async function openCompare(width, height) {
  const { page, errors, context } = await site.open('/', { viewport: { width, height } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  const before = await below(page);
  await page.locator('[data-testid="compare"]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="compare-table"] tbody tr').length >= 4
    && !document.querySelector('[data-testid="compare-run"]').disabled, null, { timeout: 60000 });
  const after = await below(page);
  await page.locator('[data-testid="compare-table"]').scrollIntoViewIfNeeded();
  return { page, errors, close: () => context.close(), moved: after - before };
}

/** How far the next section's top lies below the comparison's top, px (what its filling would move). */
const below = (page) => page.evaluate(() => document.querySelector('[data-testid="capacity"]').getBoundingClientRect().top
  - document.querySelector('[data-testid="compare"]').getBoundingClientRect().top);

/** The table's box, its scroll extent, and how far each column's rightmost cell reaches past the box. */
const measure = (page) => page.evaluate(() => {
  const table = document.querySelector('[data-testid="compare-table"]');
  const wrap = table.parentElement;
  const box = wrap.getBoundingClientRect();
  const cells = [...table.querySelectorAll('th, td')];
  const past = cells.map((c) => ({ text: c.textContent, over: c.getBoundingClientRect().right - box.right }))
    .filter((c) => c.over > 0.5);
  const hint = document.querySelector('[data-testid="compare-scroll-hint"]');
  const hintBox = hint?.getBoundingClientRect();
  return {
    past, scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth, heads: [...table.querySelectorAll('thead th')].map((t) => t.textContent),
    hint: hint && !hint.hidden && hintBox.width > 0 ? { text: hint.textContent, left: hintBox.left, right: hintBox.right, top: hintBox.top, tableTop: table.getBoundingClientRect().top } : null,
    shadows: (getComputedStyle(wrap).backgroundImage.match(/gradient/g) || []).length,
  };
});

test('at 1280 px every cell of the compare table lies inside its box, with no scroll hint', async () => {
  const { page, errors, close, moved } = await openCompare(1280, 900);
  try {
    // Its space was held before it ran: filling it moved the next section by nothing.
    assert.ok(Math.abs(moved) <= 1, `the next section moved ${moved} px when the comparison filled`);
    const m = await measure(page);
    assert.equal(m.heads.at(-1), 'Findings', 'the last column is Findings');
    assert.deepEqual(m.past, [], `cells past the table's right edge: ${JSON.stringify(m.past)}`);
    assert.ok(m.scrollWidth <= m.clientWidth + 1, `no sideways scroll (${m.scrollWidth} > ${m.clientWidth})`);
    assert.equal(m.hint, null, 'no scroll hint when nothing is hidden');
    await screenshot(page, 'compare-table-1280', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('on a 390 px phone the compare table scrolls in its box, with a hint and edge shadows, to the Findings column', async () => {
  const { page, errors, close, moved } = await openCompare(390, 844);
  try {
    assert.ok(Math.abs(moved) <= 1, `the next section moved ${moved} px when the comparison filled`);
    const m = await measure(page);
    assert.ok(m.scrollWidth > m.clientWidth + 1, 'the table is wider than a phone');
    assert.ok(m.hint, 'a hint says the table scrolls sideways');
    assert.match(m.hint.text, /Scroll the table sideways/);
    assert.ok(m.hint.left >= 0 && m.hint.right <= 390, 'the hint is on screen');
    assert.ok(m.hint.top < m.hint.tableTop, 'the hint sits above the table');
    assert.ok(m.shadows >= 2, `edge shadows on the scroll box (${m.shadows} gradients)`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no page-wide sideways scroll (${overflow}px)`);
    await screenshot(page, 'compare-table-390', { fullPage: false });
    // Scrolled to its end, the last column is inside the box.
    await page.evaluate(() => { const w = document.querySelector('[data-testid="compare-table"]').parentElement; w.scrollLeft = w.scrollWidth; });
    const end = await page.evaluate(() => {
      const table = document.querySelector('[data-testid="compare-table"]');
      const last = table.querySelector('thead th:last-child').getBoundingClientRect();
      return { right: last.right, box: table.parentElement.getBoundingClientRect().right };
    });
    assert.ok(end.right <= end.box + 0.5, 'scrolled to the end, Findings is in view');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

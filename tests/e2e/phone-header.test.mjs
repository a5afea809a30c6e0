// tests/e2e/phone-header.test.mjs: on a phone (390x844) the header links the book too, on the
// first screen beside "Copy link", neither overlapping the other nor the title.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const box = (page, sel) => page.locator(sel).boundingBox();
const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('390x844: "The book" is in the header, on the first screen, and does not crowd "Copy link"', async () => {
  const { page, errors, context } = await site.open('/', { viewport: { width: 390, height: 844 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0, null, { timeout: 60000 });
    const book = page.locator('header [data-testid=book-link]');
    assert.ok(await book.isVisible(), 'the book link is shown in the header');
    assert.equal(await book.getAttribute('href'), 'book/');
    assert.equal((await book.innerText()).trim(), 'The book');
    const b = await box(page, 'header [data-testid=book-link]');
    const s = await box(page, 'header [data-testid=share]');
    const h = await box(page, 'header h1');
    for (const [name, r] of [['book', b], ['Copy link', s]]) {
      assert.ok(r.x >= 0 && r.x + r.width <= 390 && r.y >= 0 && r.y + r.height <= 844, `${name} inside the first viewport: ${JSON.stringify(r)}`);
      assert.ok(r.height >= 24, `${name} is tappable (${r.height} px)`);
    }
    assert.ok(!overlap(b, s), `book ${JSON.stringify(b)} and Copy link ${JSON.stringify(s)} do not overlap`);
    assert.ok(!overlap(b, h) && !overlap(s, h), 'the buttons do not cover the title');
    await screenshot(page, 'phone-header', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

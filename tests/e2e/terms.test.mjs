// tests/e2e/terms.test.mjs: the jargon beside the figure ("p99", "overlap weight", "R2") is linked to its
// glossary entry: the entry's own words on hover, the first use only, the text itself unchanged; a click
// shows the definition under the word, whose link opens a closed glossary at the entry, without changing
// the address; an embed (no glossary) links nothing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, screenshot } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;

async function openHero(url, viewport = { width: 1280, height: 900 }) {
  const opened = await site.open(url, { viewport });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
    null, { timeout: PAGE_TIMEOUT });
  return opened;
}

/** The glossary as the reader sees it: each dt's id, its words and its dd's, read pair by pair. */
const glossary = (page) => page.evaluate(() => {
  const out = {};
  const items = [...document.querySelector('[data-testid=glossary]').children];
  for (let i = 0; i + 1 < items.length; i += 2) out[items[i].id] = `${items[i].textContent}: ${items[i + 1].textContent.trim()}`;
  return out;
});

/** The term links under `sel`: their words, entry and hover text. */
const links = (page, sel) => page.$$eval(`${sel} a.term`, (as) => as.map((a) => ({ word: a.textContent, term: a.dataset.term, title: a.title, href: a.getAttribute('href') })));

test('on the trace under kv, the detail links its first "p99", "R2", "overlap weight" and the routing capture\'s words to the glossary, with the entries\' words', async () => {
  const { page, errors } = await openHero('/?trace=conversation_trace.jsonl&routing=kv');
  const g = await glossary(page);
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  // The sentence the links sit in: two p99s, prefix_aware's one replica R2, and kv's overlap weight.
  assert.equal(detail.match(/\bp99\b/g).length, 2, detail);
  assert.match(detail, /to one replica, R2\./);
  assert.match(detail, /\(overlap weight 1\)/);
  const l = await links(page, '[data-testid=takeaway-detail]');
  // kv's own sentences open the detail (its share of the gain, its dip), then the comparisons.
  assert.ok(detail.startsWith('kv weighs a replica\'s missed blocks against its load (overlap weight 1)'), detail);
  assert.deepEqual(l.map((x) => [x.word, x.term]), [['overlap weight', 'term-overlap'], ['replica that held most of its prompt', 'term-capture'], ['p99', 'term-ttft'], ['R2', 'term-replicas']]);
  for (const x of l) {
    assert.equal(x.title, g[x.term], `"${x.word}": the glossary's own words on hover`);
    assert.equal(x.href, `#${x.term}`);
  }
  assert.match(g['term-ttft'], /p99 the time the slowest 1% wait at least/);
  // Linking changed no word: the sentence reads as it did, the spaces around each link kept.
  assert.ok(detail.includes('35.5 min p99, kv\'s 538 ms and 2.98 s; that p99 is about'), detail);
  // Run again on the same element, nothing more is linked (it runs after every write).
  const again = await page.evaluate(async () => {
    const { linkTerms } = await import('./js/terms.js');
    const el = document.querySelector('[data-testid=takeaway-detail]');
    linkTerms(el);
    return { n: el.querySelectorAll('a.term').length, text: el.textContent };
  });
  assert.deepEqual(again, { n: 4, text: detail });
  // The policy line and the warning link theirs too.
  assert.deepEqual((await links(page, '[data-testid=hero-routing-about]')).map((x) => x.word), ['overlap weight']);
  assert.deepEqual(errors, []);
});

test('a click on a term shows its definition under it; the box\'s link opens a closed glossary at the entry; the address is left alone', async () => {
  const { page, errors } = await openHero('/?trace=conversation_trace.jsonl&routing=prefix_aware');
  const warning = await links(page, '[data-testid=hero-finding-load_uneven]');
  assert.deepEqual(warning.map((x) => [x.word, x.term]), [['R2', 'term-replicas']]);
  const g = await glossary(page);
  await page.evaluate(() => { document.getElementById('explainer').open = false; window.scrollTo(0, 0); });
  const url = page.url();
  const term = '[data-testid=takeaway-detail] a.term[data-term=term-ttft]';
  await page.locator(term).scrollIntoViewIfNeeded();
  const before = await page.evaluate(() => window.scrollY);
  await page.click(term);
  const shown = await page.evaluate((sel) => {
    const a = document.querySelector(sel), box = document.querySelector('[data-testid=term-pop]');
    const r = a.getBoundingClientRect(), b = box?.getBoundingClientRect();
    return { text: box?.textContent, gap: b && b.top - r.bottom, left: b && b.left, right: b && b.right, vw: document.documentElement.clientWidth,
      expanded: a.getAttribute('aria-expanded'), open: document.getElementById('explainer').open, scrollY: window.scrollY };
  }, term);
  // The glossary's own words, "In the glossary ↓" after them, just under the word and inside the window; nothing else moved.
  assert.equal(shown.text, `${g['term-ttft']} In the glossary ↓`);
  assert.ok(shown.gap >= 0 && shown.gap < 16, `under the word (${shown.gap} px)`);
  assert.ok(shown.left >= 0 && shown.right <= shown.vw, `inside the window (${shown.left}-${shown.right} of ${shown.vw})`);
  assert.equal(shown.expanded, 'true');
  assert.equal(shown.open, false, 'the glossary stays closed');
  assert.equal(shown.scrollY, before, 'no jump');
  await screenshot(page, 'terms-popover-1280', { fullPage: false });
  // Escape closes it; so does a second click's opposite, a click elsewhere.
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('[data-testid=term-pop]').count(), 0, 'Escape closes it');
  await page.click(term);
  await page.click('[data-testid=takeaway]');
  assert.equal(await page.locator('[data-testid=term-pop]').count(), 0, 'a click elsewhere closes it');
  // The box's link: the glossary opens at the entry, marked.
  await page.click(term);
  await page.click('[data-testid=term-pop] a.term-more');
  const after = await page.evaluate(() => {
    const dt = document.getElementById('term-ttft');
    const r = dt.getBoundingClientRect();
    return { open: document.getElementById('explainer').open, top: r.top, bottom: r.bottom, vh: window.innerHeight,
      flash: dt.classList.contains('term-flash') && dt.nextElementSibling.classList.contains('term-flash'),
      pop: document.querySelectorAll('[data-testid=term-pop]').length };
  });
  assert.equal(after.open, true, 'the glossary opened');
  assert.ok(after.top >= 0 && after.bottom <= after.vh, `the entry in view (${after.top.toFixed(0)}-${after.bottom.toFixed(0)} of ${after.vh})`);
  assert.equal(after.flash, true, 'the entry marked');
  assert.equal(after.pop, 0, 'the box closed');
  assert.equal(page.url(), url, 'no fragment added to the link');
  await screenshot(page, 'terms-glossary-1280', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('on a phone the definition box fits the screen', async () => {
  const { page, errors } = await openHero('/?trace=conversation_trace.jsonl&routing=kv', { width: 390, height: 844 });
  const term = '[data-testid=takeaway-detail] a.term[data-term=term-overlap]';
  await page.locator(term).scrollIntoViewIfNeeded();
  await page.click(term);
  const b = await page.$eval('[data-testid=term-pop]', (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, vw: document.documentElement.clientWidth }; });
  assert.ok(b.left >= 0 && b.right <= b.vw, `inside the screen (${b.left}-${b.right} of ${b.vw})`);
  await screenshot(page, 'terms-popover-390', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('an embed does not show the glossary, so it links no term, though its policy line says "overlap weight"', async () => {
  const { page, errors } = await site.open('/?embed=1&routing=kv&trace=conversation_trace.jsonl', { viewport: { width: 640, height: 500 } });
  await page.waitForFunction(() => window.kvfleet?.runCount > 0, null, { timeout: PAGE_TIMEOUT });
  assert.equal(await page.isVisible('[data-testid=glossary]'), false);
  assert.match(await page.textContent('#embed'), /overlap weight/);
  assert.equal(await page.locator('a.term').count(), 0);
  assert.deepEqual(errors, []);
});

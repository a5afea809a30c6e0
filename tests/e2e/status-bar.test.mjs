// tests/e2e/status-bar.test.mjs: the sticky status bar above the results. It counts in words
// ("1 request on 1 replica", "200 requests on 4 replicas", never "replica(s)"); it is a strip of its
// own (opaque, bordered) that text scrolls under; and a jump to a section of the results stops with
// the section's heading below the bar, also when the bar wraps to two lines. Screenshots: mid-scroll
// at 1280x800 and 390x844.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT } from './harness.mjs';

let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

/** Opens PATH and waits for its first run and the panels below the first screen. */
async function openPage(where, viewport = { width: 1280, height: 800 }) {
  const opened = await site.open(where, { viewport });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
  return opened;
}

/** What the status bar must say a run was, from its report's own counts: "N request(s) on M replica(s),". */
function expectedStart(r) {
  const requests = r.summary.requests;
  const replicas = r.per_instance.length;
  const word = (k, one, many) => `${k.toLocaleString('en-US')} ${k === 1 ? one : many}`;
  return `${word(requests, 'request', 'requests')} on ${word(replicas, 'replica', 'replicas')}, routing=${r.config.routing}`;
}

/** The status bar's and an element's boxes, in viewport pixels. */
const boxes = (page, id) => page.evaluate((i) => {
  const box = (e) => { const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, height: b.height }; };
  return { bar: box(document.querySelector('.results > .status')), el: box(document.getElementById(i)), vh: innerHeight };
}, id);

/** Waits until the page has stopped scrolling (the same scroll position over two frames, twice). */
async function scrollSettled(page) {
  await page.evaluate(() => new Promise((resolve) => {
    let last = -1; let still = 0;
    const tick = () => {
      still = scrollY === last ? still + 1 : 0;
      last = scrollY;
      if (still >= 4) resolve(); else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }));
}

test('the status bar counts in words: "1 request on 1 replica", "200 requests on 4 replicas"', async () => {
  for (const where of ['/?instances=1&num_requests=1', '/']) {
    const { page, errors, context } = await openPage(where);
    try {
      const r = await page.evaluate(() => window.kvfleet.lastReport);
      const text = await page.textContent('[data-testid=status]');
      assert.ok(text.startsWith(expectedStart(r)), `${where}: "${text}" should start "${expectedStart(r)}"`);
      assert.doesNotMatch(text, /\(s\)/, `${where}: ${text}`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
});

test('the status bar is a strip of its own: opaque, bordered, and on top of the text that scrolls under it', async () => {
  const { page, errors, context } = await openPage('/');
  try {
    // Scroll so the fleet lines pass under the bar, part way through their box.
    await page.evaluate(() => {
      const pre = document.getElementById('fleet-lines');
      window.scrollTo(0, pre.getBoundingClientRect().top + scrollY - 12);
    });
    await scrollSettled(page);
    const look = await page.evaluate(() => {
      const bar = document.querySelector('.results > .status');
      const cs = getComputedStyle(bar);
      const b = bar.getBoundingClientRect();
      const pre = document.getElementById('fleet-lines').getBoundingClientRect();
      const hit = document.elementFromPoint(b.left + b.width / 2, b.bottom - 3);
      return { bg: cs.backgroundColor, pageBg: getComputedStyle(document.body).backgroundColor, border: cs.borderBottomWidth,
        shadow: cs.boxShadow, top: b.top, bottom: b.bottom, preTop: pre.top, onTop: bar.contains(hit) };
    });
    assert.ok(look.top <= 1, `the bar is stuck at the top (${look.top})`);
    assert.ok(look.preTop < look.bottom, 'the fleet lines pass under the bar here');
    assert.equal(look.onTop, true, 'the bar is drawn over the text under it');
    const rgba = look.bg.match(/[\d.]+/g).map(Number);
    assert.ok(rgba.length === 3 || rgba[3] === 1, `an opaque background (${look.bg})`);
    assert.notEqual(look.bg, look.pageBg, 'a colour of its own, not the page\'s');
    assert.ok(parseFloat(look.border) >= 1 || look.shadow !== 'none', `an edge: border ${look.border}, shadow ${look.shadow}`);
    await screenshot(page, 'status-bar-mid-scroll-1280', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
  const phone = await openPage('/', { width: 390, height: 844 });
  try {
    await phone.page.evaluate(() => window.scrollTo(0, document.getElementById('fleet-lines').getBoundingClientRect().top + scrollY - 12));
    await scrollSettled(phone.page);
    await screenshot(phone.page, 'status-bar-mid-scroll-390', { fullPage: false });
    assert.deepEqual(phone.errors, []);
  } finally { await phone.context.close(); }
});

for (const width of [1280, 900]) {
  test(`a jump to a section of the results (#id) stops with its heading below the sticky bar, at ${width}x800`, async () => {
    // A trace's name makes the line longer: at 900 px the results column wraps it to two lines.
    const { page, errors, context } = await openPage('/?trace=conversation_trace.jsonl', { width, height: 800 });
    try {
      const bar = (await boxes(page, 'results')).bar;
      if (width === 900) assert.ok(bar.height > 45, `the bar wraps to two lines at 900 px (${bar.height} px)`);
      for (const id of ['compare-h', 'cap-h', 'sweep-h', 'decisions-h']) {
        await page.evaluate((i) => { location.hash = `#${i}`; }, id);
        await scrollSettled(page);
        const b = await boxes(page, id);
        assert.ok(b.bar.top <= 1, `${id}: the bar is stuck at the top (${b.bar.top})`);
        // Below it, with a little air (4 px at least), not touching or under its edge.
        assert.ok(b.el.top >= b.bar.bottom + 4, `${id}: heading top ${b.el.top} is under or against the bar (bottom ${b.bar.bottom})`);
        assert.ok(b.el.bottom <= b.vh, `${id}: the heading is on screen`);
      }
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

for (const width of [1280, 900]) {
  test(`every card of the results brought into view (element.scrollIntoView()) starts below the sticky bar, at ${width}x800`, async () => {
    // A schedule shows the load-over-time card too (a figure inside the charts' grid, as the charts are).
    const { page, errors, context } = await openPage('/?request_rate_schedule=0s:2,20s:6&num_requests=300', { width, height: 800 });
    try {
      const cards = await page.evaluate(() => [...document.querySelectorAll('.results .card')].filter((c) => c.offsetParent)
        .map((c, i) => { c.dataset.cardProbe = String(i); return c.id || c.dataset.testid || c.className; }));
      assert.ok(cards.length >= 8 && cards.includes('timeseries'), cards.join(', '));
      for (const [i, name] of cards.entries()) {
        await page.evaluate((k) => document.querySelector(`[data-card-probe="${k}"]`).scrollIntoView(), i);
        await scrollSettled(page);
        const b = await page.evaluate((k) => {
          const box = (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
          return { bar: box(document.querySelector('.results > .status')), card: box(document.querySelector(`[data-card-probe="${k}"]`)), end: innerHeight + scrollY >= document.documentElement.scrollHeight - 1 };
        }, i);
        // A card near the page's end cannot reach the top; it is then lower still, never under the bar.
        if (!b.end) assert.ok(b.bar.top <= 1, `${name}: the bar is stuck at the top (${b.bar.top})`);
        assert.ok(b.card.top >= b.bar.bottom + 4, `${name}: its top ${b.card.top} is under or against the bar (bottom ${b.bar.bottom})`);
      }
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

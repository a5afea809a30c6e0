// tests/e2e/lesson-embed.test.mjs: every lesson's embed (?embed=1&lesson=ID) fits its frame, before
// and after its goal is met, at 360x500 and 640x500 and at the ends of the embeds' range, 320 and
// 900 px wide (each lesson opened at one of the four, in turn, and resized through the others). In every state: no element that does not scroll hides content (each non-scrolling
// box's scrollHeight within its clientHeight, the page's too); every control shown and the "Open the
// whole lesson" link are inside the frame, or inside a scrolling region that is itself inside the
// frame and can scroll to them; the lesson's controls and the link are inside the frame without
// scrolling. The goal is met by the lesson's first fix (its hints shown first, as a reader would),
// checked here against the lesson's checks. Screenshots: lesson-embed-<lesson>-<width>-<state>.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startSite, ROOT, nextFrames } from './harness.mjs';
import { checkMet } from './goal-checks.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); }); // (no test here looks at the first screen's figure)
after(async () => { await site?.close(); });


/** What does not fit the frame, in words (empty when everything does); read in the embed's page. */
function misfits() {
  const bad = [];
  const W = window.innerWidth, H = window.innerHeight;
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const name = (e) => `${e.tagName.toLowerCase()}${e.dataset.testid ? `[${e.dataset.testid}]` : e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`;
  const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowY);
  const inFrame = (r) => r.top >= -0.5 && r.bottom <= H + 0.5 && r.left >= -0.5 && r.right <= W + 0.5;
  // Nothing cut: a box that does not scroll shows all of its content.
  for (const e of [document.documentElement, document.body, ...document.querySelectorAll('#embed, #embed *')]) {
    if (!shown(e) || scrolls(e) || e.tagName === 'CANVAS' || e.tagName === 'SELECT' || getComputedStyle(e).display === 'inline') continue;
    if (e.scrollHeight > e.clientHeight + 1 && e.clientHeight > 0) bad.push(`${name(e)} cuts its content: ${e.scrollHeight} px in ${e.clientHeight}`);
    if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) bad.push(`${name(e)} cuts its content: ${e.scrollWidth} px wide in ${e.clientWidth}`);
  }
  // Every control and link: in the frame, or in a scrolling region (itself in the frame) that reaches it.
  for (const c of document.querySelectorAll('#embed input, #embed select, #embed button, #embed a')) {
    if (!shown(c)) continue;
    const r = c.getBoundingClientRect();
    let region = c.parentElement;
    while (region && region !== document.body && !(scrolls(region) && region.scrollHeight > region.clientHeight + 1)) region = region.parentElement;
    if (!region || region === document.body) {
      if (!inFrame(r)) bad.push(`${name(c)} is outside the frame (${r.top.toFixed(0)}-${r.bottom.toFixed(0)} of ${H})`);
      continue;
    }
    const g = region.getBoundingClientRect();
    if (!inFrame(g)) bad.push(`${name(c)}'s scrolling region ${name(region)} is outside the frame`);
    const at = r.top - g.top + region.scrollTop; // where the control sits in the region's content
    if (at < -0.5 || at + r.height > region.scrollHeight + 0.5) bad.push(`${name(c)} lies beyond what ${name(region)} can scroll to`);
  }
  // The controls and the link to the whole lesson are in view without scrolling anything.
  for (const sel of ['[data-testid=embed-controls]', '.embed-open']) {
    const e = document.querySelector(sel);
    if (!e || !shown(e)) { bad.push(`${sel} is not shown`); continue; }
    if (!inFrame(e.getBoundingClientRect())) bad.push(`${sel} is outside the frame`);
    let p = e.parentElement;
    while (p && p.id !== 'embed') { if (scrolls(p) && p.scrollHeight > p.clientHeight + 1) bad.push(`${sel} is inside a scrolling region`); p = p.parentElement; }
  }
  return bad;
}

const IDS = ['reuse-at-all', 'more-replicas-slower', 'hot-prefix', 'timeout-below-p99', 'retune-the-weight',
  'won-on-an-infinite-cache', 'routers-that-herd', 'smallest-tree-pile-up', 'when-disaggregation-pays',
  'cache-too-small', 'router-bottleneck', 'spike-cold-replicas'];
let lessons; // the page's lessons (their checks and fixes), read from the full page once

test('the page has the lessons this test covers', async () => {
  const { page, context } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lessonsList?.length > 0, null, { timeout: 60000 });
    lessons = await page.evaluate(() => window.kvfleet.lessonsList);
    assert.deepEqual(lessons.map((l) => l.id).sort(), [...IDS].sort());
  } finally { await context.close(); }
});

const WIDTHS = [320, 360, 640, 900];

/** The misfits at each of WIDTHS by 500, the frame resized in place (the embed's layout follows its
 * frame's size: CSS and the resize observers), each state's screenshot at each width. */
async function misfitsAtEveryWidth(page, id, state, problems) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 500 });
    await nextFrames(page, 3);
    for (const b of await page.evaluate(misfits)) problems.push(`${width} px, ${state === 'met' ? 'goal met' : 'goal not met'}: ${b}`);
    await page.screenshot({ path: path.join(ROOT, 'test-results', `lesson-embed-${id}-${width}-${state}.png`) });
  }
}

for (const [i, id] of IDS.entries()) {
  // Each lesson opens at one of the widths, in turn (so every width is also a frame's first size),
  // and is then resized through all four, before and after its goal is met.
  const openWidth = WIDTHS[i % WIDTHS.length];
  test(`${id}: the embed fits 320 to 900 px by 500 before and after the goal is met, its controls and link in reach (opened at ${openWidth} px)`, async () => {
    const problems = [];
    const { page, errors, context } = await site.open(`/?embed=1&lesson=${id}`, { viewport: { width: openWidth, height: 500 } });
    try {
      await page.waitForFunction(() => window.kvfleet?.runCount > 0, null, { timeout: 90000 });
      await page.waitForSelector('[data-testid=lesson-checks] li');
      await misfitsAtEveryWidth(page, id, 'broken', problems);
      // The lesson's first fix, as a reader gets to it: through the hints.
      const lesson = lessons.find((l) => l.id === id);
      while (await page.isVisible('[data-testid=lesson-hint]')) await page.click('[data-testid=lesson-hint]');
      const fix = lesson.fixes[0];
      await page.click(`[data-testid=lesson-fix-${fix.name.replace(/\W+/g, '-')}]`);
      await page.waitForFunction((set) => Object.entries(set).every(([k, v]) => window.kvfleet.lastReport?.config?.[k] === v), fix.config, { timeout: 120000 });
      await page.waitForSelector('[data-testid=lesson-done]:visible', { timeout: 10000 });
      const report = await page.evaluate(() => window.kvfleet.lastReport);
      assert.ok(lesson.checks.every((c) => checkMet(c, report)), `${id}: ${fix.name} meets every check`);
      await misfitsAtEveryWidth(page, id, 'met', problems);
      for (const e of errors) problems.push(e);
    } finally { await context.close(); }
    assert.deepEqual(problems, [], id);
  });
}

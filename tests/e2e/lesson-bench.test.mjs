// tests/e2e/lesson-bench.test.mjs: a lesson's change and the goal check it turns green are on one
// screen. In the two lessons that follow the design card's examples (more replicas, slower answers;
// one replica owns the hot prefix), at a desktop's 1440x900 and a phone's 390x844: the reader presses
// "Change it" beside the routing setting, makes the lesson's routing fix with the control that takes
// focus, and at the moment the goal's checks all turn green (seen by a MutationObserver on the
// checks, installed before the change) that control and every check that turned green are inside
// the viewport, and the control has not moved on screen by more than the checks' own growth. Whether the goal is met is computed
// here from the run's report and the lesson's checks. Screenshots: lesson-bench-<lesson>-<width>.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startSite, ROOT } from './harness.mjs';
import { checkMet } from './goal-checks.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });


/** Resolves once window.scrollY has held still for five frames (a smooth scroll has ended). */
const scrollSettled = () => new Promise((resolve) => {
  let last = -1, still = 0;
  const tick = () => {
    still = window.scrollY === last ? still + 1 : 0;
    last = window.scrollY;
    if (still >= 5) resolve(window.scrollY); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});

/**
 * Watches the goal's checks: when every check is ✓, records where `fieldSel`'s element and each check
 * are and the page's scroll, once (window.__green).
 */
function watchGreen(fieldSel) {
  window.__green = null;
  const list = document.querySelector('[data-testid=lesson-checks]');
  const rect = (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  const look = () => {
    const items = [...list.querySelectorAll('li')];
    if (window.__green || !items.length || !items.every((li) => li.classList.contains('met'))) return;
    window.__green = { scrollY: window.scrollY, field: rect(document.querySelector(fieldSel)), checks: items.map((li) => ({ text: li.textContent, ...rect(li) })),
      w: window.innerWidth, h: window.innerHeight };
  };
  new MutationObserver(look).observe(list, { childList: true, subtree: true, attributes: true });
}

for (const id of ['more-replicas-slower', 'hot-prefix']) {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    test(`${id} at ${viewport.width}x${viewport.height}: the routing control used and the checks it turns green are on screen together, no jump`, async () => {
      const { page, errors, context } = await site.open(`/?lesson=${id}`, { viewport });
      try {
        await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
        await page.waitForSelector('[data-testid=lesson-checks] li');
        // The first screen's sweep done, so its last sentences do not resize what is above the lesson
        // while the control is measured (on a busy machine they can land after the scroll).
        await page.waitForFunction(() => (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero?.pending, null, { timeout: 60000 });
        const lesson = await page.evaluate((i) => window.kvfleet.lessonsList.find((l) => l.id === i), id);
        const before = await page.evaluate(() => window.kvfleet.lastReport);
        assert.equal(lesson.checks.every((c) => checkMet(c, before)), false, 'the broken setup misses the goal');
        const routing = lesson.fixes.map((f) => f.config).find((c) => Object.keys(c).length === 1 && c.routing)?.routing;
        assert.ok(routing, `${id} has a fix that changes the routing alone`);
        // "Change it" beside the routing setting: the control the lesson shows takes focus.
        await page.click('[data-testid=lesson-go-routing]');
        await page.waitForFunction(() => document.activeElement?.closest('.field'), null, { timeout: 5000 });
        await page.evaluate(scrollSettled);
        const field = await page.evaluate(() => document.activeElement.closest('.field').dataset.testid);
        const fieldSel = `[data-testid="${field}"]`;
        await page.evaluate(watchGreen, fieldSel);
        const top0 = await page.evaluate((sel) => document.querySelector(sel).getBoundingClientRect().top, fieldSel);
        const n = await page.evaluate(() => window.kvfleet.runCount);
        // The routing fix with that control: its drop-down where it shows one, else its button.
        const select = page.locator(`${fieldSel} select`);
        if (await select.isVisible()) await select.selectOption(routing);
        else await page.locator(`${fieldSel} label:has(input[value="${routing}"])`).click();
        await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
        await page.waitForFunction(() => window.__green, null, { timeout: 10000 });
        const report = await page.evaluate(() => window.kvfleet.lastReport);
        assert.equal(report.config.routing, routing);
        assert.equal(lesson.checks.every((c) => checkMet(c, report)), true, 'this run meets every check');
        const g = await page.evaluate(() => window.__green);
        // Nothing scrolled the control away: the browser keeps it where it was (scroll anchoring, while
        // the hero and the settings above change height), give or take the checks' own growth.
        assert.ok(Math.abs(g.field.top - top0) < 100, `the control moved on screen from ${top0.toFixed(0)} to ${g.field.top.toFixed(0)} px between the change and the green checks`);
        const inside = (r) => r.top >= 0 && r.bottom <= g.h && r.left >= 0 && r.right <= g.w;
        assert.ok(inside(g.field), `the control used (${field}) is on screen when the goal turns green: ${JSON.stringify(g.field)} in ${g.w}x${g.h}`);
        const turned = g.checks.filter((c, i) => !checkMet(lesson.checks[i], before));
        assert.ok(turned.length > 0);
        for (const c of turned) assert.ok(inside(c), `the check "${c.text}" is on screen when it turns green: ${JSON.stringify(c)} in ${g.w}x${g.h}`);
        await page.screenshot({ path: path.join(ROOT, 'test-results', `lesson-bench-${id}-${viewport.width}.png`) });
        assert.deepEqual(errors, []);
      } finally { await context.close(); }
    });
  }
}

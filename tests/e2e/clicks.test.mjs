// tests/e2e/clicks.test.mjs: no dead clicks. In every panel with a slider above the routing buttons
// (the settings panel, the hero's controls, a lesson's settings, an embed's), a reader clicks the
// Replicas slider, presses ArrowRight (keyboard focus: the slider's help text shows), then clicks a
// routing button with a real press and release at its centre. The button must not move between the
// press and the release, and the click must take effect (the routing changes to it). And a result that
// arrives between a press and its release (here a lesson's measured figure, which pushes the lesson's
// own controls 500 px down) waits for the release: the click takes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, collectErrors, nextFrames, ROOT } from './harness.mjs';

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** Opens `where` and waits for the first run (and, on the full page, the settings panel). */
async function open(where, viewport = { width: 1280, height: 900 }) {
  const { page, errors, context } = await site.open(where, { viewport });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, context };
}

/** The first routing button of the panel (test ids prefixed `pre`) that is not the routing in force. */
async function otherPolicy(page, pre) {
  const now = await page.evaluate(() => window.kvfleet.config.routing);
  const ids = await page.$$eval(`[data-testid^="${pre}input-routing-"][type=radio]`, (rs) => rs.map((r) => r.value));
  const pick = ['kv', 'prefix_aware', 'round_robin'].find((p) => p !== now && ids.includes(p));
  assert.ok(pick, `no routing button other than ${now} in the ${pre || 'settings'} panel (${ids.join(', ')})`);
  return pick;
}

/**
 * The sequence: click the Replicas slider, ArrowRight, then press and release the mouse at the
 * centre of `policy`'s button. Returns where the button was at the press and between press and
 * release, and whether the slider's help showed before the press.
 */
async function slideThenClick(page, pre, policy) {
  const slider = page.locator(`[data-testid="${pre}input-instances"]`);
  await slider.scrollIntoViewIfNeeded();
  await slider.click();
  const runs = await page.evaluate(() => window.kvfleet.runCount);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, runs, { timeout: 20000 });
  // No wait for the first screen's sweep: the press may come while its points redraw the page.
  const helpShown = await page.isVisible(`#${pre}help-instances`);
  // The label is the button (the radio inside it is transparent, over the label).
  const button = page.locator(`[data-testid="${pre}input-routing-${policy}"]`).locator('xpath=..');
  await button.scrollIntoViewIfNeeded();
  // Scrolling gives no focus: the slider keeps it, and its help (where shown) stays up.
  const atPress = await button.boundingBox();
  await page.mouse.move(atPress.x + atPress.width / 2, atPress.y + atPress.height / 2);
  await page.mouse.down();
  const held = await button.boundingBox();
  await page.mouse.up();
  return { atPress, held, helpShown };
}

const PANELS = [
  { name: 'the settings panel', where: '/', pre: '', help: true },
  { name: 'the hero\'s controls', where: '/', pre: 'hero-', help: false },
  // The lesson's measured material and figure land first (they push its controls down; that a result
  // arriving between a press and its release waits for the release is the test below), so the press
  // is not aimed at a button about to move.
  { name: 'a lesson\'s settings (lesson 1)', where: '/?lesson=reuse-at-all', pre: '', help: true,
    settle: async (page) => {
      await page.waitForFunction(() => window.kvfleet.lessonMaterial?.id === 'reuse-at-all', null, { timeout: 60000 });
      await page.waitForSelector('[data-testid=lesson-diagram] canvas', { timeout: 60000 });
      await nextFrames(page);
    } },
  { name: 'an embed\'s controls', where: '/?embed=1&show=hitrate', pre: 'embed-', help: false },
];

for (const { name, where, pre, help, settle } of PANELS) {
  test(`${name}: slider, ArrowRight, then a click on a routing button lands (the button stays put)`, async () => {
    const { page, errors, context } = await open(where);
    try {
      await settle?.(page);
      const policy = await otherPolicy(page, pre);
      const { atPress, held, helpShown } = await slideThenClick(page, pre, policy);
      // The full panels show the slider's help on keyboard focus (the flat ones keep it in the tooltip).
      assert.equal(helpShown, help, `the slider's help ${help ? 'shows' : 'stays hidden'} while it has keyboard focus`);
      // A jump (help text pushing the panel down) moves it by whole lines; text reflowing above
      // can nudge it by a fraction of a pixel, which no press and release notices.
      const moved = Math.max(Math.abs(held.x - atPress.x), Math.abs(held.y - atPress.y));
      assert.ok(moved < 1, `the ${policy} button moved between mousedown and mouseup (by ${(held.y - atPress.y).toFixed(2)} px)`);
      assert.equal(await page.evaluate(() => window.kvfleet.config.routing), policy, `the click on ${policy} changed the routing`);
      assert.equal(await page.isChecked(`[data-testid="${pre}input-routing-${policy}"]`), true);
      // The help is still the slider's accessible description (aria-describedby), with its words.
      const described = await page.getAttribute(`[data-testid="${pre}input-instances"]`, 'aria-describedby');
      assert.ok(described.split(' ').includes(`${pre}help-instances`), described);
      assert.ok((await page.textContent(`#${pre}help-instances`)).length > 20);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('the help shown on keyboard focus is laid over what follows: no control below moves as it comes and goes', async () => {
  const { page, errors, context } = await open('/');
  try {
    const slider = page.locator('[data-testid="input-instances"]');
    await slider.scrollIntoViewIfNeeded();
    const below = page.locator('[data-testid="input-routing-kv"]').locator('xpath=..');
    // Measured from the slider, so a run that changes the height of what is above the panel
    // (the hero's sentences) does not count as a move.
    const gap = async () => (await below.boundingBox()).y - (await slider.boundingBox()).y;
    const before = await gap();
    await slider.focus();
    await page.keyboard.press('ArrowRight'); // keyboard focus: the help shows
    await page.waitForSelector('#help-instances', { state: 'visible' });
    const during = await gap();
    assert.equal(during, before, 'the button under the slider stays where it was while the help shows');
    // Readable: the help is drawn on an opaque card, and a press on it reaches the control under it.
    const style = await page.$eval('#help-instances', (h) => { const s = getComputedStyle(h); return { bg: s.backgroundColor, events: s.pointerEvents }; });
    assert.notEqual(style.bg, 'rgba(0, 0, 0, 0)', 'the help has a background of its own');
    assert.equal(style.events, 'none');
    await screenshot(page, 'clicks-help-on-focus', { fullPage: false });
    // The panel's last field (the seed) opens its card upwards, inside the panel (its scrolling box
    // would hide a card below it).
    await page.focus('[data-testid="input-seed"]');
    await page.keyboard.press('ArrowUp');
    await page.waitForSelector('#help-seed', { state: 'visible' });
    const [card, panel] = await Promise.all(['#help-seed', '.controls'].map((sel) => page.locator(sel).first().boundingBox()));
    assert.ok(card.y >= panel.y && card.y + card.height <= panel.y + panel.height, `the seed's help (${card.y}-${card.y + card.height}) inside the panel (${panel.y}-${panel.y + panel.height})`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/**
 * A lesson opened by its link, its measured figure held back: every request for the simulator's wasm
 * after the page's own (the lesson's material worker's) waits until `release()`. The first screen's
 * sweep stays held (its workers would load the wasm too).
 */
async function lessonWithFigureHeld(id, viewport) {
  const context = await site.browser.newContext({ viewport });
  await context.addInitScript(() => { window.kvfleetHeroHeld = true; });
  let loads = 0, opened = false;
  const waiting = [];
  await context.route('**/kvfleet_bg.wasm', (route) => {
    if (loads++ === 0 || opened) route.continue(); else waiting.push(route);
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${site.url}/?lesson=${id}`);
  await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
  // The lesson's link scrolls to it, smoothly: the press comes once the page is still.
  for (let y = -1; ;) {
    const now = await page.evaluate(() => scrollY);
    if (now === y) break;
    y = now;
    await nextFrames(page, 3);
  }
  const release = async () => { opened = true; for (const r of waiting.splice(0)) await r.continue(); };
  return { page, errors, context, release, held: () => waiting.length };
}

test('a lesson\'s figure that arrives between a press and its release waits for the release: the click on the lesson\'s routing button takes', async () => {
  const { page, errors, context, release, held } = await lessonWithFigureHeld('more-replicas-slower', { width: 1280, height: 900 });
  try {
    assert.equal(await page.evaluate(() => window.kvfleet.lessonMaterial ?? null), null, 'the figure is still being measured');
    assert.ok(held() > 0, 'its worker waits for the wasm');
    const now = await page.evaluate(() => window.kvfleet.config.routing);
    const policy = now === 'kv' ? 'prefix_aware' : 'kv';
    const button = page.locator(`[data-testid="lesson-input-routing-${policy}"]`).locator('xpath=..');
    // A reader scrolls the button into view, if the lesson's link left it below the fold.
    await button.scrollIntoViewIfNeeded();
    await nextFrames(page, 3);
    const atPress = await button.boundingBox();
    assert.ok(atPress.y >= 0 && atPress.y + atPress.height <= 900, `the ${policy} button is in view (${atPress.y})`);
    await page.mouse.move(atPress.x + atPress.width / 2, atPress.y + atPress.height / 2);
    await page.mouse.down();
    // The figure is measured and sent now, while the button is pressed.
    await release();
    await page.waitForFunction(() => !!window.kvfleet.lessonMaterial || (window.kvfleet.heldForPress?.() || []).includes('lesson-material'), null, { timeout: 60000 });
    await nextFrames(page, 2);
    const pressed = await button.boundingBox();
    await page.mouse.up();
    assert.ok(Math.abs(pressed.y - atPress.y) < 1, `the ${policy} button stayed under the press (it moved ${(pressed.y - atPress.y).toFixed(0)} px)`);
    assert.equal(await page.evaluate(() => window.kvfleet.config.routing), policy, `the click on ${policy} changed the routing`);
    // Then the figure comes in, below the press's release.
    await page.waitForFunction(() => window.kvfleet.lessonMaterial?.id === 'more-replicas-slower', null, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-diagram] canvas');
    assert.deepEqual(await page.evaluate(() => window.kvfleet.heldForPress()), []);
    await screenshot(page, 'clicks-lesson-figure-after-press', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

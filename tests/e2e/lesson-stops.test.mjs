// tests/e2e/lesson-stops.test.mjs: every value a lesson's fixes set (and every cache size its hints
// name) is a stop of the slider the lesson's workbench shows for that setting (the stops read from
// the slider itself, position by position), and the reuse lesson's goal is met with its own cache
// slider by keyboard alone (→ until every check of the goal is green, inside the 32,000-block budget).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); }); // (no test here looks at the first screen's figure)
after(async () => { await site?.close(); });

/**
 * The values a lesson slider steps through: each of its positions set as a drag sets it (an input
 * event), the value read back from the page's settings. A value set between the stops (the broken
 * setup's 833 blocks, a fix's) joins them while it is set: the caller keeps the values found in two
 * states (the broken setup's and a fix's), which no single value set in between survives.
 */
async function sliderList(page, key) {
  return page.evaluate((k) => {
    const input = document.querySelector(`[data-testid=lesson-controls] [data-testid="lesson-input-${k}"]`);
    if (!input || input.type !== 'range') return null;
    const out = [];
    for (let i = 0; i <= Number(input.max); i++) {
      input.value = String(i);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      out.push(window.kvfleet.config[k]);
    }
    return out;
  }, key);
}

const IDS = ['reuse-at-all', 'hot-prefix', 'more-replicas-slower', 'timeout-below-p99', 'retune-the-weight', 'won-on-an-infinite-cache', 'routers-that-herd', 'smallest-tree-pile-up', 'when-disaggregation-pays', 'cache-too-small', 'router-bottleneck', 'spike-cold-replicas'];

test('every value a lesson\'s fixes set is a stop of the lesson\'s own slider for it', async () => {
  const checked = [];
  for (const id of IDS) {
    const { page, errors, context } = await site.open(`/?lesson=${id}`, { viewport: { width: 1280, height: 900 } });
    try {
      await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.lessonsList?.length, null, { timeout: 60000 });
      const lesson = await page.evaluate((i) => window.kvfleet.lessonsList.find((l) => l.id === i), id);
      assert.ok(lesson, id);
      // The cache sizes its hints name ("25,000 blocks fall short and 30,000 make it"): stops too.
      const hinted = lesson.hints.flatMap((h) => [...h.matchAll(/(\d[\d,]*) blocks|(\d[\d,]*) make it/g)].map((m) => Number((m[1] || m[2]).replace(/,/g, ''))));
      const keys = [...new Set(lesson.fixes.flatMap((f) => Object.keys(f.config).filter((k) => typeof f.config[k] === 'number')))];
      const before = {};
      for (const k of keys) before[k] = await sliderList(page, k);
      if (hinted.length) {
        const cache = await sliderList(page, 'kv_blocks');
        assert.ok(cache, `${id}: its hints name cache sizes, and it shows the cache slider`);
        for (const v of hinted) assert.ok(cache.includes(v), `${id}: ${v} blocks (a hint) is a stop of the cache slider (${cache.join(', ')})`);
        checked.push(...hinted.map((v) => `${id}:hint=${v}`));
      }
      // Each fix applied (its button, hidden until the hints run out, clicked through the DOM): every
      // number it sets is a stop of the slider the workbench shows for that setting.
      for (const f of lesson.fixes) {
        await page.evaluate((t) => document.querySelector(`[data-testid="${t}"]`).click(), `lesson-fix-${f.name.replace(/\W+/g, '-')}`);
        await page.waitForFunction((c) => Object.entries(c).every(([k, v]) => window.kvfleet.config[k] === v), f.config, { timeout: 30000 });
        for (const [key, v] of Object.entries(f.config)) {
          if (typeof v !== 'number' || !before[key]) continue;
          const after = await sliderList(page, key);
          const stops = after.filter((x) => before[key].includes(x));
          assert.ok(stops.includes(v), `${id}: ${key} = ${v} (the fix "${f.name}") is a stop of its slider (${stops.join(', ')})`);
          checked.push(`${id}:${key}=${v}`);
        }
      }
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
  for (const c of ['reuse-at-all:kv_blocks=30000', 'reuse-at-all:hint=25000', 'reuse-at-all:hint=30000']) assert.ok(checked.includes(c), `${c} was checked (${checked.join(' ')})`);
});

test('the reuse lesson is passed with its own cache slider by keyboard', async () => {
  const { page, errors, context } = await site.open('/?lesson=reuse-at-all', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport?.config?.kv_blocks === 833, null, { timeout: 60000 });
    const sel = '[data-testid=lesson-controls] [data-testid="lesson-input-kv_blocks"]';
    await page.focus(sel);
    let met = false;
    for (let i = 0; i < 60 && !met; i++) {
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => window.kvfleet.lastReport.config.kv_blocks === window.kvfleet.config.kv_blocks, null, { timeout: 60000 });
      const r = await page.evaluate(() => ({ blocks: window.kvfleet.lastReport.config.kv_blocks, all: document.querySelectorAll('[data-testid=lesson-checks] li').length, unmet: document.querySelectorAll('[data-testid=lesson-checks] li.unmet').length }));
      if (r.blocks === null || r.blocks > 32000) break;
      met = r.all > 0 && r.unmet === 0;
    }
    assert.ok(met, 'some stop of the cache slider inside the budget meets every check of the goal');
    assert.ok((await page.evaluate(() => window.kvfleet.lastReport.config.kv_blocks)) <= 32000);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

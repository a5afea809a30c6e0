// tests/e2e/embed.test.mjs: ?embed=1 figures for documentation. For every show= value, at 640x500 and
// 360x500, the frame never scrolls, no element's content overflows its box or the frame, the chart
// has data, and the computed sentence matches the run. The embed demo page holds three such frames.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT, settledUrl, nextFrames } from './harness.mjs';

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

const SHOWS = ['hitrate', 'load', 'latency', 'timeline', 'compare', 'replicas-sweep'];

/** Every element whose content is wider or taller than its own box, or that sticks out of the frame. */
function overflowing() {
  const bad = [];
  const W = window.innerWidth, H = window.innerHeight;
  for (const el of document.querySelectorAll('#embed, #embed *')) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    if (r.right > W + 0.5 || r.bottom > H + 0.5 || r.left < -0.5 || r.top < -0.5) bad.push(`${name} outside the frame (${r.left.toFixed(0)},${r.top.toFixed(0)})-(${r.right.toFixed(0)},${r.bottom.toFixed(0)})`);
    if (cs.display !== 'inline' && el.tagName !== 'CANVAS' && el.clientWidth > 0) {
      if (el.scrollWidth > el.clientWidth + 1) bad.push(`${name} content ${el.scrollWidth}px wide in ${el.clientWidth}px`);
      if (el.scrollHeight > el.clientHeight + 1 && cs.overflowY !== 'visible') bad.push(`${name} content ${el.scrollHeight}px tall in ${el.clientHeight}px`);
    }
  }
  return bad;
}

async function openEmbed(query, width, height) {
  const { page, errors, context } = await site.open(`/?embed=1&${query}`, { viewport: { width, height } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, close: () => context.close() };
}

/** Points drawn in the embed's charts (Chart.js's own data). */
const chartPoints = (page) => page.evaluate(() => [...document.querySelectorAll('#embed canvas')].map((c) => {
  const ch = window.Chart.getChart(c);
  return ch ? ch.data.datasets.reduce((n, d) => n + d.data.filter((v) => v !== null && v !== undefined).length, 0) : 0;
}));

for (const show of SHOWS) {
  for (const [w, h] of [[640, 500], [360, 500]]) {
    test(`embed show=${show} at ${w}x${h}: fits without scrolling, nothing overflows, the chart has data`, async () => {
      const { page, errors, close } = await openEmbed(`show=${show}&caption=${encodeURIComponent('Figure 1. A caption from the author.')}`, w, h);
      try {
        if (show === 'compare') await page.waitForFunction(() => document.querySelector('[data-testid="embed-sentence"]').textContent.startsWith('Most tokens'), null, { timeout: 30000 });
        if (show === 'replicas-sweep') await page.waitForFunction(() => window.kvfleet.hero && !window.kvfleet.hero.pending && (window.kvfleet.hero.sweeps.round_robin || []).length >= 12, null, { timeout: 60000 });
        await nextFrames(page); // the charts' resize, a frame after the layout
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollHeight, inner: window.innerHeight }));
        assert.ok(scroll <= inner, `document scroll height ${scroll} <= frame ${inner}`);
        assert.deepEqual(await page.evaluate(overflowing), []);
        const pts = await chartPoints(page);
        assert.ok(pts.length >= 1 && pts.every((n) => n > 0), `every chart has data: ${pts}`);
        assert.match(await page.textContent('[data-testid="embed-caption"]'), /^Figure 1\. A caption from the author\. \S/);
        assert.ok((await page.textContent('[data-testid="embed-sentence"]')).length > 10);
        // The frame runs the page's defaults: its link to the playground needs no settings.
        assert.equal(await page.getAttribute('.embed-open', 'href'), './');
        await screenshot(page, `embed-${show}-${w}x${h}`, { fullPage: false });
        assert.deepEqual(errors, []);
      } finally { await close(); }
    });
  }
}

test('embed show=hitrate in a wide frame (1280x900, 1000x700, 800x700): the routing policies are buttons, and no label outgrows its button', async () => {
  const { page, errors, close } = await openEmbed('show=hitrate', 1280, 900);
  try {
    for (const [w, h] of [[1280, 900], [1000, 700], [800, 700]]) {
      await page.setViewportSize({ width: w, height: h });
      await nextFrames(page);
      const buttons = await page.evaluate(() => [...document.querySelectorAll('#embed .seg span')].filter((s) => s.offsetWidth > 0).length);
      assert.ok(buttons >= 11, `${w}x${h}: the policies are buttons (${buttons} shown)`);
      assert.deepEqual(await page.evaluate(overflowing), [], `${w}x${h}`);
    }
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('embed controls= picks the controls; they move the figure; bad values get a note', async () => {
  const { page, errors, close } = await openEmbed('show=hitrate&controls=instances,num_prefixes,nope&routing=round_robin', 640, 500);
  try {
    assert.equal(await page.locator('[data-testid="embed-controls"] .field').count(), 2);
    assert.equal(await page.isVisible('[data-testid="embed-input-num_prefixes"]'), true);
    assert.match(await page.textContent('[data-testid="url-notes"]'), /Ignored unknown controls: nope/);
    // The note takes its room from the figure: the frame still never scrolls and nothing leaves it.
    await nextFrames(page);
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollHeight, inner: window.innerHeight }));
    assert.ok(scroll <= inner, `with the note, document scroll height ${scroll} <= frame ${inner}`);
    assert.deepEqual(await page.evaluate(overflowing), []);
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await page.focus('[data-testid="embed-input-instances"]');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n);
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    // Replica sliders step as everywhere on the page: two stops a doubling, 4 -> 6.
    assert.equal(r.config.instances, 6);
    const bars = await page.evaluate(() => window.Chart.getChart(document.querySelector('#embed canvas')).data.datasets[0].data.length);
    assert.equal(bars, 6);
    const sentence = await page.textContent('[data-testid="embed-sentence"]');
    assert.ok(sentence.startsWith(`${(100 * r.summary.hit_rate_tokens).toFixed(1)}% of prompt tokens came from cache`), sentence);
    assert.match(await settledUrl(page), /show=hitrate/);
    assert.match(await settledUrl(page), /controls=instances%2Cnum_prefixes|controls=instances,num_prefixes/);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the embed demo is a documentation page with three figures that fit its column', async () => {
  const { page, errors, context } = await site.open('/embed-demo.html', { viewport: { width: 1100, height: 900 } });
  try {
    const frames = page.locator('iframe[data-testid^="embed-frame-"]');
    assert.equal(await frames.count(), 3);
    for (let i = 0; i < 3; i++) {
      const f = page.frameLocator('iframe[data-testid^="embed-frame-"]').nth(i);
      await f.locator('[data-testid="embed-sentence"]').filter({ hasText: /\S/ }).waitFor({ timeout: 60000 });
      const box = await frames.nth(i).boundingBox();
      assert.ok(box.width <= 680 && box.height <= 500, `frame ${i} is ${box.width}x${box.height}`);
    }
    await screenshot(page, 'embed-demo');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

/** The boxes of an embed's figure, chart, caption, controls and footer. */
const embedBoxes = () => {
  const box = (s) => { const r = document.querySelector(s)?.getBoundingClientRect(); return r ? { top: r.top, bottom: r.bottom, height: r.height } : null; };
  return { fig: box('.embed-fig'), canvas: box('#embed canvas'), caption: box('[data-testid="embed-caption"]'), form: box('[data-testid="embed-controls"]'), foot: box('.embed-foot') };
};

test('the embed demo\'s three frames on a phone (358x460) and in its 640 px column (638x458): the chart keeps its height, nothing overlaps, routing is one drop-down that works', async () => {
  // The frames' own addresses, read from the demo page, at the width its column gives on a 390 px phone.
  const demo = readFileSync(path.join(ROOT, 'www/embed-demo.html'), 'utf8');
  const srcs = [...demo.matchAll(/<iframe[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&').replace(/^\.\/\?embed=1&/, ''));
  assert.equal(srcs.length, 3);
  for (const [w, h] of [[358, 460], [638, 458]]) for (const [i, src] of srcs.entries()) {
    const { page, errors, close } = await openEmbed(src, w, h);
    try {
      if (src.includes('show=compare')) await page.waitForFunction(() => document.querySelector('[data-testid="embed-sentence"]').textContent.startsWith('Most tokens'), null, { timeout: 30000 });
      await nextFrames(page); // the charts' resize, a frame after the layout
      const b = await page.evaluate(embedBoxes);
      assert.ok(b.canvas.height >= 120, `${w}x${h} frame ${i}: the chart is ${b.canvas.height.toFixed(0)} px tall`);
      assert.ok(b.canvas.bottom <= b.caption.top + 1, `frame ${i}: the chart (to ${b.canvas.bottom}) ends above the caption (${b.caption.top})`);
      assert.ok(b.caption.bottom <= b.form.top + 1 && b.fig.bottom <= b.form.top + 1, `frame ${i}: the caption (to ${b.caption.bottom}) ends above the controls (${b.form.top})`);
      assert.ok(b.form.bottom <= b.foot.top + 1 && b.foot.bottom <= h + 1, `frame ${i}: the controls end above the footer, which fits`);
      assert.deepEqual(await page.evaluate(overflowing), []);
      if (src.includes('routing')) {
        assert.equal(await page.isVisible('[data-testid="embed-input-routing-select"]'), true, 'one drop-down');
        assert.equal(await page.isVisible('[data-testid="embed-routing-group-simple"]'), false, 'not the buttons');
        const n = await page.evaluate(() => window.kvfleet.runCount);
        await page.selectOption('[data-testid="embed-input-routing-select"]', 'kv');
        await page.waitForFunction((k) => window.kvfleet.runCount > k, n);
        assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.routing), 'kv');
        assert.equal(await page.isChecked('[data-testid="embed-input-routing-kv"]'), true, 'the buttons follow the drop-down');
        assert.match(await page.getAttribute('[data-testid="embed-input-routing-select"]', 'title'), /\S/, 'the policy\'s line is its tooltip');
      }
      await screenshot(page, `embed-demo-frame${i + 1}-${w}x${h}`, { fullPage: false });
      assert.deepEqual(errors, []);
    } finally { await close(); }
  }
  // In a wide, tall frame the buttons show and the drop-down does not.
  const { page, close } = await openEmbed('show=hitrate&controls=routing', 640, 700);
  try {
    assert.equal(await page.isVisible('[data-testid="embed-routing-group-simple"]'), true);
    assert.equal(await page.isVisible('[data-testid="embed-input-routing-select"]'), false);
  } finally { await close(); }
});

// tests/e2e/links.test.mjs: what a link carries. "Copy link" (and the address bar) names only the
// settings that differ from the page's defaults, and opening it restores every setting; an old link
// that names every setting still loads; an embed without routing= runs the page's routing, and the
// embedding chapter says which.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT, settledUrl } from './harness.mjs';

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

async function open(where, viewport = { width: 1280, height: 900 }) {
  const { page, errors, context } = await site.open(where, { viewport });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
  return { page, errors, context };
}

/** Every parameter's value in the page's settings (window.kvfleet.config), by the simulator's parameter list. */
const settings = (page) => page.evaluate(() => Object.fromEntries(window.kvfleet.params.map((p) => [p.name, window.kvfleet.config[p.name] ?? null])));

/** Waits for the run that follows a change made by `act`. */
async function changed(page, act) {
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await act();
  await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 20000 });
}

test('Copy link after three changes names those three only, and the copied link restores every setting', async () => {
  const first = await open('/');
  let copied, original, summary;
  try {
    const { page, context } = first;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
    const start = await settings(page);
    // Three changes in the settings panel: a policy, the replicas (a key), the prefixes (a key).
    await changed(page, () => page.click('label[for="in-routing-prefix_aware"]'));
    await changed(page, () => page.focus('[data-testid="input-instances"]').then(() => page.keyboard.press('ArrowRight')));
    await changed(page, () => page.focus('[data-testid="input-num_prefixes"]').then(() => page.keyboard.press('ArrowRight')));
    original = await settings(page);
    const moved = Object.keys(original).filter((k) => JSON.stringify(original[k]) !== JSON.stringify(start[k])).sort();
    assert.deepEqual(moved, ['instances', 'num_prefixes', 'routing'], 'the three changes took');
    await page.click('#share');
    await page.waitForFunction(() => document.querySelector('#share').textContent.startsWith('Link copied'));
    copied = await page.evaluate(() => navigator.clipboard.readText());
    summary = await page.evaluate(() => window.kvfleet.lastReport.summary);
    assert.deepEqual(first.errors, []);
  } finally { await first.context.close(); }
  const u = new URL(copied);
  assert.deepEqual([...u.searchParams.keys()].sort(), ['instances', 'num_prefixes', 'routing'], `the link names the three changes only: ${copied}`);
  assert.ok(u.search.length < 80, `a short link (${u.search.length} characters): ${copied}`);
  assert.equal(u.searchParams.get('routing'), 'prefix_aware');
  assert.equal(u.searchParams.get('instances'), String(original.instances));
  const second = await open(u.pathname + u.search);
  try {
    assert.deepEqual(await settings(second.page), original, 'every setting restored from the short link');
    assert.deepEqual(await second.page.evaluate(() => window.kvfleet.lastReport.summary), summary, 'and the same numbers');
    assert.equal(await second.page.isVisible('[data-testid="url-notes"]'), false);
    assert.deepEqual(second.errors, []);
  } finally { await second.context.close(); }
});

test('a link at the defaults is the bare address; a changed seed is carried', async () => {
  const { page, errors, context } = await open('/');
  try {
    await changed(page, () => page.focus('[data-testid="input-instances"]').then(() => page.keyboard.press('ArrowRight')));
    assert.match(await settledUrl(page), /\?instances=\d+$/);
    await changed(page, () => page.focus('[data-testid="input-instances"]').then(() => page.keyboard.press('ArrowLeft')));
    assert.equal(new URL(await settledUrl(page)).search, '', 'back at the defaults: nothing to carry');
    await changed(page, () => page.click('[data-testid="reroll"]'));
    const seed = await page.evaluate(() => window.kvfleet.config.seed);
    assert.equal(new URL(await settledUrl(page)).search, `?seed=${seed}`);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('an old link naming every setting (unbounded ones included) still loads those settings', async () => {
  // Written as the page wrote links before: every parameter, "unbounded" for no value.
  const probe = await open('/');
  let params, config;
  try {
    params = await probe.page.evaluate(() => window.kvfleet.params.map((p) => p.name));
    config = { ...(await settings(probe.page)), routing: 'kv', instances: 8, seed: 7 };
  } finally { await probe.context.close(); }
  const q = new URLSearchParams();
  for (const name of params) q.set(name, config[name] === null ? 'unbounded' : String(config[name]));
  assert.ok(q.toString().length > 500, 'a long, full link');
  const { page, errors, context } = await open(`/?${q}`);
  try {
    assert.deepEqual(await settings(page), config);
    assert.equal(await page.isVisible('[data-testid="url-notes"]'), false);
    // The page then writes the short form of the same settings.
    const u = new URL(await settledUrl(page));
    assert.deepEqual([...u.searchParams.keys()].sort(), ['instances', 'routing', 'seed']);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('an embed without routing= runs the routing the page runs without it, for every figure; the chapter says which', async () => {
  const bare = await open('/');
  const pageRouting = await bare.page.evaluate(() => window.kvfleet.lastReport.config.routing);
  await bare.context.close();
  for (const show of ['hitrate', 'latency', 'timeline', 'load', 'replicas-sweep', 'compare']) {
    const { page, errors, context } = await open(`/?embed=1&show=${show}`, { width: 640, height: 500 });
    try {
      assert.equal(await page.evaluate(() => window.kvfleet.config.routing), pageRouting, `show=${show}`);
      if (show !== 'compare') assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.routing), pageRouting, `show=${show}'s run`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
  // A link that names another setting but no routing runs it too (not the simulator's kv).
  const some = await open('/?instances=8');
  try { assert.equal(await some.page.evaluate(() => window.kvfleet.lastReport.config.routing), pageRouting); } finally { await some.context.close(); }
  const chapter = readFileSync(path.join(ROOT, 'docs/src/embedding.md'), 'utf8').replace(/\s+/g, ' ');
  assert.ok(chapter.includes(`An embed that names no \`routing\` runs \`${pageRouting}\``), 'the embedding chapter states the default the page runs');
  const start = readFileSync(path.join(ROOT, 'docs/src/getting-started.md'), 'utf8').replace(/\s+/g, ' ');
  assert.ok(start.includes(`a link that names no \`routing\` (a bare link included) runs \`${pageRouting}\``), 'and so does the page\'s chapter');
});

test('a lesson\'s link carries what differs from the lesson\'s setup, and opens the same settings', async () => {
  const first = await open('/?lesson=hot-prefix');
  let original, href;
  try {
    const { page } = first;
    assert.equal(new URL(await settledUrl(page)).search, '?lesson=hot-prefix', 'the lesson\'s setup: nothing else to carry');
    await changed(page, () => page.focus('[data-testid="input-spill_queue"]').then(() => page.keyboard.press('ArrowRight')));
    original = await settings(page);
    const u = new URL(await settledUrl(page));
    assert.deepEqual([...u.searchParams.keys()].sort(), ['lesson', 'spill_queue']);
    href = u.pathname + u.search;
    assert.deepEqual(first.errors, []);
  } finally { await first.context.close(); }
  const again = await open(href);
  try {
    assert.deepEqual(await settings(again.page), original);
    assert.deepEqual(again.errors, []);
  } finally { await again.context.close(); }
});

test('a scenario on the simulator\'s defaults (the seed\'s example) links to ?routing=kv, and the link reopens it', async () => {
  const first = await open('/');
  let original, href;
  try {
    const { page } = first;
    await changed(page, () => page.click('[data-testid=scenario-default]'));
    original = await settings(page);
    assert.equal(original.routing, 'kv', 'the seed\'s example runs kv');
    const u = new URL(await settledUrl(page));
    assert.equal(u.search, '?routing=kv', 'only the routing differs from the page\'s defaults');
    href = u.pathname + u.search;
  } finally { await first.context.close(); }
  const again = await open(href);
  try {
    assert.deepEqual(await settings(again.page), original);
    assert.deepEqual(again.errors, []);
  } finally { await again.context.close(); }
});

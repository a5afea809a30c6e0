// tests/e2e/dist.test.mjs: the static folder `cargo xtask dist` writes (the test command
// writes it before the page tests) is self-contained: served from another path prefix, with
// nothing else on the server, an embed draws its chart and the book and its live figure load.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, collectErrors, launchBrowser, startServer } from './harness.mjs';

const PREFIX = '/docs/tools/kvfleet';
let dir, server, browser;

before(async () => {
  const dist = join(ROOT, 'dist');
  await stat(join(dist, 'index.html')).catch(() => {
    throw new Error('dist/ is missing: run `cargo xtask dist` (`cargo xtask test` writes it before the page tests)');
  });
  dir = await mkdtemp(join(tmpdir(), 'kvfleet-dist-'));
  await cp(dist, join(dir, PREFIX), { recursive: true });
  server = await startServer({ dir });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function open(path, viewport) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${server.url}${path}`);
  return { page, errors, close: () => context.close() };
}

test('an embed served from dist/ under another path prefix draws its chart', async () => {
  const { page, errors, close } = await open(`${PREFIX}/?embed=1&show=hitrate&routing=kv&instances=4`, { width: 640, height: 500 });
  try {
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    const points = await page.evaluate(() => [...document.querySelectorAll('#embed canvas')].map((c) => {
      const ch = window.Chart.getChart(c);
      return ch ? ch.data.datasets.reduce((n, d) => n + d.data.filter((v) => Number.isFinite(v)).length, 0) : 0;
    }));
    assert.ok(points.some((n) => n >= 4), `the hit-rate chart has a bar per replica: ${points}`);
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.summary.requests), 200);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('the book in dist/ loads under the prefix, and its live figure points back into it', async () => {
  const { page, errors, close } = await open(`${PREFIX}/book/getting-started.html`, { width: 1100, height: 900 });
  try {
    const src = await page.getAttribute('main iframe', 'src');
    assert.match(src, /^\.\.\/\?embed=1&/);
    const frame = page.frameLocator('main iframe').first();
    await frame.locator('#embed canvas').first().waitFor({ timeout: 30000 });
    const inner = page.frames().find((f) => f.url().includes('embed=1'));
    // (The embed rewrites its address once its settings are read, `embed=1` then among the rest.)
    const at = new URL(inner.url());
    assert.ok(at.origin === server.url && at.pathname === `${PREFIX}/` && at.searchParams.get('embed') === '1', inner.url());
    await inner.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0, null, { timeout: 30000 });
    assert.deepEqual(errors.filter((e) => !/ERR_ABORTED/.test(e)), []);
  } finally { await close(); }
});

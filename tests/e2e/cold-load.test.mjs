// tests/e2e/cold-load.test.mjs: the page's and an embed's cold load, each in a fresh context (an empty
// cache). What it asserts is how the load is made, not how long it takes: the scripts come as two
// bundles (www/bundle/, made by scripts/bundle.mjs), not the modules of www/js/ one import level at a
// time; the simulator's worker starts the wasm's download in its first line, before its own script
// is in, and downloads it once (again only if that download failed); the panels below the first
// screen are built after the first chart. The time to the first chart is printed, never asserted
// (tests/e2e/load-time.mjs measures it, also over an emulated slow link).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
/** At most this many requests before the first chart: the page, its style sheet, Chart.js, the two
 * bundles, the worker's one-line module in memory, the wasm (7), and one to spare. */
const MAX_REQUESTS = 8;

/**
 * Opens `path` in a fresh context, recording every request (the workers' too) with the ms since the
 * navigation's start at which it started and ended; resolves once the first chart is drawn.
 */
async function coldOpen(path, { route } = {}) {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (route) await context.route('**/kvfleet_bg.wasm', route);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`console.${m.type()}: ${m.text()}`); });
  const requests = [];
  context.on('requestfinished', (r) => requests.push(r));
  await page.goto(site.url + path);
  await page.waitForFunction(() => window.kvfleet?.firstRenderAt > 0, null, { timeout: 30000 });
  const { first, origin, marks } = await page.evaluate(() => ({ first: window.kvfleet.firstRenderAt, origin: performance.timeOrigin, marks: window.kvfleet.marks }));
  const before = requests.map((r) => ({ url: new URL(r.url()).pathname, start: r.timing().startTime - origin, end: r.timing().startTime - origin + r.timing().responseEnd, blob: r.url().startsWith('blob:') }))
    .filter((r) => r.start <= first);
  return { page, context, errors, first, marks, before };
}

/** The requests made before the first chart, by path (a blob: URL as "blob"). */
const paths = (before) => before.map((r) => (r.blob ? 'blob' : r.url)).sort();

/** The assertions every cold load shares: bundles, few requests, the wasm fetched once and early. */
function assertBundledLoad({ before }, what) {
  const sources = before.filter((r) => /\/js\/[\w.-]+\.js$/.test(r.url));
  assert.deepEqual(sources.map((r) => r.url), [], `${what}: no module of www/js/ is fetched on its own`);
  for (const name of ['/bundle/main.js', '/bundle/worker.js']) {
    assert.equal(before.filter((r) => r.url === name).length, 1, `${what}: ${name} fetched once: ${paths(before).join(', ')}`);
  }
  assert.ok(before.length <= MAX_REQUESTS, `${what}: ${before.length} requests before the first chart (at most ${MAX_REQUESTS}): ${paths(before).join(', ')}`);
  const wasm = before.filter((r) => r.url.endsWith('/kvfleet_bg.wasm'));
  assert.equal(wasm.length, 1, `${what}: the wasm is downloaded once: ${paths(before).join(', ')}`);
  // Started before the worker's script had even arrived: the download does not wait for it.
  const workerScript = before.find((r) => r.url === '/bundle/worker.js');
  assert.ok(wasm[0].start <= workerScript.end, `${what}: the wasm's download started at ${wasm[0].start.toFixed(0)} ms, before the worker's script was in (${workerScript.end.toFixed(0)} ms)`);
}

test('cold load to the first chart, each in a fresh context (median of 5): bundled scripts, the wasm fetched early and once', async () => {
  const times = [];
  const steps = {};
  for (let i = 0; i < 5; i++) {
    const load = await coldOpen('/');
    const { page, context, errors, first, marks } = load;
    try {
      const drawn = await page.evaluate(() => window.Chart.getChart(document.querySelector('[data-testid="chart-hero"]')).data.datasets
        .some((d) => d.label === 'this run' && d.data.length === 1));
      assert.ok(drawn, 'the hero figure holds the first run\'s point');
      assertBundledLoad(load, 'the page');
      // The dashboard's controls (2,000 px down), the hero's sweep worker (the first run has the
      // cores to itself) and the panels below the first screen come after the first chart.
      await page.waitForFunction(() => window.kvfleet.panelsBuilt && window.kvfleet.heroDone > 0, null, { timeout: 30000 });
      const after = await page.evaluate(() => window.kvfleet.marks);
      for (const k of ['controlsBuilt', 'heroWorker', 'panelsBuilt']) assert.ok(after[k] >= first, `${k} at ${after[k]?.toFixed(0)} ms, the first chart at ${first.toFixed(0)} ms`);
      assert.ok(await page.locator('[data-testid="input-instances"]').count() === 1, 'the dashboard\'s replicas slider was built');
      assert.ok(await page.locator('[data-testid="compare-run"]').count() === 1, 'the compare panel was built');
      times.push(first);
      for (const [k, t] of Object.entries(marks)) (steps[k] ||= []).push(t);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  }
  console.log(`# cold load to first chart (fresh context, local server): median ${median(times).toFixed(0)} ms; all: ${times.map((t) => t.toFixed(0)).join(', ')}`);
  // Where the time went (medians, ms since the navigation's start; worker marks on the page's clock).
  const order = Object.keys(steps).sort((a, b) => median(steps[a]) - median(steps[b]));
  console.log(`#   steps: ${order.map((k) => `${k} ${median(steps[k]).toFixed(0)}`).join(', ')}`);
});

test('an embed\'s cold load is made the same way', async () => {
  const load = await coldOpen('/?embed=1&show=hitrate');
  try {
    assertBundledLoad(load, 'the embed');
    const bars = await load.page.evaluate(() => [...document.querySelectorAll('#embed canvas')]
      .map((c) => window.Chart.getChart(c)?.data.datasets[0]?.data.length ?? 0));
    assert.ok(bars.some((n) => n >= 1), `the embed's chart has bars: ${bars}`);
    console.log(`# embed cold load to first chart (one fresh context, local server): ${load.first.toFixed(0)} ms`);
    assert.deepEqual(load.errors, []);
  } finally { await load.context.close(); }
});

test('when the early download of the wasm fails, the worker downloads it again and the chart is drawn', async () => {
  // The first download is refused, as a busy server might.
  let n = 0;
  const load = await coldOpen('/', {
    route: (route) => (++n > 1 ? route.continue() : route.fulfill({ status: 503, contentType: 'text/plain', body: 'busy\n' })),
  });
  try {
    const wasm = load.before.filter((r) => r.url.endsWith('/kvfleet_bg.wasm'));
    assert.equal(wasm.length, 2, `the early download, then the worker's own: ${paths(load.before).join(', ')}`);
    assert.ok(await load.page.evaluate(() => window.kvfleet.lastReport.summary.requests > 0), 'a run finished');
    // What the console says is the browser's own line about the refused download.
    assert.deepEqual(load.errors.filter((e) => !/503/.test(e)), []);
  } finally { await load.context.close(); }
});

test('when the worker\'s script cannot be loaded, the page says so instead of loading forever', async () => {
  const context = await site.browser.newContext({ viewport: { width: 1000, height: 700 } });
  try {
    await context.route('**/bundle/worker.js', (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    await page.waitForSelector('.boot.failed', { timeout: 30000 });
    assert.match(await page.textContent('[data-testid="boot"]'), /could not start: the worker script failed to load/);
  } finally { await context.close(); }
});

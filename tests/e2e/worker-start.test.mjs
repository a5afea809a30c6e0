// How the page starts its simulator workers (www/index.html's first script, www/js/worker-host.js):
// from a one-line module in memory that imports its script, so the worker's script is not fetched
// last on a cold load; and, on a page whose content security policy refuses blob: workers, from the script itself.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { collectErrors, startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const ready = (page) => page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.heroDone > 0, null, { timeout: 60_000 });

/** Opens the page with `csp` (a Content-Security-Policy meta tag's content) written into its head. */
async function openWithPolicy(csp) {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route(`${site.url}/`, async (route) => {
    const res = await route.fetch();
    const html = (await res.text()).replace('<head>', `<head>\n  <meta http-equiv="Content-Security-Policy" content="${csp}">`);
    assert.ok(html.includes(csp), 'the policy was written into the page');
    await route.fulfill({ response: res, body: html });
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${site.url}/`);
  return { page, errors, context };
}

/** The scheme of each worker's URL as the page starts it ("blob" or "http"). */
function workerStarts(page) {
  const seen = [];
  page.on('worker', (w) => seen.push(`started ${w.url().split(':')[0]}`));
  return seen;
}

test('the simulator and the hero start their workers from an in-memory module, with no fallback', async () => {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const errors = collectErrors(page);
    const starts = workerStarts(page);
    await page.goto(`${site.url}/`);
    await ready(page);
    const how = await page.evaluate(() => window.kvfleet.workerStart());
    assert.deepEqual(how, { viaBlob: true, fallbacks: 0 }, 'the main worker came from the page\'s in-memory module');
    // Both the main worker (index.html) and the hero's (WorkerHost) run from blob: URLs.
    assert.ok(starts.filter((s) => s === 'started blob').length >= 2, `workers started: ${starts.join(', ')}`);
    assert.ok(!starts.includes('started http'), `no worker was started from its script's own URL: ${starts.join(', ')}`);
    assert.ok(await page.locator('#hero').isVisible(), 'the first screen is drawn');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test("a policy refusing blob: workers: the page falls back to the script itself, and the hero's sweep (posted before its worker spoke) still runs", async () => {
  const { page, errors, context } = await openWithPolicy("worker-src 'self'");
  try {
    await ready(page);
    const how = await page.evaluate(() => window.kvfleet.workerStart());
    assert.deepEqual(how, { viaBlob: false, fallbacks: 1 }, 'the in-memory start was refused, then the plain one ran');
    const report = await page.evaluate(() => window.kvfleet.lastReport);
    assert.ok(report.summary.requests > 0, 'a run finished');
    assert.equal(await page.locator('#run-error').isVisible().catch(() => false), false, 'no error box');
    // What is left in the console is the browser's own note of the refused blob: workers.
    const other = errors.filter((e) => !/Content Security Policy|worker-src/i.test(e));
    assert.deepEqual(other, []);
    // Once refused, the later workers (the hero's sweep) start from their script at once: one note.
    assert.equal(errors.length, 1, `the policy refused the in-memory start once: ${errors.join('\n')}`);
  } finally { await context.close(); }
});

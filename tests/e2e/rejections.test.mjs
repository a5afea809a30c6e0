// tests/e2e/rejections.test.mjs: a rejection's words on the page give the report's reason. Lesson
// reuse-at-all with a 9-block cache (an unbounded queue) refuses requests too large for the cache:
// the headline, the load chart's tooltip and its label say so with the native counts, and nothing
// says "queue full".

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT, nativeBin, nextFrames } from './harness.mjs';

const BIN = nativeBin();
const PAGE_TIMEOUT = 60000;
const n = (x) => x.toLocaleString('en-US');
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false });
});
after(async () => { await site?.close(); });

/** The lesson's broken setup, then its cache slider moved to 9 blocks by keyboard (as a user would). */
async function lessonAtNineBlocks() {
  const { page, errors, context } = await site.open('/?lesson=reuse-at-all', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config?.kv_blocks === 833, null, { timeout: PAGE_TIMEOUT });
  await page.focus('#in-kv_blocks');
  await page.keyboard.press('Home'); // 1 block, then eight steps: 9
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.kv_blocks === 9, null, { timeout: PAGE_TIMEOUT });
  await nextFrames(page);
  return { page, errors, context };
}

test('reuse-at-all at 9 blocks: the page says the requests were too large for the cache, not a full queue', async () => {
  const { page, errors, context } = await lessonAtNineBlocks();
  try {
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    const s = r.summary;
    assert.equal(r.config.queue_capacity, null, 'the lesson has unbounded queues');
    // The same counts as the CLI on the same setup.
    const native = JSON.parse(execFileSync(BIN, ['--preset', 'reuse-at-all', '-q', '--des-kv-blocks', '9', '--des-report-json', '-'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    assert.equal(s.rejected, native.summary.rejected);
    assert.equal(s.rejected_too_large, native.summary.rejected_too_large);
    assert.equal(s.rejected_queue_full, native.summary.rejected_queue_full);
    assert.ok(s.rejected > 1000, `requests were refused (${s.rejected})`);
    assert.equal(s.rejected_too_large, s.rejected, 'every refusal is a request too large for 9 blocks');
    assert.equal(s.rejected_queue_full, 0);

    const dropped = await page.textContent('[data-testid=fig-dropped]');
    assert.ok(dropped.includes(`${n(s.rejected)} rejected: too large for a 9-block cache`), dropped);
    assert.doesNotMatch(dropped, /queue/i);

    // The load chart: its label and the rejected bar's tooltip give the same reason.
    const label = await page.getAttribute('[data-testid=chart-load]', 'aria-label');
    assert.ok(label.includes(`${n(s.rejected)} rejected: too large for a 9-block cache`), label);
    assert.doesNotMatch(label, /queue full/);
    const tip = await page.evaluate(() => {
      const ch = window.Chart.getChart(document.querySelector('[data-testid=chart-load]'));
      const dataset = ch.data.datasets[2];
      return ch.options.plugins.tooltip.callbacks.label({ datasetIndex: 2, dataIndex: 0, dataset, parsed: { y: dataset.data[0] } });
    });
    assert.equal(tip.trim(), `${n(r.per_instance[0].rejected)} rejected: too large for a 9-block cache`);

    // No finding blames full queues for them.
    const findings = (r.findings || []).map((f) => f.text).join(' ');
    assert.doesNotMatch(findings, /full queue/);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

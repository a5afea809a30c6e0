// tests/e2e/bench.test.mjs: the wasm bench in Chromium through the page harness (see wasm-bench.mjs):
// the conversation trace under kv on 8 replicas and the seed example, timed in a dedicated worker that
// imports www/pkg/kvfleet.js, next to the native CLI. Prints the figures; asserts only correctness (the
// wasm summary equals the native --des-report-json summary), never timings.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT } from './harness.mjs';
import { wasmBench, nativeBench, summarise } from './wasm-bench.mjs';

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  assert.ok(existsSync(path.join(ROOT, 'www/data/conversation_trace.jsonl')), 'www/data is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

test('wasm bench: conversation trace kv x8 and the seed example in Chromium, against native (no timing asserted)', async () => {
  const context = await site.browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    // A blank page of the same origin, so nothing else competes for the two cores.
    await page.route(`${site.url}/__bench__`, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>wasm bench</title><link rel="icon" href="data:,">' }));
    await page.goto(`${site.url}/__bench__`);
    const w = await wasmBench(page, site.url, { runs: 5, seedRuns: 21 });
    const n = nativeBench({ runs: 5 });
    summarise(w, n);

    assert.equal(w.report.summary.requests, 12031, 'the whole conversation trace was replayed');
    assert.equal(JSON.stringify(w.report.summary), JSON.stringify(n.report.summary), 'wasm and native summaries are identical');
    const golden = JSON.parse(readFileSync(path.join(ROOT, 'tests/golden/seed_example.json'), 'utf8'));
    assert.equal(JSON.stringify(w.seedReport.summary), JSON.stringify(golden.summary), 'the seed example equals the golden report');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

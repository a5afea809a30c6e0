// tests/e2e/trace-reuse.test.mjs: a trace (built-in or uploaded) is parsed once per upload, in the
// worker, and kept: slider steps replay the parsed requests. Read through the `parses` counter the
// worker sends with every result (window.kvfleet.traceParses, and heroTraceParses for the hero's
// own worker), never through timing. Also prints, without asserting it, how a slider step's redraw
// on the conversation trace compares with the worker's time for the same runs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT } from './harness.mjs';

/** The replica slider's stops (two a doubling), a count between them joining them. */
const STOPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256];
/** Where one press of `key` takes the replica slider from `n`. */
function nextStop(n, key) {
  const list = STOPS.includes(n) ? STOPS : [...STOPS, n].sort((a, b) => a - b);
  return list[list.indexOf(n) + (key === 'ArrowRight' ? 1 : -1)];
}

let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});

after(async () => {
  await site?.close();
});

async function openPage(where) {
  const { page, errors, context } = await site.open(where, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
  return { page, errors, close: () => context.close() };
}

const runCount = (page) => page.evaluate(() => window.kvfleet.runCount);
const lastReport = (page) => page.evaluate(() => window.kvfleet.lastReport);

async function waitForRun(page, after) {
  await page.waitForFunction((n) => window.kvfleet.runCount > n, after, { timeout: 60000 });
}

/** Presses a key on the focused replicas slider and waits for that run; returns the run's report. */
async function step(page, key) {
  const n = await runCount(page);
  await page.keyboard.press(key);
  await waitForRun(page, n);
  return lastReport(page);
}

/** A small trace of `n` requests, written here (4 shared prefixes of 2 blocks, one unique block each). */
function smallTrace(n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ timestamp: i * 50, input_length: 1536, output_length: 16, hash_ids: [1000 + (i % 4), 2000 + (i % 4), 5000 + i] }));
  }
  return lines.join('\n');
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };

test('a built-in and an uploaded trace are each parsed once, however often a slider moves', async () => {
  const { page, errors, close } = await openPage('/');
  try {
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 0, 'the synthetic workload parses no trace');
    let n = await runCount(page);
    await page.click('[data-testid="trace-synthetic"]');
    await waitForRun(page, n);
    const first = await lastReport(page);
    assert.match(first.source, /synthetic_trace\.jsonl/);
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 1, 'the built-in trace was parsed once');

    // Five slider steps, each a new run on the same trace: every one replays it, none parses it again.
    await page.focus('[data-testid="input-instances"]');
    let instances = first.config.instances;
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowLeft', 'ArrowRight', 'ArrowRight']) {
      instances = nextStop(instances, key);
      const r = await step(page, key);
      assert.equal(r.config.instances, instances, 'the run is the new setting');
      assert.match(r.source, /synthetic_trace\.jsonl/, 'and still replays the trace');
      assert.equal(r.summary.requests, first.summary.requests, 'the whole trace each time');
    }
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 1, 'five runs later, still parsed once');
    // The hero's own worker sweeps the replica counts on the same trace: once there too.
    await page.waitForFunction(() => window.kvfleet.hero.pending === null && window.kvfleet.heroTraceParses !== undefined, null, { timeout: 120000 });
    assert.equal(await page.evaluate(() => window.kvfleet.heroTraceParses), 1, 'the hero worker parsed the trace once for its whole sweep');

    // An uploaded file: parsed once when chosen, then kept across slider steps.
    const requests = 120;
    n = await runCount(page);
    await page.setInputFiles('[data-testid="trace-file"]', { name: 'small.jsonl', mimeType: 'application/json', buffer: Buffer.from(smallTrace(requests)) });
    await waitForRun(page, n);
    const uploaded = await lastReport(page);
    assert.match(uploaded.source, /small\.jsonl/);
    assert.equal(uploaded.summary.requests, requests, 'every line of the file replayed');
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 2, 'the upload was parsed once');
    await page.focus('[data-testid="input-instances"]');
    for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowRight']) {
      const r = await step(page, key);
      assert.match(r.source, /small\.jsonl/);
      assert.equal(r.summary.requests, requests);
    }
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 2, 'three runs on the upload later, still two parses in all');

    // Back to the built-in trace: its parse was kept, so it replays without a third.
    n = await runCount(page);
    await page.click('[data-testid="trace-synthetic"]');
    await waitForRun(page, n);
    assert.match((await lastReport(page)).source, /synthetic_trace\.jsonl/);
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 2, 'the first trace was kept, not parsed again');
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

test('slider steps on the conversation trace: redraw against the worker\'s time for the same runs (printed)', async () => {
  const { page, errors, close } = await openPage('/?trace=conversation_trace.jsonl');
  try {
    const first = await lastReport(page);
    assert.match(first.source, /conversation_trace\.jsonl/);
    await page.focus('[data-testid="input-instances"]');
    const redraw = [], sim = [];
    const parts = {};
    let instances = first.config.instances;
    for (let i = 0; i < 10; i++) {
      await page.evaluate(() => {
        window.__t0 = 0;
        document.addEventListener('input', () => { window.__t0 = performance.now(); }, { capture: true, once: true });
      });
      const key = i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft';
      instances = nextStop(instances, key);
      const r = await step(page, key);
      assert.equal(r.config.instances, instances, 'each step drew its own run');
      assert.equal(r.summary.requests, first.summary.requests);
      const [t, ms, t0, split] = await page.evaluate(() => [window.kvfleet.lastRenderAt - window.__t0, window.kvfleet.lastRunMs, window.__t0, window.kvfleet.lastTimes]);
      for (const [k, v] of Object.entries(split)) (parts[k] ||= []).push(v);
      assert.ok(t0 > 0, 'the input event was seen');
      redraw.push(t);
      sim.push(ms);
    }
    assert.equal(await page.evaluate(() => window.kvfleet.traceParses), 1, 'ten runs, one parse');
    const rd = median(redraw), sm = median(sim);
    console.log(`# conversation trace (${first.summary.requests} requests), input -> redrawn charts: median ${rd.toFixed(1)} ms; the worker's time for the same runs (simulation and report, no parse): median ${sm.toFixed(1)} ms; ratio ${(rd / sm).toFixed(2)} (target: at most 1.5)`);
    console.log(`#   redraw: ${redraw.map((t) => t.toFixed(0)).join(', ')}; worker: ${sim.map((t) => t.toFixed(0)).join(', ')}`);
    console.log(`#   parts (medians): ${Object.keys(parts).map((k) => `${k} ${median(parts[k]).toFixed(1)}`).join(', ')} ms`);
    assert.deepEqual(errors, []);
  } finally { await close(); }
});

// tests/e2e/fleet-note.test.mjs: the note under the simulator's fleet lines says, first, what the
// hit-rate line's "X% of requests" counts and that it is not the token hit rate (both shares from
// the run's own counts, and the counts themselves where the line rounds to 100.0%), then what the report's "block-reuse" counts and why it differs from the
// token hit rate.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT } from './harness.mjs';

const n = (x) => x.toLocaleString('en-US');
const pct1 = (x) => `${(100 * x).toFixed(1)}%`;
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false });
});
after(async () => { await site?.close(); });

/** Opens `url`, waits for its run and returns the report, the note and the fleet lines. */
async function noteOf(url, check) {
  const { page, errors, context } = await site.open(url, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport?.summary?.prompt_blocks > 0, null, { timeout: 60000 });
    await page.waitForSelector('[data-testid=fleet-note]:not([hidden])');
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    const note = await page.textContent('[data-testid=fleet-note]');
    const lines = await page.textContent('[data-testid=fleet-lines]');
    // The share the note names is the one the fleet line prints, from the raw counts.
    const s = r.summary;
    const reuse = lines.match(/block-reuse=([\d.]+%)/)[1];
    assert.equal(reuse, pct1(s.cached_blocks / s.prompt_blocks), lines);
    assert.ok(note.includes(`${n(s.cached_blocks)} of ${n(s.prompt_blocks)} prompt blocks came from a cache (${reuse})`), note);
    const rounded = await hitNoteHolds(page, r, lines);
    check(r, note, rounded);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
}

/**
 * Right under the fleet lines, before the block-reuse words, in a line of its own: the line's
 * "X of requests" in bold, what it counts, and the token hit rate beside it. Both shares are
 * computed here from the report's counts (requests with a hit over admitted ones; cached over
 * prompt tokens), and are the ones the line and the headline figure print.
 */
async function hitNoteHolds(page, r, lines) {
  const s = r.summary;
  const req = pct1(s.hit_requests / s.admitted);
  const tok = pct1(s.cached_tokens / s.prompt_tokens);
  assert.notEqual(req, tok, 'a run where the two rates differ');
  assert.ok(lines.includes(`Prefix-cache hit rate: ${req} of requests`), lines);
  assert.match(await page.textContent('[data-testid=fig-hit-rate]'), new RegExp(`^Token hit rate${tok.replace('.', '\\.')}`));
  const where = await page.evaluate(() => {
    const pre = document.querySelector('[data-testid=fleet-lines]');
    const note = pre.nextElementSibling;
    const hit = note.querySelector('[data-testid=fleet-hit-note]');
    const lead = hit?.querySelector('strong');
    return { next: note.dataset.testid, first: note.firstElementChild === hit, firstLine: note.innerText.split('\n')[0],
      lead: lead?.textContent, bold: lead ? Number(getComputedStyle(lead).fontWeight) : 0 };
  });
  assert.equal(where.next, 'fleet-note', 'the note follows the fleet lines');
  assert.equal(where.first, true, 'the hit-rate words come first, right under the hit-rate line');
  assert.equal(where.lead, `“${req} of requests”`);
  assert.ok(where.bold >= 600, `the line's words stand out (font-weight ${where.bold})`);
  // A share the line rounds to 100.0% when some request found nothing: the note gives the counts
  // (12,027 of 12,031 is 99.967%, "99.97%" to two decimals, the first that is not 100.00).
  const some = s.hit_requests < s.admitted && req === '100.0%';
  const exact = `${(100 * s.hit_requests / s.admitted).toFixed(2)}%`;
  const rounded = some ? `; here ${n(s.hit_requests)} of ${n(s.admitted)} (${exact}), which the line rounds up` : '';
  assert.equal(where.firstLine, `“${req} of requests” counts requests with at least one cached block (one is enough)${rounded}. `
    + `It is not the token hit rate: ${tok} of prompt tokens were served from cache.`);
  return some;
}

test('a trace with part-filled prompt blocks: the note says why its token hit rate reads higher than block-reuse', async () => {
  await noteOf('/?trace=conversation_trace.jsonl', (r, note, rounded) => {
    const s = r.summary;
    assert.ok(rounded, `the trace's ${s.hit_requests} of ${s.admitted} requests with a hit print as 100.0% on the line: the note gives the counts`);
    const tokens = s.cached_tokens / s.prompt_tokens;
    assert.ok(note.includes(`token hit rate, ${pct1(tokens)}, counts tokens (${n(s.cached_tokens)} of ${n(s.prompt_tokens)})`), note);
    // Its reason holds on this run: prompts leave blocks part-filled, and tokens read higher.
    assert.ok(s.prompt_blocks * r.config.block_size > s.prompt_tokens, 'some prompt blocks are part-filled');
    assert.notEqual(pct1(tokens), pct1(s.cached_blocks / s.prompt_blocks), 'the two shares differ as printed');
    assert.match(note, /reads higher because a prompt's last block is usually only partly filled/);
  });
});

test('the synthetic workload\'s whole-block prompts: the note says the two shares agree', async () => {
  await noteOf('/', (r, note) => {
    const s = r.summary;
    assert.equal(s.prompt_blocks * r.config.block_size, s.prompt_tokens, 'every prompt fills its blocks');
    assert.ok(note.includes(`The token hit rate, ${pct1(s.cached_tokens / s.prompt_tokens)}, counts the same reuse in tokens.`), note);
    assert.doesNotMatch(note, /reads higher/);
  });
});

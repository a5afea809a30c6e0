// tests/e2e/book-numbers.test.mjs: the numbers the book's getting-started chapter quotes under its
// live figure are the simulator's: each is measured here with the command line (the page's defaults,
// routing named) and rounded as the page rounds (half up, to a tenth), so the sentence cannot drift.
// No browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, nativeBin } from './harness.mjs';

/** The run's report (summary) for `routing` on `instances` replicas, on the simulator's defaults. */
function summary(routing, instances) {
  const out = execFileSync(nativeBin(), ['--des-routing', routing, '--des-instances', String(instances), '--des-report-json', '-'],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out).summary;
}

// A share of tokens as the page prints it: tenths of a percent, a half rounded up (exact counts, so
// 198,656 of 819,200 = 24.25 % is 24.3 %, not the binary float's whim).
const tenthsUp = (cached, total) => {
  const t = Math.floor((cached * 2000) / total); // whole halves of a tenth of a percent
  return `${(Math.floor((t + 1) / 2) / 10).toFixed(1)} %`;
};

test('getting-started: the figure\'s caption quotes round robin on 1 and 16 replicas and prefix_aware, as measured', () => {
  const text = readFileSync(path.join(ROOT, 'docs/src/getting-started.md'), 'utf8').replace(/\s+/g, ' ');
  const rr1 = summary('round_robin', 1);
  const rr16 = summary('round_robin', 16);
  const pa16 = summary('prefix_aware', 16);
  const [a, b, c] = [rr1, rr16, pa16].map((s) => tenthsUp(s.cached_tokens, s.prompt_tokens));
  const sentence = `round robin falls from ${a} of prompt tokens on one replica to ${b} on 16, while prefix_aware stays at ${c}.`;
  assert.ok(text.includes(sentence), `the chapter says: “${sentence}”`);
  // The exact share and the counts it quotes beside the rounded figure.
  const n = (x) => x.toLocaleString('en-US');
  const exact = `${(100 * rr16.cached_tokens / rr16.prompt_tokens).toFixed(2)} %`;
  assert.ok(text.includes(`exactly ${exact} of prompt tokens come from cache, ${n(rr16.cached_tokens)} of ${n(rr16.prompt_tokens)}`), exact);
});

// tests/e2e/workload-words.test.mjs: the hero's workload sentence. Its words for each kind of
// setting (written out here by hand), and on the page: the sentence under the lead, with numbers
// that the run itself bears out (the requests it counted, their prompt tokens, the hits one replica
// finds) or, for the trace, that the trace file itself gives.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, ROOT, nextFrames } from './harness.mjs';
import { workloadWords } from '../../www/js/workload-words.js';

const DEFAULTS = {
  workload: 'pool', num_requests: 200, request_rate: 6, arrival_model: 'poisson', burstiness: 1, input_len: 4096,
  range_ratio: 0, num_prefixes: 8, prefix_len: 2048, prefix_popularity: 'uniform',
  num_sessions: 100, turns: 20, session_rate: 1, turn_input_len: 512, system_prompt_len: 2048,
};
const w = (over) => workloadWords({ ...DEFAULTS, ...over });

test('the synthetic pool in words: requests, arrivals, prompts and what they share', () => {
  assert.equal(w({}), 'The workload: 200 requests at 6 per second, each a 4,096-token prompt that opens with one of 8 shared 2,048-token prefixes, all equally popular.');
  assert.equal(w({ prefix_popularity: 'hot:0.85' }), 'The workload: 200 requests at 6 per second, each a 4,096-token prompt that opens with one of 8 shared 2,048-token prefixes, one of them in 85% of the requests.');
  assert.equal(w({ prefix_popularity: 'zipf:1.1', num_requests: 1 }), 'The workload: 1 request at 6 per second, each a 4,096-token prompt that opens with one of 8 shared 2,048-token prefixes, the first the most popular and each next less so (Zipf, s = 1.1).');
  assert.equal(w({ num_prefixes: 1 }), 'The workload: 200 requests at 6 per second, each a 4,096-token prompt that opens with the same shared 2,048-token prefix.');
  assert.equal(w({ num_prefixes: 0 }), 'The workload: 200 requests at 6 per second, each a 4,096-token prompt that shares no prefix with any other.');
  assert.equal(w({ prefix_len: 8192 }), 'The workload: 200 requests at 6 per second, each a 4,096-token prompt that is wholly one of 8 shared 4,096-token prefixes, all equally popular.');
  assert.equal(w({ range_ratio: 0.5, request_rate: 2.5 }), 'The workload: 200 requests at 2.5 per second, each a prompt of 4,096 tokens on average that opens with one of 8 shared 2,048-token prefixes, all equally popular.');
  assert.match(w({ arrival_model: 'deterministic' }), /^The workload: 200 requests evenly, 6 per second, each/);
  assert.match(w({ arrival_model: 'gamma', burstiness: 0.25 }), /^The workload: 200 requests at 6 per second in bursts \(gamma, burstiness 0\.25\), each/);
  assert.match(w({ arrival_model: 'gamma', burstiness: 4 }), /at 6 per second, more evenly than at random \(gamma, burstiness 4\), each/);
  // A rate schedule replaces the constant rate in the words.
  assert.match(w({ request_rate_schedule: '0s:4,60s:16' }), /^The workload: 200 requests on the rate schedule 0s:4,60s:16 \(per second\), each/);
  assert.match(w({ request_rate_schedule: 'daily:16:600s', arrival_model: 'gamma', burstiness: 0.25 }),
    /^The workload: 200 requests on the rate schedule daily:16:600s \(per second\), in bursts \(gamma, burstiness 0\.25\), each/);
  assert.match(w({ request_rate_schedule: '0s:4', arrival_model: 'deterministic' }), /^The workload: 200 requests evenly spaced, on the rate schedule 0s:4 \(per second\), each/);
  assert.match(w({ workload: 'sessions', request_rate_schedule: '0s:1,60s:4' }), /^The workload: 100 tasks of 20 turns, started on the rate schedule 0s:1,60s:4 \(per second\);/);
  // Gamma with shape 1 is Poisson: nothing to add.
  assert.match(w({ arrival_model: 'gamma', burstiness: 1 }), /^The workload: 200 requests at 6 per second, each/);
});

test('sessions and traces in words', () => {
  assert.equal(w({ workload: 'sessions' }), 'The workload: 100 tasks of 20 turns, 1 started per second; each turn resends the conversation so far after a shared 2,048-token system prompt and adds 512 tokens.');
  assert.equal(w({ workload: 'sessions', num_sessions: 1, turns: 1, system_prompt_len: 0, session_rate: 0.5 }),
    'The workload: 1 task of 1 turn, 0.5 started per second; each turn resends the conversation so far and adds 512 tokens.');
  const summary = { requests: 12031, admitted: 12031, prompt_tokens: 144793823, offered_rate: 3.4012 };
  assert.equal(workloadWords(DEFAULTS, { name: 'conversation_trace.jsonl', builtin: true }, summary),
    'The workload: the Mooncake trace conversation_trace.jsonl (anonymised requests to Kimi), 12,031 requests at 3.4 per second, 12,035 prompt tokens each on average.');
  assert.equal(workloadWords(DEFAULTS, { name: 'mine.jsonl' }, null), 'The workload: the uploaded trace mine.jsonl.');
  assert.equal(workloadWords(null), '');
});

let site;
before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** Opens `url` at 1280 x 900, waits for the run and the hero's sweep, and returns the report, the sweeps and the sentence. */
async function workloadOf(url) {
  const { page, errors, context } = await site.open(url, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
      null, { timeout: 120000 });
    await nextFrames(page);
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    const sweeps = await page.evaluate(() => window.kvfleet.hero.sweeps);
    const words = await page.textContent('[data-testid=workload]');
    const box = await page.$eval('[data-testid=workload]', (e) => e.getBoundingClientRect().bottom);
    assert.ok(box < 900, `on the first screen: its bottom at ${box} px`);
    assert.deepEqual(errors, []);
    return { r, sweeps, words };
  } finally { await context.close(); }
}

test('on the page: the default workload, borne out by the run', async () => {
  const { r, sweeps, words } = await workloadOf('/');
  const s = r.summary;
  // 200 requests of 4,096 prompt tokens each: the run's own counts.
  assert.equal(s.requests, 200);
  assert.equal(s.prompt_tokens, 200 * 4096);
  // 8 shared 2,048-token prefixes: on one replica every request but the first of each prefix
  // finds its prefix, (200 - 8) x 2,048 tokens of 819,200.
  const one = sweeps.round_robin.find((q) => q.instances === 1);
  assert.equal(one.hit_rate_tokens, ((200 - 8) * 2048) / (200 * 4096));
  assert.equal(words, 'The workload: 200 requests at 6 per second, each a 4,096-token prompt that opens with one of 8 shared 2,048-token prefixes, all equally popular.');
});

test('on the page: the conversation trace, in the trace file\'s own numbers', async () => {
  const { words } = await workloadOf('/?trace=conversation_trace.jsonl');
  const lines = readFileSync(path.join(ROOT, 'data/mooncake/conversation_trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const tokens = lines.reduce((n, x) => n + x.input_length, 0);
  const span = (lines.at(-1).timestamp - lines[0].timestamp) / 1000;
  const n = (x) => Math.round(x).toLocaleString('en-US');
  assert.equal(words, `The workload: the Mooncake trace conversation_trace.jsonl (anonymised requests to Kimi), ${n(lines.length)} requests at ${(lines.length / span).toFixed(1)} per second, ${n(tokens / lines.length)} prompt tokens each on average.`);
});

test('on the page: sessions, borne out by the run\'s request count', async () => {
  const { r, words } = await workloadOf('/?workload=sessions&num_sessions=10&turns=4');
  assert.equal(r.summary.requests, 10 * 4);
  assert.match(words, /^The workload: 10 tasks of 4 turns, 1 started per second; each turn resends the conversation so far after a shared 2,048-token system prompt and adds 512 tokens\.$/);
});

// tests/e2e/story.test.mjs: the page's computed sentences (www/js/story.js, www/js/predict.js) on
// hand-built reports, in Node (no browser). Each expectation is worked out by hand in a comment.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trendWords, heroTakeaway, busiestWords, whyRatesDiffer, wasNow } from '../../www/js/story.js';
import { predictedMisses, predictedTokenHitRate, modelApplies } from '../../www/js/predict.js';

const base = { workload: 'pool', num_requests: 200, num_prefixes: 8, prefix_len: 2048, input_len: 4096, block_size: 512, kv_blocks: null, overlap_weight: 1, prefix_popularity: 'uniform' };
const per = (counts) => counts.map((requests, index) => ({ index, requests }));

test('the simple model: misses = prefixes x replicas (round robin), = prefixes (locality), capped at the requests', () => {
  assert.equal(predictedMisses(base, 'round_robin', 4), 32);
  assert.equal(predictedMisses(base, 'round_robin', 25), 200); // 8 x 25 = 200
  assert.equal(predictedMisses(base, 'round_robin', 30), 200); // 240 capped at 200 requests
  assert.equal(predictedMisses(base, 'prefix_aware', 30), 8);
  // A hit reuses 4 full blocks of 512 = 2048 of 4096 tokens; 168 of 200 requests hit at 4 replicas.
  assert.equal(predictedTokenHitRate(base, 'round_robin', 4), 0.5 * (168 / 200));
  assert.equal(modelApplies(base, false), true);
  assert.equal(modelApplies({ ...base, kv_blocks: 40 }, false), false, 'evicting caches: no model line');
  assert.equal(modelApplies(base, true), false, 'traces: no model line');
});

test('trend words only say what survives rounding', () => {
  const pts = (ys) => ys.map((hit_rate_tokens, i) => ({ instances: i + 1, hit_rate_tokens }));
  assert.equal(trendWords(pts([0.48, 0.40, 0.24])), 'falls from 48% to 24%');
  assert.equal(trendWords(pts([0.480, 0.482, 0.479])), 'stays near 48%');
  // 7.4% -> 7.1% with a 10% bump between: the ends round alike, so no "falls from 7% to 7%".
  assert.equal(trendWords(pts([0.074, 0.10, 0.071])), 'moves between 7% and 10%');
  // A spread under 2 points stays.
  assert.equal(trendWords(pts([0.074, 0.09, 0.071])), 'stays near 8%');
});

test('the takeaway states the measured and predicted misses, with the cap past the requests', () => {
  const report = (instances, hitReq, tok) => ({
    summary: { admitted: 200, hit_requests: hitReq, hit_rate_tokens: tok, requests: 200, ttft_ms_p99: 150 },
    per_instance: per(Array(instances).fill(200 / instances)), findings: [],
  });
  const four = heroTakeaway({ config: { ...base, instances: 4, routing: 'round_robin' }, traced: false, report: report(4, 168, 0.42), sweeps: {} });
  assert.equal(four.lead, 'On 4 replicas, round robin serves 42.0% of prompt tokens from cache.');
  assert.ok(four.detail.startsWith('32 of 200 requests found no cached prefix; the model predicts 8 prefixes × 4 replicas = 32.'), four.detail);
  const many = heroTakeaway({ config: { ...base, instances: 30, routing: 'round_robin' }, traced: false, report: report(30, 20, 0.05), sweeps: {} });
  assert.ok(many.detail.includes('8 prefixes × 30 replicas = 240, more than the 200 requests: every request a miss'), many.detail);
});

test('the busiest replica is a fact whenever it takes 1.5x an even share; prefix_aware says why', () => {
  // 7 replicas, 200 requests: 86 is 43% against 14%, whether or not a finding fired.
  const r = { summary: { requests: 200 }, per_instance: per([86, 38, 0, 38, 0, 38, 0]) };
  const words = busiestWords(r, base, 'prefix_aware');
  assert.ok(words.startsWith('The busiest replica, R0, took 43% of the requests (an even share is 14%).'), words);
  assert.ok(words.includes('with 8 equally popular prefixes on 7 replicas, some replicas hold several prefixes and 3 hold none'), words);
  const hot = busiestWords({ summary: { requests: 600 }, per_instance: per([521, 20, 20, 19, 10, 10]) }, { ...base, prefix_popularity: 'hot:0.85' }, 'prefix_aware');
  assert.ok(hot.includes('one prefix carries 85% of the traffic: its replica takes it all'), hot);
  // An even split (round robin) says nothing.
  assert.equal(busiestWords({ summary: { requests: 200 }, per_instance: per([50, 50, 50, 50]) }, base, 'round_robin'), '');
});

test('kv\'s share of the locality gain is computed on the displayed values', () => {
  // Displayed: round robin 36.0%, prefix_aware 48.0%, kv 45.0% -> kv keeps (45 - 36) / 12 = 75% of 12.0 points.
  const sweeps = { round_robin: [{ instances: 8, hit_rate_tokens: 0.36 }], prefix_aware: [{ instances: 8, hit_rate_tokens: 0.48 }] };
  const t = heroTakeaway({ config: { ...base, instances: 8, routing: 'kv' }, traced: false,
    report: { summary: { admitted: 200, hit_requests: 180, hit_rate_tokens: 0.45, requests: 200 }, per_instance: per(Array(8).fill(25)), findings: [] }, sweeps });
  assert.ok(t.detail.includes('here it keeps 75% of the 12.0 points prefix_aware gains over round robin'), t.detail);
  // A gap under 2 displayed points: no such sentence.
  const close = { round_robin: [{ instances: 8, hit_rate_tokens: 0.876 }], prefix_aware: [{ instances: 8, hit_rate_tokens: 0.891 }] };
  const u = heroTakeaway({ config: { ...base, instances: 8, routing: 'kv' }, traced: false,
    report: { summary: { admitted: 200, hit_requests: 180, hit_rate_tokens: 0.89, requests: 200 }, per_instance: per(Array(8).fill(25)), findings: [] }, sweeps: close });
  assert.doesNotMatch(u.detail, /keeps/);
});

test('why the two hit rates differ is specific to the workload, and silent within 20 points', () => {
  const pool = whyRatesDiffer({ hit_rate_requests: 0.84, hit_rate_tokens: 0.42 }, base, false);
  assert.ok(pool.includes('each prompt shares at most its prefix (2,048 of 4,096 tokens, 50%)'), pool);
  const sessions = whyRatesDiffer({ hit_rate_requests: 0.997, hit_rate_tokens: 0.617 }, { workload: 'sessions', system_prompt_len: 4096 }, false);
  assert.ok(sessions.startsWith('99.7% of requests reuse at least one cached block, but only 61.7% of prompt tokens come from cache: every turn finds the shared 4,096-token system prompt'), sessions);
  assert.equal(whyRatesDiffer({ hit_rate_requests: 0.6, hit_rate_tokens: 0.45 }, base, false), '');
  assert.equal(wasNow(0.42, 0.345, (x) => `${(100 * x).toFixed(1)}%`), 'was 42.0% → now 34.5%');
  assert.equal(wasNow(0.42, 0.42, (x) => `${(100 * x).toFixed(1)}%`), 'unchanged at 42.0%');
});

// tests/e2e/story.test.mjs: the page's computed sentences (www/js/story.js, www/js/predict.js) on
// hand-built reports, in Node (no browser), each expectation worked out by hand in a comment; then,
// in real Chromium, the hero's sentences against the figure on screen (read from the chart) and the
// run's report, and the layout around them (cards, jumps under the sticky status line).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT, nextFrames } from './harness.mjs';
import { trendWords, heroTakeaway, busiestWords, whyRatesDiffer, wasNow, changeWords, tradeoffWords, heroCaption, durationText,
  crowdedWords, bothWords } from '../../www/js/story.js';
import { medianJump } from '../../www/js/story-speed.js';
import { expectedRepeats, predictedMisses, predictedTokenHitRate, prefixShares, modelApplies } from '../../www/js/predict.js';
import { formatValue } from '../../www/js/controls.js';

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

test('mid-sweep, the trend sentence covers only the counts both curves have reached', () => {
  const pt = (instances, hit_rate_tokens) => ({ instances, hit_rate_tokens });
  // Round robin has reached 16, prefix_aware only 12 (its 16 not run yet): "From 1 to 12".
  const sweeps = { round_robin: [pt(1, 0.48), pt(4, 0.42), pt(12, 0.28), pt(16, 0.24)], prefix_aware: [pt(1, 0.48), pt(4, 0.48), pt(12, 0.48)] };
  const report = { summary: { admitted: 200, hit_requests: 168, hit_rate_tokens: 0.42, requests: 200 }, per_instance: per([50, 50, 50, 50]), findings: [] };
  const t = heroTakeaway({ config: { ...base, instances: 4, routing: 'round_robin' }, traced: false, report, sweeps });
  assert.ok(t.detail.endsWith('From 1 to 12 replicas, round robin falls from 48% to 28%; prefix_aware stays near 48%.'), t.detail);
  // Both at 16: the whole span.
  const done = heroTakeaway({ config: { ...base, instances: 4, routing: 'round_robin' }, traced: false, report,
    sweeps: { ...sweeps, prefix_aware: [...sweeps.prefix_aware, pt(16, 0.48)] } });
  assert.ok(done.detail.endsWith('From 1 to 16 replicas, round robin falls from 48% to 24%; prefix_aware stays near 48%.'), done.detail);
});

test('a policy blind to the caches opens the detail with its own misses beside round robin\'s, before any other policy', () => {
  // random on 8 replicas, sglang (kept from before) drawn beside it: the detail used to open with sglang.
  const pt = (instances, hit_requests, extra = {}) => ({ instances, admitted: 200, hit_requests, hit_rate_tokens: 0.35, ttft_ms_p50: 76, ttft_ms_p99: 150, ...extra });
  const sweeps = { round_robin: [pt(8, 138)], prefix_aware: [pt(8, 192, { hit_rate_tokens: 0.48, ttft_ms_p99: 184 })], sglang: [pt(8, 192, { hit_rate_tokens: 0.48, ttft_ms_p99: 137 })] };
  const report = { summary: { admitted: 200, hit_requests: 140, hit_rate_tokens: 0.35, requests: 200, ttft_ms_p50: 77, ttft_ms_p99: 153 }, per_instance: per(Array(8).fill(25)), findings: [] };
  for (const policy of ['random', 'least_loaded', 'p2c']) {
    const t = heroTakeaway({ config: { ...base, instances: 8, routing: policy }, traced: false, report, sweeps, drawn: ['round_robin', 'prefix_aware', policy, 'sglang'] });
    assert.ok(t.detail.startsWith(`${policy} picks replicas blind to the caches, as round robin does: 60 of 200 requests found no cached prefix (round robin: 62).`), t.detail);
    assert.equal(t.detail.split('found no cached prefix').length, 2, `the count is said once: ${t.detail}`);
  }
  // kv looks at the caches: no such sentence.
  const kv = heroTakeaway({ config: { ...base, instances: 8, routing: 'kv' }, traced: false, report, sweeps });
  assert.doesNotMatch(kv.detail, /blind to the caches/);
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

test('the busiest replica is a fact whenever it takes 1.5x an even share; prefix_aware says why, with the run\'s own counts', () => {
  // 7 replicas, 200 requests: 86 is 43% against 14%, whether or not a finding fired.
  const r = { summary: { requests: 200 }, per_instance: per([86, 38, 0, 38, 0, 38, 0]) };
  const words = busiestWords(r, base, 'prefix_aware');
  assert.ok(words.startsWith('The busiest replica, R0, took 43% of the requests (an even share is 14%).'), words);
  // 8 equally popular prefixes bring 1/8 = 12.5% of the requests each: 43% is 0.43 x 8 = 3.44, about
  // 3 prefixes' worth, where 8 prefixes over 7 replicas is 1.14, 1.1 each; 3 replicas got no request.
  assert.ok(words.endsWith(' prefix_aware sends each prompt to the home replica its first block hashes to, and the hash spreads the 8 equally popular prefixes'
    + ' (about 12.5% of the requests each) unevenly: R0\'s 43% is about 3 prefixes\' worth, where an even split is 1.1 per replica, and 3 replicas got none.'
    // 200 / 7 = 28.6 requests per replica, under the findings' sample rule: why no warning beside it.
    + ' No ⚠ uneven-load warning shows for it: that warning needs 30 requests per replica on average, and here there are 28.6.'), words);
  // With the warning shown, or with 30 or more per replica, that sentence is not said.
  assert.doesNotMatch(busiestWords({ ...r, findings: [{ kind: 'load_uneven', replicas: [0] }] }, base, 'prefix_aware'), /uneven-load warning/);
  assert.doesNotMatch(busiestWords({ summary: { requests: 210 }, per_instance: per([90, 40, 0, 40, 0, 40, 0]) }, base, 'prefix_aware'), /uneven-load warning/);
  assert.doesNotMatch(words, /several prefixes/);
  // The default hero run under prefix_aware (4 replicas: 86, 24, 45, 45): 3 prefixes' worth against 2 each.
  const four = busiestWords({ summary: { requests: 200 }, per_instance: per([86, 24, 45, 45]) }, base, 'prefix_aware');
  assert.ok(four.includes('R0\'s 43% is about 3 prefixes\' worth, where an even split is 2 per replica.'), four);
  // Fewer prefixes than replicas: 1 prefix keeps 1 of 4 busy.
  const one = busiestWords({ summary: { requests: 200 }, per_instance: per([200, 0, 0, 0]) }, { ...base, num_prefixes: 1 }, 'prefix_aware');
  assert.ok(one.endsWith('hashes to: 1 prefix can keep at most 1 of the 4 replicas busy, and 3 replicas got none.'), one);
  // A trace has no synthetic prefix pool: no "equally popular prefixes", but where every first block went.
  const trace = busiestWords({ summary: { requests: 12031 }, per_instance: per([0, 0, 12031, 0]) }, base, 'prefix_aware', true);
  assert.ok(trace.endsWith('first block hashes to: here every prompt\'s first block hashes to R2.'), trace);
  assert.doesNotMatch(trace, /equally popular/);
  const hot = busiestWords({ summary: { requests: 600 }, per_instance: per([521, 20, 20, 19, 10, 10]) }, { ...base, prefix_popularity: 'hot:0.85' }, 'prefix_aware');
  assert.ok(hot.includes('one prefix carries 85% of the traffic: its replica takes it all'), hot);
  // An even split (round robin) says nothing.
  assert.equal(busiestWords({ summary: { requests: 200 }, per_instance: per([50, 50, 50, 50]) }, base, 'round_robin'), '');
});

test('kv\'s share of the locality gain is computed on the displayed values', () => {
  // Displayed: round robin 36.0%, prefix_aware 48.0%, kv 45.0% -> kv gets 45 - 36 = 9.0 of the 12.0 points.
  const sweeps = { round_robin: [{ instances: 8, hit_rate_tokens: 0.36 }], prefix_aware: [{ instances: 8, hit_rate_tokens: 0.48 }] };
  const t = heroTakeaway({ config: { ...base, instances: 8, routing: 'kv' }, traced: false,
    report: { summary: { admitted: 200, hit_requests: 180, hit_rate_tokens: 0.45, requests: 200 }, per_instance: per(Array(8).fill(25)), findings: [] }, sweeps });
  assert.ok(t.detail.includes('kv weighs a replica\'s missed blocks against its load (overlap weight 1), so it keeps 9.0 of the 12.0 percentage points prefix_aware gains over round robin.'), t.detail);
  // Below round robin: none; above prefix_aware: all.
  const kvAt = (hit) => heroTakeaway({ config: { ...base, instances: 8, routing: 'kv' }, traced: false,
    report: { summary: { admitted: 200, hit_requests: 180, hit_rate_tokens: hit, requests: 200 }, per_instance: per(Array(8).fill(25)), findings: [] }, sweeps }).detail;
  assert.ok(kvAt(0.30).includes('so it keeps none of the 12.0 percentage points prefix_aware gains over round robin.'), kvAt(0.30));
  assert.ok(kvAt(0.50).includes('so it keeps all of the 12.0 percentage points prefix_aware gains over round robin.'), kvAt(0.50));
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

test('"was X → now Y" names the settings of the run it compares with, from the two configs', () => {
  const params = [
    { name: 'instances', label: 'Replicas', kind: 'int', unit: 'replicas', default: 4 },
    { name: 'routing', label: 'Routing policy', kind: 'choice', unit: '', default: 'kv' },
    { name: 'prefill_instances', label: 'Prefill replicas', kind: 'optional_int', unit: 'replicas', default: null },
    { name: 'num_requests', label: 'Requests', kind: 'int', unit: 'req', default: 200 },
    { name: 'kv_blocks', label: 'Cache per replica', kind: 'optional_int', unit: 'blocks', default: null },
  ];
  const run = (config, source = 'synthetic') => ({ config, source });
  const words = (a, b) => changeWords(a, b, params, formatValue);
  assert.equal(words(run({ instances: 256 }), run({ instances: 5 })), 'at 256 replicas');
  assert.equal(words(run({ instances: 1 }), run({ instances: 5 })), 'at 1 replica');
  // A key the report leaves out holds its default (kv), so only the policy differs.
  assert.equal(words(run({ routing: 'round_robin' }), run({})), 'with round_robin');
  assert.equal(words(run({ instances: 8, routing: 'round_robin' }), run({})), 'with 8 replicas, round_robin');
  assert.equal(words(run({ instances: 8, routing: 'round_robin', num_requests: 400 }), run({})), 'with 3 settings different');
  assert.equal(words(run({ num_requests: 400 }), run({})), 'with 400 requests');
  assert.equal(words(run({ kv_blocks: 64 }), run({})), 'with cache per replica 64 blocks');
  // A disaggregated fleet's step moves both counts; the prefill pool names it.
  assert.equal(words(run({ instances: 5, prefill_instances: 2 }), run({ instances: 6, prefill_instances: 3 })), 'at 2 prefill replicas');
  assert.equal(words(run({}), run({}, 'conversation')), 'with the synthetic workload');
  assert.equal(words(run({ instances: 4 }), run({})), '', 'the same settings: nothing to name');
  // A mixed fleet sets Replicas and Engine: the words name the GPUs the earlier run had, never
  // "with mixed fleet" (the label of a setting the earlier run left empty).
  const fleetParams = [...params,
    { name: 'engine', label: 'Engine', kind: 'choice', unit: '', default: 'llama3-8b-h100' },
    { name: 'fleet', label: 'Mixed fleet', kind: 'text', unit: '', default: '' }];
  const fleetWords = (x, y) => changeWords(x, y, fleetParams, formatValue);
  const mixed = { fleet: '2:llama3-8b-h100,2:llama3-8b-mi300x', instances: 4 };
  assert.equal(fleetWords(run({}), run(mixed)), 'with 4 × llama3-8b-h100', 'set on 4 H100s: they are what it was');
  assert.equal(fleetWords(run({ instances: 8, engine: 'llama3-8b-b200' }), run(mixed)), 'with 8 × llama3-8b-b200');
  assert.equal(fleetWords(run(mixed), run({ fleet: '4:llama3-8b-h100,2:llama3-8b-b200', instances: 6 })),
    'with 2 × llama3-8b-h100 + 2 × llama3-8b-mi300x', 'changed: the groups before');
  assert.equal(fleetWords(run(mixed), run({ instances: 4 })), 'with 2 × llama3-8b-h100 + 2 × llama3-8b-mi300x', 'cleared');
  assert.equal(fleetWords(run({ ...mixed, routing: 'round_robin' }), run(mixed)), 'with round_robin', 'the same fleet is not named');
  const pc = (x) => `${(100 * x).toFixed(1)}%`;
  assert.equal(wasNow(0, 0.403, pc, 'at 256 replicas'), 'was 0.0% at 256 replicas → now 40.3%');
  assert.equal(wasNow(0.42, 0.42, pc, 'at 256 replicas'), 'same as at 256 replicas');
});

test('a lead of under 2 points is not "the most hits": the sentence names both hit rates', () => {
  const pt = (instances, hit_rate_tokens, ttft_ms_p50, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p50, ttft_ms_p99 });
  // The split scenario's shape: prefix_aware 12.5% against kv's 12.2% (0.3 points), its p99 50 times kv's.
  const near = { round_robin: [pt(8, 0.10, 400, 900)], prefix_aware: [pt(8, 0.125, 9000, 45000)], kv: [pt(8, 0.122, 300, 800)] };
  const words = tradeoffWords(near, ['round_robin', 'prefix_aware', 'kv'], 8, 'kv');
  assert.ok(words.startsWith('Here prefix_aware\'s hits, barely more than kv\'s (12.5% against 12.2%), come with far slower answers: '), words);
  assert.doesNotMatch(words, /the most hits/i);
  // 1.9 points is near; 2.0 points is a lead ("the most hits").
  const lead = (hit) => tradeoffWords({ ...near, prefix_aware: [pt(8, hit, 9000, 45000)] }, ['round_robin', 'prefix_aware', 'kv'], 8, 'kv');
  assert.match(lead(0.141), /^Here prefix_aware's hits, barely more than kv's \(14\.1% against 12\.2%\)/);
  assert.match(lead(0.142), /^Here the most hits come with far slower answers: /);
  // Not faster, near: the same subject.
  assert.equal(tradeoffWords({ round_robin: [pt(4, 0.42, 75.9, 143.2)], prefix_aware: [pt(4, 0.43, 76.5, 188.4)] }, ['round_robin', 'prefix_aware'], 4),
    'prefix_aware\'s hits, barely more than round robin\'s (43.0% against 42.0%), do not bring faster answers here: prefix_aware\'s first-token time is 77 ms median and 188 ms p99, round robin\'s 76 ms and 143 ms.');
});

test('what the hits buy: a median first-token time 10% or more under round robin\'s is said, never beside "not faster", and every speed sentence gives both the median and the p99', () => {
  const pt = (instances, hit_rate_tokens, ttft_ms_p50, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p50, ttft_ms_p99 });
  // The CLI's defaults: at 4, p50 76.5 (prefix_aware) against 75.9 ms, p99 188 against 143; at 16,
  // p50 75.3 / 71.5 (kv) against 137 ms, p99 139 / 137 against 141.
  const sweeps = {
    round_robin: [pt(4, 0.42, 75.9, 143.2), pt(16, 0.242, 137.1, 141)],
    prefix_aware: [pt(4, 0.48, 76.5, 188.4), pt(16, 0.48, 75.3, 139)],
    kv: [pt(4, 0.425, 76.3, 144), pt(16, 0.35, 71.5, 137)],
  };
  const two = ['round_robin', 'prefix_aware'];
  // 75.3 <= 0.9 x 137.1 = 123.4: prefix_aware, with the most hits, buys faster answers.
  // Its p99, 139 ms, is not 10% under round robin's 141 ms (0.9 x 141 = 126.9): "faster typical
  // answers", the median's claim alone, with both statistics of each.
  const at16 = 'More hits than round robin, faster typical answers: prefix_aware\'s first-token time is 75 ms median and 139 ms p99, round robin\'s 137 ms and 141 ms.';
  assert.equal(tradeoffWords(sweeps, two, 16), at16);
  // kv chosen: 35.0% > 24.2% and 71.5 <= 123.4, so named after the policy with the most hits.
  assert.equal(tradeoffWords(sweeps, [...two, 'kv'], 16, 'kv'),
    'More hits than round robin, faster typical answers: prefix_aware\'s first-token time is 75 ms median and 139 ms p99, kv\'s 72 ms and 137 ms, round robin\'s 137 ms and 141 ms.');
  // p99s 10% or more under round robin's (126 and 120 ms against 141; 0.9 x 141 = 126.9): "faster answers".
  assert.equal(tradeoffWords({ ...sweeps, prefix_aware: [pt(16, 0.48, 75.3, 126)], kv: [pt(16, 0.35, 71.5, 120)] }, [...two, 'kv'], 16, 'kv'),
    'More hits than round robin, faster answers: prefix_aware\'s first-token time is 75 ms median and 126 ms p99, kv\'s 72 ms and 120 ms, round robin\'s 137 ms and 141 ms.');
  // A p99 a little slower than round robin's (145 > 141, under 1.1 x 137 = 150.7, so no cost): the median's claim alone, "typical".
  assert.equal(tradeoffWords({ ...sweeps, prefix_aware: [pt(16, 0.48, 75.3, 145)] }, [...two, 'kv'], 16),
    'More hits than round robin, faster typical answers: prefix_aware\'s first-token time is 75 ms median and 145 ms p99, round robin\'s 137 ms and 141 ms.');
  // The same p99 as written (137.2 and 136.9 ms both "137 ms", as at 256 replicas): only the median is faster, "typical".
  assert.equal(tradeoffWords({ ...sweeps, prefix_aware: [pt(16, 0.48, 75.3, 136.9)], round_robin: [pt(16, 0.242, 137.1, 137.2)] }, two, 16),
    'More hits than round robin, faster typical answers: prefix_aware\'s first-token time is 75 ms median and 137 ms p99, round robin\'s 137 ms and 137 ms.');
  // At 4, 76.5 > 0.9 x 75.9 = 68.3: no "faster", only the p99 cost (188.4 >= 1.1 x 143.2 = 157.5).
  const at4 = tradeoffWords(sweeps, two, 4);
  assert.equal(at4, 'The most hits do not bring faster answers here: prefix_aware\'s first-token time is 77 ms median and 188 ms p99, round robin\'s 76 ms and 143 ms.');
  // 3.4 times the p99 grows the words, and says the factor of the p99 it is.
  assert.equal(tradeoffWords({ ...sweeps, prefix_aware: [pt(4, 0.48, 80, 486)] }, two, 4),
    'Here the most hits come with much slower answers: prefix_aware\'s first-token time is 80 ms median and 486 ms p99, round robin\'s 76 ms and 143 ms; that p99 is 3.4 times round robin\'s.');
  // A median 10% or more under the fastest p99's policy (kv, not round robin): "a slower p99", never "not faster answers".
  const kvFast = { round_robin: [pt(4, 0.42, 75.9, 160)], prefix_aware: [pt(4, 0.48, 70, 188.4)], kv: [pt(4, 0.43, 90, 143.2)] };
  assert.equal(tradeoffWords(kvFast, [...two, 'kv'], 4),
    'Here the most hits come with a slower p99: prefix_aware\'s first-token time is 70 ms median and 188 ms p99, kv\'s 90 ms and 143 ms.');
  // Both at once (p50 60 <= 68.3 and p99 188.4 >= 157.5): one sentence, the median's gain and the p99's cost.
  const both = { ...sweeps, prefix_aware: [pt(4, 0.48, 60, 188.4)] };
  assert.equal(tradeoffWords(both, two, 4),
    'More hits than round robin, faster typical answers: prefix_aware\'s median first-token time is 60 ms, round robin\'s 76 ms; but its p99 first-token time is 188 ms, round robin\'s 143 ms.');
  assert.doesNotMatch(tradeoffWords(both, two, 4), /not faster/);
  // 9% under (69.1 > 68.3) is not "faster"; nor is a policy with no more hits than round robin.
  assert.equal(tradeoffWords({ ...sweeps, prefix_aware: [pt(4, 0.48, 69.1, 150)] }, two, 4), '');
  assert.equal(tradeoffWords({ ...sweeps, prefix_aware: [pt(4, 0.42, 40, 150)] }, two, 4), '');
  // In the detail, after the misses, at 16 replicas under round robin; the lead gives only the hit rates.
  const report = { summary: { admitted: 200, hit_requests: 97, hit_rate_tokens: 0.242, requests: 200, ttft_ms_p50: 137.1, ttft_ms_p99: 141 }, per_instance: per(Array(16).fill(12.5)), findings: [] };
  const t = heroTakeaway({ config: { ...base, instances: 16, routing: 'round_robin' }, traced: false, report, sweeps });
  assert.equal(t.lead, 'On 16 replicas, round robin serves 24.2% of prompt tokens from cache (prefix_aware 48.0%).');
  assert.ok(t.detail.includes(`the model predicts 8 prefixes × 16 replicas = 128. Each replica starts cold and must warm, by itself, every prefix it is sent. ${at16}`), t.detail);
});

test('64 replicas under round robin: when fewer miss than the capped model, the same sentence says why', () => {
  // 200 requests over 64 replicas: 200 / 64 = 3.1, about 3 each; 28 hit, so 172 missed, under the cap of 200.
  const report = (hits) => ({ summary: { admitted: 200, hit_requests: hits, hit_rate_tokens: hits / 400, requests: 200 }, per_instance: per(Array(64).fill(200 / 64)), findings: [] });
  const d = heroTakeaway({ config: { ...base, instances: 64, routing: 'round_robin' }, traced: false, report: report(28), sweeps: {} }).detail;
  assert.ok(d.startsWith('172 of 200 requests found no cached prefix; the model predicts 8 prefixes × 64 replicas = 512, more than the 200 requests: every request a miss.'
    + ' The 28 that hit were sent a prefix their replica had already been sent: with about 3 requests per replica (200 / 64), each drawing its prefix at random, about 26 such repeats are expected, and the model does not count them.'), d);
  // One hit: "was", and no "Fewer missed" beside "every request a miss" (a first-time reader read them as a contradiction).
  const one = heroTakeaway({ config: { ...base, instances: 64, routing: 'round_robin' }, traced: false, report: report(1), sweeps: {} }).detail;
  assert.ok(one.includes('The 1 that hit was sent a prefix their replica had already been sent'), one);
  assert.doesNotMatch(d, /Fewer missed/);
  // Every request missed: the cap was right, nothing to explain.
  const all = heroTakeaway({ config: { ...base, instances: 64, routing: 'round_robin' }, traced: false, report: report(0), sweeps: {} }).detail;
  assert.ok(all.startsWith('200 of 200 requests found no cached prefix; the model predicts 8 prefixes × 64 replicas = 512, more than the 200 requests: every request a miss.'), all);
});

test('the load warning gives the busiest share once: the lead and detail do not repeat it, and no sentence is said twice', () => {
  // prefix_aware at 4 replicas (86, 24, 45, 45 of 200) with the Rust finding on R0: its warning says 43%.
  const report = { summary: { admitted: 200, hit_requests: 192, hit_rate_tokens: 0.48, requests: 200, ttft_ms_p50: 76.5, ttft_ms_p99: 188.4 },
    per_instance: per([86, 24, 45, 45]), findings: [{ kind: 'load_uneven', replicas: [0] }] };
  const pt = (instances, hit_rate_tokens, ttft_ms_p50, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p50, ttft_ms_p99 });
  const sweeps = { round_robin: [pt(1, 0.48, 75, 140), pt(4, 0.42, 75.9, 143.2)], prefix_aware: [pt(1, 0.48, 75, 140), pt(4, 0.48, 76.5, 188.4)] };
  const t = heroTakeaway({ config: { ...base, instances: 4, routing: 'prefix_aware' }, traced: false, report, sweeps });
  assert.equal(t.lead, 'On 4 replicas, prefix_aware serves 48.0% of prompt tokens from cache (round robin 42.0%).');
  assert.doesNotMatch(`${t.lead} ${t.detail}`, /43%|busiest replica/);
  // 0.43 x 8 = 3.44: about 3 prefixes' worth, against 8 / 4 = 2 each.
  assert.ok(t.detail.includes('prefix_aware sends each prompt to the home replica its first block hashes to, and the hash spreads the 8 equally popular prefixes'
    + ' (about 12.5% of the requests each) unevenly: R0 took about 3 prefixes\' worth, where an even split is 2 per replica.'), t.detail);
  const sentences = `${t.lead} ${t.detail}`.split(/(?<=\.) (?=[A-Z0-9])/);
  assert.equal(new Set(sentences).size, sentences.length, sentences.join('\n'));
  assert.equal((`${t.lead} ${t.detail}`.match(/From 1 to 4 replicas/g) || []).length, 1);
  // Without the lead's share (no finding, not crowded), the detail keeps it.
  const quiet = heroTakeaway({ config: { ...base, instances: 4, routing: 'prefix_aware' }, traced: false, report: { ...report, findings: [] }, sweeps });
  assert.ok(quiet.detail.includes('The busiest replica, R0, took 43% of the requests (an even share is 25%).'), quiet.detail);
});

test('the trade-off: the hit-rate winner\'s slower p99 is said only when the swept points show it', () => {
  const pt = (instances, hit_rate_tokens, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p99 });
  // 4 replicas: prefix_aware 48.0% at 188 ms against round robin 42.0% at 143 ms (188 >= 1.1 x 143).
  const sweeps = { round_robin: [pt(4, 0.42, 143.2), pt(16, 0.243, 141)], prefix_aware: [pt(4, 0.48, 188.4), pt(16, 0.48, 139)] };
  const said = 'The most hits do not bring faster answers here: prefix_aware\'s p99 first-token time is 188 ms, round robin\'s 143 ms.';
  assert.equal(tradeoffWords(sweeps, ['round_robin', 'prefix_aware'], 4), said);
  const report = (tok) => ({ summary: { admitted: 200, hit_requests: 168, hit_rate_tokens: tok, requests: 200, ttft_ms_p99: 143.2 }, per_instance: per([50, 50, 50, 50]), findings: [] });
  const at4 = heroTakeaway({ config: { ...base, instances: 4, routing: 'round_robin' }, traced: false, report: report(0.42), sweeps });
  assert.equal(at4.lead, 'On 4 replicas, round robin serves 42.0% of prompt tokens from cache (prefix_aware 48.0%).');
  assert.ok(at4.detail.includes(`every prefix it is sent. ${said}`), at4.detail);
  // 16 replicas: prefix_aware still has the most hits, and the faster p99 (139 ms against 141 ms): no sentence.
  const at16 = heroTakeaway({ config: { ...base, instances: 16, routing: 'round_robin' }, traced: false, report: report(0.243), sweeps });
  assert.equal(at16.lead, 'On 16 replicas, round robin serves 24.3% of prompt tokens from cache (prefix_aware 48.0%).');
  assert.doesNotMatch(at16.detail, /p99|faster/);
  // Under the stated threshold (150 < 1.1 x 143 = 157.3 ms), tied on hits, or a lone policy: none.
  assert.equal(tradeoffWords({ round_robin: [pt(4, 0.42, 143)], prefix_aware: [pt(4, 0.48, 150)] }, ['round_robin', 'prefix_aware'], 4), '');
  assert.equal(tradeoffWords({ round_robin: [pt(4, 0.48, 143)], prefix_aware: [pt(4, 0.4804, 188)] }, ['round_robin', 'prefix_aware'], 4), '');
  assert.equal(tradeoffWords({ prefix_aware: [pt(4, 0.48, 188)] }, ['round_robin', 'prefix_aware'], 4), '');
  // The winner is whichever has the most hits: kv at 30 ms slower than prefix_aware and round robin.
  const kv = { ...sweeps, kv: [pt(4, 0.5, 250)] };
  assert.match(tradeoffWords(kv, ['round_robin', 'prefix_aware', 'kv'], 4), /kv's p99 first-token time is 250 ms, round robin's 143 ms/);
});

test('the trade-off\'s words grow with the ratio, and its times read as the numbers beside it do', () => {
  const pt = (instances, hit_rate_tokens, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p99 });
  const two = (pa, rr) => tradeoffWords({ round_robin: [pt(4, 0.196, rr)], prefix_aware: [pt(4, 0.373, pa)] }, ['round_robin', 'prefix_aware'], 4);
  // 486 / 143 = 3.40: "3.4 times".
  assert.equal(two(486, 143), 'Here the most hits come with much slower answers: prefix_aware\'s p99 first-token time is 486 ms, 3.4 times round robin\'s 143 ms.');
  // The conversation trace at 4 replicas: 2,128,668 ms / 3,835.9 ms = 554.9, two significant figures 550;
  // 2,128.668 s is 35.48 min, in minutes to a tenth as format.js's seconds() writes from 120 s ("6.5 min");
  // 3.8359 s with two decimals as the hero's TTFT figure.
  assert.equal(two(2128668.3, 3835.9), 'Here the most hits come with far slower answers: prefix_aware\'s p99 first-token time is 35.5 min, about 550 times round robin\'s 3.84 s.');
  // 1,999 / 1,000 = 2.0 less a hair: still "not faster".
  assert.match(two(1999, 1000), /^The most hits do not bring faster answers here: prefix_aware's p99 first-token time is 2.00 s, round robin's 1.00 s\.$/);
  assert.equal(durationText(7.46), '7.5 ms');
  assert.equal(durationText(143.1), '143 ms');
  assert.equal(durationText(999.7), '1.00 s');
  assert.equal(durationText(20380.4), '20.38 s');
  // 1,183.87 s / 60 = 19.73 min; from 100 s to 120 s whole seconds; 120 s is 2.0 min; 5,000 s / 3,600 = 1.39 h.
  assert.equal(durationText(1183871.4), '19.7 min');
  assert.equal(durationText(110400), '110 s');
  assert.equal(durationText(120000), '2.0 min');
  assert.equal(durationText(5e6), '1.39 h');
  assert.equal(durationText(null), '–');
});

test('a policy that sends most requests to one replica is named with its share and the replica', () => {
  const rows = (counts) => counts.map((requests, index) => ({ index, requests }));
  const policies = ['round_robin', 'prefix_aware'];
  // 12,031 of 12,031 on R2: every request; round robin's 3,008 of 12,031 (25%) says nothing.
  assert.equal(crowdedWords({ round_robin: rows([3008, 3008, 3008, 3007]), prefix_aware: rows([0, 0, 12031, 0]) }, policies),
    'prefix_aware sends every request (100%) to one replica, R2.');
  // 178 of 200 = 89%; 100 of 200 = 50% is not "most".
  assert.equal(crowdedWords({ prefix_aware: rows([10, 178, 12]) }, policies), 'prefix_aware sends 89% of the requests to one replica, R1.');
  assert.equal(crowdedWords({ prefix_aware: rows([100, 50, 50]) }, policies), '');
  // 1,995 of 2,000 = 99.75%, shown to a tenth (99.8%) with the counts, never "100%".
  assert.equal(crowdedWords({ prefix_aware: rows([1995, 5]) }, policies), 'prefix_aware sends 99.8% of the requests (1,995 of 2,000) to one replica, R0.');
  // In the detail, after the trade-off: round robin on screen, prefix_aware's rows from its own full run.
  const pt = (instances, hit_rate_tokens, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p99 });
  const sweeps = { round_robin: [pt(4, 0.1955, 3835.9)], prefix_aware: [pt(4, 0.3733, 2128668.3)] };
  const report = { summary: { admitted: 12031, hit_requests: 12027, hit_rate_tokens: 0.1955, requests: 12031, ttft_ms_p99: 3835.9 }, per_instance: rows([3008, 3008, 3008, 3007]), findings: [] };
  const t = heroTakeaway({ config: { ...base, instances: 4, routing: 'round_robin' }, traced: true, report, sweeps, routed: { prefix_aware: rows([0, 0, 12031, 0]) } });
  assert.equal(t.lead, 'On 4 replicas, round robin serves 19.6% of prompt tokens from cache (prefix_aware 37.3%).');
  // The trade-off first; the miss count (no model on a trace) after the crowding.
  assert.ok(t.detail.startsWith('Here the most hits come with far slower answers:'
    + ' prefix_aware\'s p99 first-token time is 35.5 min, about 550 times round robin\'s 3.84 s. prefix_aware sends every request (100%) to one replica, R2.'
    + ' 4 of 12,031 requests found no cached prefix.'), t.detail);
});

test('a policy with the hits at round robin\'s speed is named only when the others trade one for the other', () => {
  const pt = (instances, hit_rate_tokens, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p99 });
  const drawn = ['round_robin', 'prefix_aware', 'sglang'];
  // The default hero at 4 replicas: round robin 42.0% at 143.1 ms; prefix_aware 48.0% at 187.7 ms
  // (>= 1.1 x 143.1 = 157.4); sglang 48.0% at 143.9 ms (< 157.4), as many hits: sglang alone has both.
  // 143.9 / 143.1 - 1 = 0.56%, within 1%. The hit rates are the lead's, so the sentence does not repeat them.
  const at4 = { round_robin: [pt(4, 0.42, 143.1)], prefix_aware: [pt(4, 0.48, 187.7)], sglang: [pt(4, 0.48, 143.9)] };
  const said = 'sglang, which weighs each replica\'s load as well as its cache, gets the hits at almost no cost in latency: as many as prefix_aware,'
    + ' with a p99 first-token time of 144 ms, within 1% of round robin\'s 143 ms (prefix_aware\'s is 188 ms).';
  assert.equal(bothWords(at4, drawn, 4), said);
  const report = { summary: { admitted: 200, hit_requests: 192, hit_rate_tokens: 0.48, requests: 200, ttft_ms_p99: 143.9 }, per_instance: per([58, 46, 50, 46]), findings: [] };
  const t = heroTakeaway({ config: { ...base, instances: 4, routing: 'sglang' }, traced: false, report, sweeps: at4 });
  assert.equal(t.lead, 'On 4 replicas, sglang serves 48.0% of prompt tokens from cache (round robin 42.0%, prefix_aware 48.0%).');
  // In the detail; sglang's own p99 is the hero's TTFT figure beside it, so not repeated.
  assert.ok(t.detail.includes('sglang, which weighs each replica\'s load as well as its cache, gets the hits at almost no cost in latency: as many as prefix_aware,'
    + ' with a p99 first-token time within 1% of round robin\'s 143 ms (prefix_aware\'s is 188 ms).'), t.detail);
  // Two points short of the most hits (46.0 against 48.0) still counts; the trade-off sentence gave prefix_aware's p99.
  const near = { ...at4, aibrix: [pt(4, 0.46, 143.9)] };
  assert.equal(bothWords(near, ['round_robin', 'prefix_aware', 'aibrix'], 4, 'prefix_aware'),
    'aibrix, which weighs each replica\'s load as well as its cache, gets the hits at almost no cost in latency: within 2.0 points of prefix_aware,'
    + ' with a p99 first-token time of 144 ms, within 1% of round robin\'s 143 ms.');
  // 2.1 points short: not the hits.
  assert.equal(bothWords({ ...at4, aibrix: [pt(4, 0.459, 143.9)] }, ['round_robin', 'prefix_aware', 'aibrix'], 4), '');
  // 16 replicas: prefix_aware is fast too (138.9 ms), so two have both: no lesson to draw.
  const at16 = { round_robin: [pt(16, 0.243, 140.9)], prefix_aware: [pt(16, 0.48, 138.9)], sglang: [pt(16, 0.48, 137.1)] };
  assert.equal(bothWords(at16, drawn, 16), '');
  // Slower by 10% or more (157.5 >= 1.1 x 143.1 = 157.41): not round robin's speed.
  assert.equal(bothWords({ ...at4, sglang: [pt(4, 0.48, 157.5)] }, drawn, 4), '');
  // Two policies drawn: nothing to escape.
  assert.equal(bothWords(at4, ['round_robin', 'prefix_aware'], 4), '');
  // A policy that weighs no load is named without the clause (sticky's numbers at 4 replicas).
  assert.match(bothWords({ ...at4, sticky: [pt(4, 0.48, 143.9)] }, ['round_robin', 'prefix_aware', 'sticky'], 4), /^sticky gets the hits at almost no cost in latency: as many as/);
});

test('a router with the hits at round robin\'s speed that crowds one replica: "almost no cost in latency" only with why both hold', () => {
  const pt = (instances, hit_rate_tokens, ttft_ms_p99) => ({ instances, hit_rate_tokens, ttft_ms_p99 });
  const drawn = ['round_robin', 'prefix_aware', 'sglang'];
  // The conversation trace at 4 replicas: round robin 19.6% at 3,835.9 ms, prefix_aware 37.3% at 2,128,668 ms,
  // sglang 36.9% at 4,036.5 ms (< 1.1 x 3,835.9 = 4,219.5; 0.4 points short): sglang has both.
  const at4 = { round_robin: [pt(4, 0.1955, 3835.9)], prefix_aware: [pt(4, 0.3733, 2128668.3)], sglang: [pt(4, 0.3688, 4036.5)] };
  // Its run: R0 took 4,757 of 12,031 requests (39.5%, 1.58 x an even 25%) but 27,666,996 of 144,793,823
  // prompt tokens (19.1%); the most any replica carried is 40,221,644 (27.8%, under 1.5 x 25% = 37.5%).
  const rows = [[0, 4757, 27666996], [1, 2572, 40058035], [2, 2404, 40221644], [3, 2298, 36847148]]
    .map(([index, requests, prompt_tokens]) => ({ index, requests, prompt_tokens }));
  const head = 'sglang, which weighs each replica\'s load as well as its cache, gets the hits at almost no cost in latency: within 0.4 points of prefix_aware,';
  // The trade-off sentence gave prefix_aware's p99 and round robin's; the TTFT figure gives sglang's.
  const told = ['prefix_aware', 'round_robin', 'sglang'];
  // The run's load warning (the hero's findings) gives the 40%: not repeated.
  assert.equal(bothWords(at4, drawn, 4, told, { sglang: rows }, 'sglang'), `${head} with a p99 first-token time within 6% of round robin's.`
    + ' The uneven load in the warning is in requests, not in prompt tokens: R0\'s requests carry only 19.1% of them.');
  // No warning on screen: the share, the even share and the tokens, in one sentence.
  assert.equal(bothWords(at4, drawn, 4, told, { sglang: rows }), `${head} with a p99 first-token time within 6% of round robin's.`
    + ' Its busiest replica, R0, takes 40% of the requests (an even share is 25%), but its requests carry only 19.1% of the prompt tokens:'
    + ' the load is uneven in requests, not in prompt tokens.');
  // The tokens crowded too (R0 with 500,000,000 of 617,126,827 prompt tokens, 81%): no "almost no cost", the share first.
  const heavy = rows.map((x) => (x.index === 0 ? { ...x, prompt_tokens: 500000000 } : x));
  const h = bothWords(at4, drawn, 4, told, { sglang: heavy });
  assert.equal(h, 'sglang, which weighs each replica\'s load as well as its cache, gets the hits though its busiest replica, R0, takes 40% of the requests (an even share is 25%):'
    + ' within 0.4 points of prefix_aware, with a p99 first-token time within 6% of round robin\'s.');
  assert.equal(bothWords(at4, drawn, 4, told, { sglang: heavy }, 'sglang'), 'sglang, which weighs each replica\'s load as well as its cache, gets the hits despite the uneven load in the warning:'
    + ' within 0.4 points of prefix_aware, with a p99 first-token time within 6% of round robin\'s.');
  // Another policy's rows carry requests only (the worker's routed counts): no tokens, no "almost no cost".
  const bare = rows.map(({ index, requests }) => ({ index, requests }));
  assert.doesNotMatch(bothWords(at4, drawn, 4, told, { sglang: bare }), /almost no cost/);
  // Under 1.5 x an even share (4,000 of 11,274 requests, 35.5% < 37.5%): an even load, the plain sentence.
  const even = rows.map((x) => (x.index === 0 ? { ...x, requests: 4000 } : x));
  assert.equal(bothWords(at4, drawn, 4, told, { sglang: even }), `${head} with a p99 first-token time within 6% of round robin's.`);
  // Under an autoscaler the replicas came and went: no share is even, so none is named (as the hero's
  // per-replica words), and a replica is crowded above half the requests. R0 with 8,000 of 15,274
  // (52%) is; its 19.1% of the prompt tokens (the most any replica carried, 27.8%, under half) is not
  // called "only" anything.
  const scaled = rows.map((x) => (x.index === 0 ? { ...x, requests: 8000 } : x));
  assert.equal(bothWords(at4, drawn, 4, told, { sglang: scaled }, null, true), `${head} with a p99 first-token time within 6% of round robin's.`
    + ' Its busiest replica, R0, takes 52% of the requests, but its requests carry 19.1% of the prompt tokens:'
    + ' the load is uneven in requests, not in prompt tokens.');
  // R0's 39.5% is not above half: no crowding under an autoscaler.
  assert.equal(bothWords(at4, drawn, 4, told, { sglang: rows }, null, true), `${head} with a p99 first-token time within 6% of round robin's.`);
  const heavyScaled = scaled.map((x) => (x.index === 0 ? { ...x, prompt_tokens: 500000000 } : x));
  assert.doesNotMatch(bothWords(at4, drawn, 4, told, { sglang: heavyScaled }, null, true), /even share|almost no cost/);
});

test('the hero caption: under 40 words, and the model\'s assumption named where round robin leaves its line', () => {
  const xs = [1, 2, 4, 8, 16];
  // The model at 16 replicas: 8 x 16 = 128 misses of 200, so 0.5 x 72 / 200 = 18%; 24.3% is above it.
  const above = heroCaption({ config: base, traced: false, xs, sweeps: { round_robin: [{ instances: 16, hit_rate_tokens: 0.243 }] } });
  assert.match(above, /which assumes every replica sees every prefix\. Where round robin's points sit above its line, some replicas never drew some prefixes\.$/);
  // More prefixes than requests: 250 prefixes for 200 requests floor both lines at 0, but 200 uniform
  // draws find only about 250 x (1 - e^-0.8) = 138 distinct prefixes, so prefix_aware measures about 14%.
  const many = { ...base, num_prefixes: 250 };
  const floor = heroCaption({ config: many, traced: false, xs, sweeps: { prefix_aware: [{ instances: 4, hit_rate_tokens: 0.14 }], round_robin: [{ instances: 4, hit_rate_tokens: 0.03 }] } });
  assert.match(floor, /Black lines: the simple model, which counts a first miss for each prefix; 200 requests drew only some of the 250, so points sit above it\.$/);
  const on = heroCaption({ config: base, traced: false, xs, sweeps: { round_robin: [{ instances: 16, hit_rate_tokens: 0.19 }] } });
  assert.doesNotMatch(on, /sit above/);
  const evicting = heroCaption({ config: { ...base, kv_blocks: 40 }, traced: false, xs, sweeps: {} });
  assert.match(evicting, /No prediction line: the simple model \(misses ≈ prefixes × replicas\) draws none here, as it assumes caches that never evict\.$/);
  // A trace: no prefix count to predict from, said without the word "model line" a first-time reader could not place.
  const traced = heroCaption({ config: base, traced: true, xs, sweeps: {} });
  assert.match(traced, /No prediction line: the simple model \(misses ≈ prefixes × replicas\) draws none here, as it counts the pool's shared prefixes, and a trace has no pool\.$/);
  // No trace, no pool to predict from: 0 prefixes, and multi-turn sessions, each say their own reason.
  const none = heroCaption({ config: { ...base, num_prefixes: 0 }, traced: false, xs, sweeps: {} });
  assert.match(none, /draws none here, as with 0 prefixes no prompt shares one: there is nothing to predict\.$/);
  const sessions = heroCaption({ config: { ...base, workload: 'sessions' }, traced: false, xs, sweeps: {} });
  assert.match(sessions, /draws none here, as sessions have no prefix pool: each reuses its own earlier turns\.$/);
  for (const c of [none, sessions]) assert.doesNotMatch(c, /trace/, c);
  for (const c of [above, floor, on, evicting, traced, none, sessions]) assert.ok(c.split(/\s+/).length <= 40, `${c.split(/\s+/).length} words: ${c}`);
});

test('one replica, one prefix: singular words in the model sentence', () => {
  // 1 prefix x 1 replica = 1 predicted miss; 200 requests, 199 hit.
  const one = { ...base, num_prefixes: 1, instances: 1, routing: 'round_robin' };
  const t = heroTakeaway({ config: one, traced: false, sweeps: {},
    report: { summary: { admitted: 200, hit_requests: 199, hit_rate_tokens: 0.497, requests: 200, rejected: 0, timed_out: 0 }, per_instance: per([200]), findings: [] } });
  assert.ok(t.detail.includes('the model predicts 1 prefix × 1 replica = 1.'), t.detail);
  const four = heroTakeaway({ config: { ...base, instances: 1, routing: 'round_robin' }, traced: false, sweeps: {},
    report: { summary: { admitted: 200, hit_requests: 192, hit_rate_tokens: 0.48, requests: 200 }, per_instance: per([200]), findings: [] } });
  assert.ok(four.detail.includes('8 prefixes × 1 replica = 8.'), four.detail);
});

test('a comparison under a non-default session affinity says it holds it equal; plain settings say nothing', () => {
  // 8 replicas: round robin 92.0% and prefix_aware 92.0% were swept with kv's 100% affinity.
  const sweeps = { round_robin: [{ instances: 8, hit_rate_tokens: 0.92 }], prefix_aware: [{ instances: 8, hit_rate_tokens: 0.92 }] };
  const report = { summary: { admitted: 200, hit_requests: 200, hit_rate_tokens: 0.92, requests: 200 }, per_instance: per(Array(8).fill(25)), findings: [] };
  const lead = (extra) => heroTakeaway({ config: { ...base, instances: 8, routing: 'kv', ...extra }, traced: false, report, sweeps }).lead;
  assert.equal(lead({ session_affinity: 100 }), 'On 8 replicas, kv serves 92.0% of prompt tokens from cache (with the same 100% session affinity: round robin 92.0%, prefix_aware 92.0%).');
  assert.equal(lead({ session_affinity: null, spill_queue: 0, routers: 1 }), 'On 8 replicas, kv serves 92.0% of prompt tokens from cache (round robin 92.0%, prefix_aware 92.0%).');
  assert.ok(lead({ session_affinity: 50, spill_queue: 8, routers: 4 }).includes('(with the same 50% session affinity, spill at 8 waiting and 4 routers: round robin'));
});

// ---------- in Chromium ----------

let site;
const PAGE_TIMEOUT = 60000;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => { await site?.close(); });

/** Opens the page and waits for its first run and the hero's first sweep. */
async function openHero(url, viewport = { width: 1280, height: 900 }) {
  const opened = await site.open(url, { viewport });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0, null, { timeout: PAGE_TIMEOUT });
  return opened;
}

/** The hero chart's datasets, each cut to the points inside its x axis (what the reader sees). */
function heroOnScreen(page) {
  return page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    const { min, max } = c.scales.x;
    return Object.fromEntries(c.data.datasets.map((d) => [d.label, d.data.filter((p) => p.x >= min && p.x <= max)]));
  });
}

/** "falls from 48% to 24%" from the first and last points, as percentages rounded to whole ones. */
function trendOf(pts) {
  const a = pts[0].y.toFixed(0), b = pts[pts.length - 1].y.toFixed(0);
  assert.notEqual(a, b, 'the curve should move between its ends');
  return `${Number(b) < Number(a) ? 'falls' : 'rises'} from ${a}% to ${b}%`;
}

test('hero: after a visit to 256 replicas and back to 4, the figure keeps the curve to 256 and the range sentence describes it', async () => {
  const { page, errors } = await openHero('/');
  const slider = '#hero-in-instances';
  await page.focus(slider);
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.instances === 256 && !window.kvfleet.hero.pending, null, { timeout: PAGE_TIMEOUT });
  await page.keyboard.press('Home'); // 1, then three steps: 2, 3, 4
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.instances === 4 && !window.kvfleet.hero.pending, null, { timeout: PAGE_TIMEOUT });
  await nextFrames(page); // any draw still queued
  const check = async (what) => {
    const shown = await heroOnScreen(page);
    const rr = shown.round_robin, pa = shown.prefix_aware;
    assert.equal(rr[rr.length - 1].x, 256, `${what}: the figure keeps the visited 256 replicas`);
    const detail = await page.textContent('[data-testid=takeaway-detail]');
    assert.ok(detail.includes(`From ${rr[0].x} to 256 replicas, round robin ${trendOf(rr)}`), detail);
    const ys = pa.map((p) => p.y);
    if (Math.max(...ys) - Math.min(...ys) < 2) assert.match(detail, /prefix_aware stays near \d+%/);
  };
  await check('back at 4');
  // Another policy at 4: swept to 256 as well (the replicas visited belong to the settings, not the policy).
  await page.click('label[for="hero-in-routing-kv"]');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.routing === 'kv' && !window.kvfleet.hero.pending
    && (window.kvfleet.hero.onScreen().kv || []).some((q) => q.instances === 256), null, { timeout: PAGE_TIMEOUT });
  await nextFrames(page);
  await check('kv at 4');
  assert.deepEqual(errors, []);
});

test('hero at 256 replicas: the "256 replicas" label covers no point of the figure', async () => {
  const { page, errors } = await openHero('/?instances=256');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.instances === 256 && !window.kvfleet.hero.pending, null, { timeout: PAGE_TIMEOUT });
  await page.locator('[data-testid=chart-hero]').scrollIntoViewIfNeeded();
  await nextFrames(page);
  const { box, points } = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    c.draw();
    const points = c.data.datasets.flatMap((d, i) => (c.getDatasetMeta(i).hidden ? [] : c.getDatasetMeta(i).data
      .filter((e) => e.options.radius > 0).map((e) => ({ label: d.label, x: e.x, y: e.y, r: e.options.radius + e.options.borderWidth / 2 }))));
    return { box: c.hereLabelBox, points };
  });
  assert.ok(box && box.w > 0, 'the label was drawn');
  const hit = points.filter((p) => p.x + p.r > box.x && p.x - p.r < box.x + box.w && p.y + p.r > box.y && p.y - p.r < box.y + box.h);
  assert.deepEqual(hit, [], `label ${JSON.stringify(box)} covers points`);
  await screenshot(page, 'story-hero-256', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('on a phone at 64 replicas the "64 replicas" label crosses no point and no drawn line', async () => {
  const { page, errors } = await openHero('/?instances=64', { width: 390, height: 844 });
  await page.waitForFunction(() => window.kvfleet.lastReport.config.instances === 64 && !window.kvfleet.hero.pending
    && Object.values(window.kvfleet.hero.onScreen()).every((c) => c.some((q) => q.instances === 64)), null, { timeout: PAGE_TIMEOUT });
  await nextFrames(page);
  const { box, marks } = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('[data-testid=chart-hero]'));
    c.draw();
    const marks = [];
    c.data.datasets.forEach((d, i) => {
      if (c.getDatasetMeta(i).hidden) return;
      const pts = c.getDatasetMeta(i).data.map((e) => ({ x: e.x, y: e.y, r: (e.options.radius || 0) + (e.options.borderWidth || 0) / 2 }));
      pts.forEach((q) => { if (q.r > 0) marks.push({ ...q, label: d.label }); });
      if (d.showLine === false) return;
      // Each segment, sampled every pixel.
      for (let k = 1; k < pts.length; k++) {
        const a = pts[k - 1], b = pts[k], n = Math.ceil(Math.hypot(b.x - a.x, b.y - a.y));
        for (let j = 0; j <= n; j++) marks.push({ x: a.x + ((b.x - a.x) * j) / n, y: a.y + ((b.y - a.y) * j) / n, r: 1, label: d.label });
      }
    });
    return { box: c.hereLabelBox, marks };
  });
  assert.ok(box && box.w > 0, 'the label was drawn');
  const hit = marks.filter((m) => Number.isFinite(m.x) && m.x + m.r > box.x && m.x - m.r < box.x + box.w && m.y + m.r > box.y && m.y - m.r < box.y + box.h);
  assert.deepEqual([...new Set(hit.map((m) => m.label))], [], `label ${JSON.stringify(box)} crosses lines`);
  await screenshot(page, 'story-hero-64-phone', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('prefix_aware on the default scenario: the load warning names the busiest replica and its share, the detail how many prefixes\' worth that is, once each', async () => {
  const { page, errors } = await openHero('/?routing=prefix_aware');
  const r = await page.evaluate(() => window.kvfleet.lastReport);
  const n = r.summary.requests, p = r.config.num_prefixes, k = r.per_instance.length;
  const top = r.per_instance.reduce((b, x) => (x.requests > b.requests ? x : b));
  assert.ok(top.requests / n >= 1.5 / k, `R${top.index} took ${top.requests} of ${n}: 1.5 x an even share or more`);
  const pc0 = (x) => `${Math.round(100 * x)}%`;
  // Each of the p equally popular prefixes brings 1/p of the requests: the busiest share x p prefixes' worth.
  const worth = Math.round((top.requests / n) * p);
  assert.ok(worth > p / k, `${worth} prefixes' worth is more than an even ${p / k}`);
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  const lead = await page.textContent('[data-testid=takeaway]');
  // The Rust report's finding names R0 with its share (the ⚠ box); the lead and the detail give only why.
  assert.ok(r.findings.some((f) => f.kind === 'load_uneven' && f.replicas.length === 1 && f.replicas[0] === top.index), 'a finding on the busiest replica');
  assert.ok((await page.textContent('[data-testid=hero-finding-load_uneven]')).includes(`replica R${top.index} received ${pc0(top.requests / n)} of requests`));
  assert.ok(!lead.includes(pc0(top.requests / n)), lead);
  assert.ok(detail.includes(` prefix_aware sends each prompt to the home replica its first block hashes to, and the hash spreads the ${p} equally popular prefixes`
    + ` (about ${(100 / p).toFixed(1)}% of the requests each) unevenly: R${top.index} took about ${worth} prefixes' worth,`
    + ` where an even split is ${+(p / k).toFixed(1)} per replica.`), detail);
  assert.ok(!detail.includes(pc0(top.requests / n)) && !/busiest replica/.test(detail), `the share is said once: ${detail}`);
  assert.doesNotMatch(detail, /several prefixes/);
  // No sentence twice in the hero's lead and detail (the trend sentence included).
  const sentences = `${lead} ${detail}`.split(/(?<=\.) (?=[A-Z0-9])/);
  assert.equal(new Set(sentences).size, sentences.length, sentences.join('\n'));
  assert.equal(`${lead} ${detail}`.split('From 1 to ').length, 2, 'one trend sentence');
  assert.deepEqual(errors, []);
});

test('one replica: "1 replica" in the model sentence and the figure\'s description', async () => {
  const { page, errors } = await openHero('/?instances=1&routing=round_robin');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.instances === 1, null, { timeout: PAGE_TIMEOUT });
  const cfg = await page.evaluate(() => window.kvfleet.lastReport.config);
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  assert.ok(detail.includes(`${cfg.num_prefixes} prefixes × 1 replica = ${cfg.num_prefixes}.`), detail);
  assert.doesNotMatch(detail, /\b1 replicas\b/);
  assert.match(await page.getAttribute('[data-testid=chart-hero]', 'aria-label'), /At 1 replica:/);
  assert.deepEqual(errors, []);
});

test('lesson reuse-at-all at 9 blocks: the one-replica lead counts only the admitted requests, and says how many were refused', async () => {
  const { page, errors } = await site.open('/?lesson=reuse-at-all', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config?.kv_blocks === 833, null, { timeout: PAGE_TIMEOUT });
  await page.focus('#in-kv_blocks');
  await page.keyboard.press('Home'); // 1 block, then eight steps: 9
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.kvfleet.lastReport.config.kv_blocks === 9, null, { timeout: PAGE_TIMEOUT });
  await nextFrames(page);
  const s = await page.evaluate(() => window.kvfleet.lastReport.summary);
  assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.instances), 1);
  assert.ok(s.rejected + s.timed_out > s.requests / 2, `most requests refused (${s.rejected} rejected, ${s.timed_out} timed out of ${s.requests})`);
  const lead = await page.textContent('[data-testid=takeaway]');
  assert.doesNotMatch(lead, /the most this traffic allows/);
  const n = (x) => x.toLocaleString('en-US');
  assert.ok(lead.includes(`${(100 * s.hit_rate_tokens).toFixed(1)}% of prompt tokens come from cache`), lead);
  assert.ok(lead.includes(`counting only the ${n(s.admitted)} admitted requests (${Math.round((100 * s.admitted) / s.requests)}% of ${n(s.requests)})`), lead);
  assert.ok(lead.includes(s.timed_out ? `, since ${n(s.rejected + s.timed_out)} were turned away` : `, since ${n(s.rejected)} were rejected`), lead);
  assert.equal(lead.split(':').length, 2, `one colon in the lead: ${lead}`);
  assert.deepEqual(errors, []);
});

test('a jump to the sweep panel stops its heading below the sticky status line', async () => {
  // 700 px tall: the page can scroll the heading to the very top (at 900 it ends first).
  const { page, errors } = await openHero('/', { width: 1280, height: 700 });
  await page.locator('[data-testid=compare]').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=compare-table] tbody tr').length >= 4
    && !document.querySelector('[data-testid=compare-run]').disabled, null, { timeout: PAGE_TIMEOUT });
  await page.click('[data-testid=compare-sweep-more]');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const { bar, head, card } = await page.evaluate(() => ({
    bar: document.querySelector('.results > .status').getBoundingClientRect().toJSON(),
    head: document.getElementById('sweep-h').getBoundingClientRect().toJSON(),
    card: document.querySelector('[data-testid=sweep]').getBoundingClientRect().toJSON(),
  }));
  assert.ok(bar.top <= 0.5, `the status line is stuck at the top (${bar.top})`);
  assert.ok(head.top >= bar.bottom, `"Sweep a setting" at ${head.top}px, under the status line ending at ${bar.bottom}px`);
  assert.ok(card.top >= bar.bottom, `the panel's top edge (${card.top}px) shows below the status line (${bar.bottom}px)`);
  assert.ok(head.top < 700 / 2, `the heading is near the top (${head.top}px)`);
  await screenshot(page, 'story-sweep-jump', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('the course card is inset like the hero and the explainer', async () => {
  const { page, errors } = await openHero('/');
  const box = (sel) => page.locator(sel).boundingBox();
  const course = await box('[data-testid=course]'), hero = await box('[data-testid=hero]'), explainer = await box('#explainer');
  for (const [name, other] of [['hero', hero], ['explainer', explainer]]) {
    assert.equal(course.x, other.x, `left edge as the ${name}`);
    assert.equal(course.x + course.width, other.x + other.width, `right edge as the ${name}`);
  }
  assert.ok(course.x > 0, `inset from the window (${course.x})`);
  await screenshot(page, 'story-course', { fullPage: false });
  assert.deepEqual(errors, []);
});

test('headline figures: a space between each value and its unit, on screen and in the text ("1,720 tok", "7,790 of 12,031")', async () => {
  // A hot prefix on a 32-request queue: some requests are refused, so the headline has "Turned away" too.
  const { page, errors } = await site.open('/?request_rate=30&num_requests=3000&instances=6&routing=prefix_aware&num_prefixes=16'
    + '&prefix_len=12000&input_len=13000&output_len=200&prefix_popularity=hot:0.85&queue_capacity=32', { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config?.queue_capacity === 32, null, { timeout: PAGE_TIMEOUT });
  await page.waitForSelector('[data-testid=fig-dropped]');
  const s = await page.evaluate(() => window.kvfleet.lastReport.summary);
  const n = (x) => Math.round(x).toLocaleString('en-US');
  const want = {
    'fig-cached-avg': `${n(s.cached_tokens_avg)} tok`,
    'fig-dropped': `${n(s.rejected + s.timed_out)} of ${n(s.requests)}`,
  };
  for (const [id, text] of Object.entries(want)) {
    const sel = `[data-testid=${id}] .value`;
    assert.equal((await page.innerText(sel)).trim(), text, `${id} as shown`);
    assert.equal(await page.textContent(sel), text, `${id} as read aloud or copied`);
  }
  // The latency figures: "123 ms", "1.29 s", never "123ms".
  for (const id of ['fig-ttft-p50', 'fig-ttft-p99', 'fig-makespan']) {
    assert.match(await page.textContent(`[data-testid=${id}] .value`), /^[\d.,]+ (ms|s|min|h)$/, id);
  }
  assert.deepEqual(errors, []);
});

test('lesson "More replicas, slower answers", fix kv with session affinity: the lead says the comparison holds the affinity equal', async () => {
  const { page, errors } = await openHero('/?lesson=more-replicas-slower');
  for (let i = 0; i < 3; i += 1) await page.click('[data-testid=lesson-hint]');
  const done = await page.evaluate(() => window.kvfleet.heroDone);
  await page.click('[data-testid=lesson-fix-kv-with-session-affinity]');
  await page.waitForFunction((k) => {
    const c = window.kvfleet.lastReport.config;
    return c.routing === 'kv' && c.session_affinity === 100 && window.kvfleet.heroDone > k && !window.kvfleet.hero.pending;
  }, done, { timeout: PAGE_TIMEOUT });
  await nextFrames(page); // the sentences follow the last point (written with it)
  const cfg = await page.evaluate(() => window.kvfleet.lastReport.config);
  const shown = await heroOnScreen(page);
  const y = (p) => shown[p].find((q) => q.x === cfg.instances).y.toFixed(1);
  const lead = await page.textContent('[data-testid=takeaway]');
  assert.ok(lead.includes(`(with the same ${cfg.session_affinity}% session affinity: round robin ${y('round_robin')}%, prefix_aware ${y('prefix_aware')}%)`), lead);
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  assert.match(detail, new RegExp(`replicas, with the same ${cfg.session_affinity}% session affinity, round robin`));
  assert.deepEqual(errors, []);
});

test('the silent-warning sentence uses the findings\' own sample rule (src/findings.rs)', async () => {
  const { readFileSync } = await import('node:fs');
  const rust = readFileSync(path.join(ROOT, 'src/findings.rs'), 'utf8');
  const { WARNING_MIN_PER_REPLICA } = await import('../../www/js/story.js');
  assert.equal(Number(rust.match(/pub const MIN_REQUESTS_PER_REPLICA: f64 = ([\d.]+);/)[1]), WARNING_MIN_PER_REPLICA);
  const { CHANCE_SIGMAS } = await import('../../www/js/story.js');
  assert.equal(Number(rust.match(/pub const CHANCE_SIGMAS: f64 = ([\d.]+);/)[1]), CHANCE_SIGMAS);
  assert.equal(Number(rust.match(/pub const LOAD_HIGH_RATIO: f64 = ([\d.]+);/)[1]), 1.5, 'the page\'s UNEVEN');
});

test('one replica: one colon in the lead, the unbounded cache\'s limit in brackets', () => {
  const t = heroTakeaway({ config: { ...base, instances: 1, routing: 'round_robin', kv_blocks: null }, traced: false,
    report: { summary: { admitted: 200, requests: 200, hit_requests: 192, hit_rate_tokens: 0.48, rejected: 0, timed_out: 0 }, per_instance: per([200]), findings: [] }, sweeps: {} });
  assert.equal(t.lead, 'With one replica there is nothing to route: 48.0% of prompt tokens come from cache, the most this traffic allows with an unbounded cache (only what prompts share can be reused).');
});

test('a busiest replica within chance is not called out: 7 of 200 requests on 64 replicas', () => {
  // Mean 200 / 64 = 3.125; 3 x sqrt(3.125) = 5.3; 7 - 3.125 = 3.9 is within it (the findings' test).
  const counts = [7, ...Array(63).fill(0)];
  let left = 200 - 7;
  for (let i = 1; left > 0; i = (i % 63) + 1) { counts[i] += 1; left -= 1; }
  assert.equal(Math.max(...counts), 7);
  assert.equal(busiestWords({ summary: { requests: 200 }, per_instance: per(counts) }, base, 'kv'), '');
  // 9 is beyond it (9 - 3.125 = 5.9 > 5.3): said, with why no warning.
  counts[0] = 9; counts[1] -= 2;
  assert.match(busiestWords({ summary: { requests: 200 }, per_instance: per(counts) }, base, 'kv'), /^The busiest replica, R0, took 4\.5% of the requests \(an even share is 1\.6%\)\. No ⚠ uneven-load warning shows for it: that warning needs 30 requests per replica on average, and here there are 3\.1\.$/);
});

test('"more hits than round robin" needs 2 points: least_loaded\'s 0.7 and its median on the knife edge are not a gain', () => {
  // 16 replicas, the page's run: round robin 24.3% (p50 137 ms), least_loaded 25.0% (p50 78 ms), prefix_aware 48.0% (p50 75 ms).
  const pt = (hit, p50, p99) => [{ instances: 16, hit_rate_tokens: hit, ttft_ms_p50: p50, ttft_ms_p99: p99 }];
  const sweeps = { round_robin: pt(0.243, 137.1, 140.9), least_loaded: pt(0.25, 78, 139), prefix_aware: pt(0.48, 75.3, 138.9) };
  const words = tradeoffWords(sweeps, ['round_robin', 'prefix_aware', 'least_loaded'], 16, 'least_loaded');
  assert.equal(words, 'More hits than round robin, faster typical answers: prefix_aware\'s first-token time is 75 ms median and 139 ms p99, round robin\'s 137 ms and 141 ms.');
  // At 2.0 points it is a gain and is named.
  const two = { ...sweeps, least_loaded: pt(0.263, 78, 139) };
  assert.match(tradeoffWords(two, ['round_robin', 'prefix_aware', 'least_loaded'], 16, 'least_loaded'), /least_loaded's 78 ms and 139 ms/);
});

test('the two rates on a trace: the uncached share, with no blame on placement', () => {
  // The conversation trace under sglang at 4 replicas: 99.97% of requests, 36.9% of tokens.
  const words = whyRatesDiffer({ hit_rate_requests: 0.9997, hit_rate_tokens: 0.369 }, {}, true);
  assert.equal(words, '99.97% of requests reuse at least one cached block, but only 36.9% of prompt tokens come from cache: one cached block is enough to count a request, while 63.1% of prompt tokens had to be computed afresh.');
});

test('round robin\'s median jump is explained by its misses passing half, from the swept points', () => {
  // The page's default sweep: 99 misses of 200 at 14 replicas (p50 78 ms), 103 at 16 (p50 137 ms).
  const pt = (instances, missed, p50) => ({ instances, admitted: 200, hit_requests: 200 - missed, ttft_ms_p50: p50 });
  const sweeps = { round_robin: [pt(4, 32, 76), pt(12, 87, 76), pt(14, 99, 78), pt(16, 103, 137)] };
  assert.equal(medianJump(sweeps, 16), 'More than half of round robin\'s requests found no cached prefix here (103 of 200; 99, under half, at 14 replicas), and a miss computes its whole prompt: its median first-token time is 137 ms here, 78 ms at 14.');
  // Under half here: nothing; exactly half is not more than half.
  assert.equal(medianJump(sweeps, 14), '');
  assert.equal(medianJump({ round_robin: [pt(4, 32, 76), pt(16, 100, 137)] }, 16), '');
  // No jump (under 1.5 times): nothing.
  assert.equal(medianJump({ round_robin: [pt(4, 32, 100), pt(16, 103, 137)] }, 16), '');
});

test('expectedRepeats: the repeats chance gives round robin, against enumeration by hand and the CLI\'s counts', () => {
  const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} against ${b}`);
  // 3 requests on 1 replica, 2 equally popular prefixes: of the 8 equally likely draws, aaa and bbb
  // repeat twice and the other 6 once: (2 + 2 + 6) / 8 = 1.25.
  close(expectedRepeats({ num_requests: 3, num_prefixes: 2 }, 1), 1.25, 'uniform');
  // 2 requests, hot:0.75 over 2 prefixes: a repeat when both draw the same, 0.75² + 0.25² = 0.625.
  close(expectedRepeats({ num_requests: 2, num_prefixes: 2, prefix_popularity: 'hot:0.75' }, 1), 0.625, 'hot');
  // 5 requests over 2 replicas: 3 and 2, 2 prefixes: (3 - 1.75) + (2 - 1.5) = 1.75.
  close(expectedRepeats({ num_requests: 5, num_prefixes: 2 }, 2), 1.75, 'dealt unevenly');
  // zipf:1 over 2: shares 2/3 and 1/3 (weights 1 and 1/2).
  close(prefixShares('zipf:1', 2)[0], 2 / 3, 'zipf');
  assert.equal(prefixShares('bimodal', 4), null);
  // The CLI (kvfleet --des-instances R --des-routing round_robin, the defaults: 200 requests, 8
  // uniform prefixes) has 53, 38, 28 and 12 requests with a hit at 32, 48, 64 and 128 replicas;
  // "about N such repeats are expected" must be within 4 of each.
  const config = { num_requests: 200, num_prefixes: 8, prefix_popularity: 'uniform' };
  for (const [r, hits] of [[32, 53], [48, 38], [64, 28], [128, 12]]) {
    const e = expectedRepeats(config, r);
    assert.ok(Math.abs(e - hits) <= 4, `${r} replicas: expected ${e.toFixed(1)}, the CLI's ${hits}`);
  }
});

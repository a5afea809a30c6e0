// tests/e2e/noise-words.test.mjs: the hero's sentence on the seeds (www/js/hero-band.js noiseWords), on
// hand-computed spreads: "beyond noise" only where the 95 % intervals part, "within noise" where they
// overlap, nothing with one seed. No browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noiseWords } from '../../www/js/hero-band.js';
import { beyondNoise, apartAsShown, seedsApart } from '../../www/js/noise.js';

// Three seeds: mean ± 4.30265273 × s / √3; values x − 0.01, x, x + 0.01 give s = 0.01, ± 0.0248414.
const three = (x) => ({ mean: x, ci95_low: x - 0.0248414, ci95_high: x + 0.0248414 });

test('kv at 41.0% (38.5–43.5%): less than round robin at 51.0% (48.5–53.5%), within noise of prefix_aware at 43.0% (40.5–45.5%)', () => {
  const words = noiseWords(3, { policy: 'kv', spread: three(0.41) },
    [{ policy: 'round_robin', spread: three(0.51) }, { policy: 'prefix_aware', spread: three(0.43) }]);
  assert.equal(words, "Over 3 seeds, kv serves 41.0% of prompt tokens from cache (95% interval 38.5%–43.5%): "
    + "less than round robin's 51.0% (48.5%–53.5%), beyond noise; within noise of prefix_aware's 43.0% (40.5%–45.5%).");
});

test('intervals that touch as printed are within noise; one seed (no interval) says nothing', () => {
  const kv = { mean: 0.424, ci95_low: 0.42004, ci95_high: 0.428 };
  const rr = { mean: 0.42, ci95_low: 0.42, ci95_high: 0.42 };
  assert.equal(beyondNoise(kv, rr), true, 'apart by 0.00004');
  assert.equal(apartAsShown(kv, rr), false, 'both print 42.0%');
  // An interval of no width (every seed gave 42.0%) is said so.
  assert.match(noiseWords(5, { policy: 'kv', spread: kv }, [{ policy: 'round_robin', spread: rr }]), /within noise of round robin's 42.0% \(the same on every seed\)\.$/);
  assert.equal(beyondNoise({ mean: 0.4, ci95_low: null, ci95_high: null }, rr), null);
  assert.equal(noiseWords(1, { policy: 'kv', spread: { mean: 0.4, ci95_low: null, ci95_high: null } }, []), '');
});

test('with the seeds known, "more hits than round robin" needs the hit rates apart beyond noise', async () => {
  const { tradeoffWords } = await import('../../www/js/story-speed.js');
  // kv: 45.0% of tokens, 60 ms median, 100 ms p99; round robin: 42.0%, 100 ms, 200 ms (3 points apart: over the 2-point threshold).
  const pt = (p, hit, p50, p99, seeds) => ({ instances: 4, routing: p, hit_rate_tokens: hit, ttft_ms_p50: p50, ttft_ms_p99: p99, ...(seeds ? { seeds } : {}) });
  const one = { kv: [pt('kv', 0.45, 60, 100)], round_robin: [pt('round_robin', 0.42, 100, 200)] };
  assert.match(tradeoffWords(one, ['round_robin', 'kv'], 4, 'kv'), /^More hits than round robin, faster answers: /);
  // Over seeds: kv 40.0–50.0%, round robin 40.0–44.0%: the intervals overlap, so no "more hits".
  const spread = (lo, hi) => ({ mean: (lo + hi) / 2, ci95_low: lo, ci95_high: hi });
  const p99 = (x) => spread(x, x);
  const noisy = {
    kv: [pt('kv', 0.45, 60, 100, { hit_rate_tokens: spread(0.40, 0.50), ttft_ms_p99: p99(100) })],
    round_robin: [pt('round_robin', 0.42, 100, 200, { hit_rate_tokens: spread(0.40, 0.44), ttft_ms_p99: p99(200) })],
  };
  assert.equal(tradeoffWords(noisy, ['round_robin', 'kv'], 4, 'kv'), '');
  assert.equal(seedsApart({ q: noisy.kv[0] }, { q: noisy.round_robin[0] }, 'hit_rate_tokens'), false);
  // Apart (kv 44.5–45.5%): the sentence is back.
  noisy.kv[0].seeds.hit_rate_tokens = spread(0.445, 0.455);
  assert.match(tradeoffWords(noisy, ['round_robin', 'kv'], 4, 'kv'), /^More hits than round robin, faster answers: /);
});

test('with the seeds known, kv\'s share of prefix_aware\'s gain is said only when that gain is beyond noise', async () => {
  const { heroTakeaway } = await import('../../www/js/story.js');
  const base = { workload: 'pool', num_requests: 200, num_prefixes: 8, prefix_len: 2048, input_len: 4096, block_size: 512, kv_blocks: null, overlap_weight: 1, prefix_popularity: 'uniform', instances: 8, routing: 'kv' };
  const report = { summary: { admitted: 200, hit_requests: 180, hit_rate_tokens: 0.45, requests: 200 }, per_instance: Array.from({ length: 8 }, (_, index) => ({ index, requests: 25 })), findings: [] };
  const spread = (lo, hi) => ({ mean: (lo + hi) / 2, ci95_low: lo, ci95_high: hi });
  // Round robin 36.0%, prefix_aware 48.0%: a 12-point gain; kv at 45.0% keeps 9.0 of it.
  const sweeps = (rr, pa) => ({
    round_robin: [{ instances: 8, hit_rate_tokens: 0.36, ...(rr ? { seeds: { hit_rate_tokens: rr } } : {}) }],
    prefix_aware: [{ instances: 8, hit_rate_tokens: 0.48, ...(pa ? { seeds: { hit_rate_tokens: pa } } : {}) }],
  });
  const detail = (s) => heroTakeaway({ config: base, traced: false, report, sweeps: s }).detail;
  assert.match(detail(sweeps()), /so it keeps 9\.0 of the 12\.0 percentage points prefix_aware gains over round robin\./);
  // Over seeds the two intervals (30–42%, 40–56%) overlap: the gain is within noise, and not said.
  assert.doesNotMatch(detail(sweeps(spread(0.30, 0.42), spread(0.40, 0.56))), /keeps/);
  // Apart (34–38%, 46–50%): said again.
  assert.match(detail(sweeps(spread(0.34, 0.38), spread(0.46, 0.50))), /so it keeps 9\.0 of the 12\.0 percentage points/);
});

test('with the seeds known, kv keeps none of the gain when its hit rate is within noise of round robin\'s', async () => {
  const { heroTakeaway } = await import('../../www/js/story.js');
  const base = { workload: 'pool', num_requests: 200, num_prefixes: 8, prefix_len: 2048, input_len: 4096, block_size: 512, kv_blocks: null, overlap_weight: 1, prefix_popularity: 'uniform', instances: 4, routing: 'kv' };
  const report = { summary: { admitted: 200, hit_requests: 170, hit_rate_tokens: 0.425, requests: 200 }, per_instance: Array.from({ length: 4 }, (_, index) => ({ index, requests: 50 })), findings: [] };
  const spread = (lo, hi) => ({ mean: (lo + hi) / 2, ci95_low: lo, ci95_high: hi });
  // Round robin 42.0% (42.0% every seed), prefix_aware 48.0% (every seed), kv 42.5% (42.0%–42.8%): kv's 0.5 points are noise.
  const sweeps = {
    round_robin: [{ instances: 4, hit_rate_tokens: 0.42, seeds: { hit_rate_tokens: spread(0.42, 0.42) } }],
    prefix_aware: [{ instances: 4, hit_rate_tokens: 0.48, seeds: { hit_rate_tokens: spread(0.48, 0.48) } }],
    kv: [{ instances: 4, hit_rate_tokens: 0.425, seeds: { hit_rate_tokens: spread(0.4200001, 0.428) } }],
  };
  const detail = heroTakeaway({ config: base, traced: false, report, sweeps }).detail;
  assert.ok(detail.includes("so it keeps none of the 6.0 percentage points prefix_aware gains over round robin beyond noise: over the seeds its hit rate is within noise of round robin's."), detail);
  // Without the seeds: the one-seed words, 0.5 of 6.0.
  const one = Object.fromEntries(Object.entries(sweeps).map(([p, pts]) => [p, pts.map(({ seeds, ...q }) => q)]));
  assert.ok(heroTakeaway({ config: base, traced: false, report, sweeps: one }).detail.includes('so it keeps 0.5 of the 6.0 percentage points prefix_aware gains over round robin.'));
});
